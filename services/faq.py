"""FAQ answers behind one interface.

`FaqAnswerer` is the one interface for FAQ answers: the lookup here answers
with the shop's own FAQ text, never invented words; the speculative LLM service
(services/llm/speculative.py) implements it too and uses this lookup as its
retrieval drafter.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from services.text_normalize import normalize

MIN_SCORE = 0.12
"""Below this cosine similarity the best entry is a guess, and we say we don't know."""


@dataclass(frozen=True)
class FaqDocument:
    slug: str
    language: str
    question: str
    answer: str
    tags: tuple[str, ...]


@dataclass(frozen=True)
class FaqAnswer:
    text: str
    slug: str
    score: float


class FaqAnswerer(Protocol):
    async def answer(self, question: str, *, language: str, tags: Sequence[str] = ()) -> FaqAnswer | None:
        """Best answer for `question`, or None when the shop's FAQ does not cover it."""
        ...


_LATIN = re.compile(r"[a-z0-9]+")
_CJK_RUN = re.compile(r"[\uac00-\ud7a3\u3040-\u30ff\u4e00-\u9fff]+")
_STOPWORDS = frozenset(
    "a an the i my me we you your is are do does can how what when where which to of for "  # noqa: SIM905
    "in on it and or if be will with this that there please".split()
)


def _terms(text: str) -> list[str]:
    """Latin words plus character bigrams of CJK runs: robust to Korean particles."""
    clean = normalize(text)
    terms = [w for w in _LATIN.findall(clean) if w not in _STOPWORDS]
    for run in _CJK_RUN.findall(clean):
        terms.extend(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return terms


class FaqIndex:
    """TF-IDF cosine over question, tags and answer; questions weigh double."""

    def __init__(self, documents: Iterable[FaqDocument]) -> None:
        self._documents = list(documents)
        bags = [
            Counter(_terms(d.question) * 2 + _terms(" ".join(d.tags)) * 2 + _terms(d.answer))
            for d in self._documents
        ]
        frequency: Counter[str] = Counter(term for bag in bags for term in bag)
        count = len(bags) or 1
        self._idf = {term: math.log(1 + count / df) for term, df in frequency.items()}
        self._vectors = [self._weigh(bag) for bag in bags]

    def _weigh(self, bag: Counter[str]) -> dict[str, float]:
        vector = {term: n * self._idf.get(term, 0.0) for term, n in bag.items()}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {term: v / norm for term, v in vector.items()}

    def ranked(
        self, question: str, *, language: str, tags: Sequence[str] = ()
    ) -> list[tuple[FaqDocument, float]]:
        """Entries by similarity, best first; other languages count half."""
        query = self._weigh(Counter(_terms(question)))
        scored = []
        for document, vector in zip(self._documents, self._vectors, strict=True):
            if tags and not set(tags) & set(document.tags):
                continue
            score = sum(weight * vector.get(term, 0.0) for term, weight in query.items())
            scored.append((document, score if document.language == language else score * 0.5))
        scored.sort(key=lambda pair: -pair[1])
        return scored

    def search(
        self, question: str, *, language: str, tags: Sequence[str] = ()
    ) -> tuple[FaqDocument, float] | None:
        ranked = self.ranked(question, language=language, tags=tags)
        return ranked[0] if ranked else None


class FaqLookupAnswerer:
    """Answers with the best-matching FAQ entry, in the customer's language when we have it."""

    def __init__(self, documents: Iterable[FaqDocument]) -> None:
        self._documents = list(documents)
        self._index = FaqIndex(self._documents)

    def context(self, question: str, *, language: str, limit: int = 3) -> str:
        """The entries most related to `question`, as text a model may draw on."""
        ranked = self._index.ranked(question, language=language)[:limit]
        return "\n\n".join(f"Q: {d.question}\nA: {d.answer}" for d, score in ranked if score > 0)

    async def answer(self, question: str, *, language: str, tags: Sequence[str] = ()) -> FaqAnswer | None:
        found = self._index.search(question, language=language, tags=tags)
        if found is None or found[1] < MIN_SCORE:
            return None
        document, score = found
        localized = next(
            (d for d in self._documents if d.slug == document.slug and d.language == language),
            document,
        )
        return FaqAnswer(text=localized.answer, slug=localized.slug, score=round(score, 3))
