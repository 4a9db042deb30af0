"""One FAQ entry in one language: the type the file, the database's rows, the console, the
matcher and the answers all use.

In a FAQ file `tags` and `examples` are `|`-separated; in the `faq_entries` table tags are
`,`-separated and examples one per line. `stored_tags`/`stored_examples` and `from_stored` are
the one conversion between the two.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace


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


EXAMPLE_CHARACTERS = 300
"""A learnt example keeps a customer's message up to this length (their question comes first)."""


def with_example(documents: Sequence[FaqDocument], slug: str, text: str, language: str) -> list[FaqDocument]:
    """The FAQ with `text` filed as one more example of the entry `slug`: a confirmed pairing of a
    customer's question with the entry (a button they pressed, an admin's choice). It goes on the
    entry's row in `language`, else its English row, else its first; a phrasing the entry already
    has, or an entry the FAQ no longer has, changes nothing."""
    example = " ".join(text.split())[:EXAMPLE_CHARACTERS]
    rows = [d for d in documents if d.slug == slug]
    if not example or not rows:
        return list(documents)
    if any(example.casefold() == known.casefold() for d in rows for known in (d.question, *d.examples)):
        return list(documents)
    target = next(
        (d for wanted in (language, "en") for d in rows if d.language == wanted),
        rows[0],
    )
    return [replace(d, examples=(*d.examples, example)) if d is target else d for d in documents]


def _parts(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(value.strip() for value in values if value.strip())


MEANING_EXAMPLE_CHARACTERS = 60
"""The longest example that stands for its entry's meaning (the encoders' indexes). The shop's own
phrasings are short (median 18 characters, 99% within 53 over the tuning and held-out FAQs); a
customer's message filed under an entry is often long, and its personal context and other questions
then pull other long messages to that entry. Filing the first half of each customer-voice tuning FAQ's
questions (`csbot eval --learn 0.5`, the second half asked) with every example in the indexes: coverage
0.229 -> 0.245, reached 0.912 -> 0.901, false answers 0.012 -> 0.017; with examples up to 60
characters: 0.229, 0.917, 0.012 (40: 0.223 / 0.917 / 0.012; 80: 0.245 / 0.917 / 0.015). A longer
example still counts as words and as the shop's own phrasing (asked again in the same words, it is
answered outright)."""


def meaning_phrasings(document: FaqDocument) -> tuple[str, ...]:
    """The entry row's question and its examples short enough to stand for its meaning."""
    return tuple(
        text
        for text in (
            document.question,
            *(e for e in document.examples if len(e) <= MEANING_EXAMPLE_CHARACTERS),
        )
        if text
    )
