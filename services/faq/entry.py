"""One FAQ entry in one language: the type the file, the database's rows, the console, the
matcher and the answers all use.

In a FAQ file `tags` and `examples` are `|`-separated; in the `faq_entries` table tags are
`,`-separated and examples one per line. `stored_tags`/`stored_examples` and `from_stored` are
the one conversion between the two.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class FaqDocument:
    slug: str
    language: str
    question: str
    answer: str
    tags: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()

    @property
    def stored_tags(self) -> str:
        return ",".join(self.tags)

    @property
    def stored_examples(self) -> str:
        return "\n".join(self.examples)

    @classmethod
    def from_stored(
        cls, slug: str, language: str, question: str, answer: str, tags: str, examples: str
    ) -> FaqDocument:
        return cls(slug, language, question, answer, _parts(tags.split(",")), _parts(examples.splitlines()))


def _parts(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(value.strip() for value in values if value.strip())
