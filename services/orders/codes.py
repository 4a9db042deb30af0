"""The shop's own order-number shapes, learned from its orders, so a typed code is read whole.

A shop numbers its orders its own way (`MC20261130-0003`, `KT-261130-063`). Customers type them
with the prefix or without, with the dash or without, in lower case. From the stored numbers
each shape is learned (letters kept, digit runs by length, separators optional), so
"kt261130063" and "261130-063" are read as one code, and never as a part of one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MAX_SHAPES = 12
"""A shop has a handful of shapes (one per era of its numbering); more would be noise."""
_RUN = re.compile(r"[A-Za-z]+|\d+|[^A-Za-z\d]+")
_SEPARATOR = r"[-_\s/.]?"


@dataclass(frozen=True)
class OrderShape:
    prefix: str
    """The letters before the first digit, upper case ("MC"), or none."""
    digits: tuple[int, ...]
    """The lengths of the digit runs, in order ((8, 4) for MC20261130-0003)."""

    def pattern(self) -> str:
        """The code as a customer types it: prefix optional, separators optional."""
        body = _SEPARATOR.join(rf"\d{{{n}}}" for n in self.digits)
        prefix = rf"(?:{re.escape(self.prefix.lower())}{_SEPARATOR})?" if self.prefix else ""
        return prefix + body

    def example(self) -> str:
        """A made-up number of the shape for help texts (never a real customer's order)."""
        parts, counter = [], 1
        for n in self.digits:
            parts.append("".join(str((counter + i) % 10) for i in range(n)))
            counter += n
        return (f"{self.prefix}" if self.prefix else "") + "-".join(parts)


def shape_of(number: str) -> OrderShape | None:
    runs = _RUN.findall(number.strip())
    prefix = runs[0].upper() if runs and runs[0].isalpha() else ""
    digits = tuple(len(run) for run in runs if run.isdigit())
    if sum(digits) < 6:  # too short to tell from a quantity or a price
        return None
    return OrderShape(prefix, digits)


@dataclass(frozen=True)
class OrderCodes:
    """What the shop's order numbers look like."""

    shapes: tuple[OrderShape, ...] = ()

    @classmethod
    def learn(cls, numbers: Iterable[str]) -> OrderCodes:
        counts: dict[OrderShape, int] = {}
        for number in numbers:
            shape = shape_of(number)
            if shape is not None:
                counts[shape] = counts.get(shape, 0) + 1
        common = sorted(counts, key=lambda shape: (-counts[shape], shape.prefix, shape.digits))
        return cls(tuple(common[:MAX_SHAPES]))

    def find(self, clean: str) -> list[str]:
        """The codes of a learned shape in normalised (lower-case) text, longest first, as typed."""
        if not self.shapes:
            return []
        pattern = "|".join(
            f"(?:{shape.pattern()})" for shape in sorted(self.shapes, key=_length, reverse=True)
        )
        return [m.group(0).strip() for m in re.finditer(rf"(?<![a-z0-9])(?:{pattern})(?![0-9])", clean)]

    def example(self) -> str | None:
        """The commonest shape's made-up example, for "send me the order number (like ...)"."""
        return self.shapes[0].example() if self.shapes else None


def _length(shape: OrderShape) -> int:
    return len(shape.prefix) + sum(shape.digits)
