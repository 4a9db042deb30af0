"""Generated text may only state facts it was given.

Whatever the model, every number (amounts, prices, percentages, dates,
durations, phone and order numbers all contain one), email address and URL in a
reply must appear in the facts and FAQ text the model was given. The
customer's own message is not a source: "is it 90% off?" must not become "yes,
90% off".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBER = re.compile(r"\d[\d,]*(?:[.-]\d+)*")
"""Dates, phone and order numbers stay whole: "2026-12-01" must not vouch for "12"."""
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"')]+")


@dataclass(frozen=True)
class GuardVerdict:
    ok: bool
    unsupported: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        return "unsupported: " + ", ".join(self.unsupported) if self.unsupported else ""


def _numbers(text: str) -> set[str]:
    return {match.replace(",", "").rstrip(".") for match in _NUMBER.findall(text)}


class FactGuard:
    def __init__(self, sources: str) -> None:
        self._numbers = _numbers(sources)
        # Digits may be written differently (010-1234-5678 vs 01012345678): compare digit runs too.
        self._digits = re.sub(r"\D", "", sources)
        self._lowered = sources.lower()

    def check(self, reply: str) -> GuardVerdict:
        unsupported: list[str] = []
        for address in _EMAIL.findall(reply) + _URL.findall(reply):
            if address.lower().rstrip(".,") not in self._lowered:
                unsupported.append(address)
        without_addresses = _URL.sub(" ", _EMAIL.sub(" ", reply))
        for number in _numbers(without_addresses):
            if number not in self._numbers and (len(number) < 7 or number not in self._digits):
                unsupported.append(number)
        return GuardVerdict(not unsupported, tuple(dict.fromkeys(unsupported)))
