"""FAQ answers from the shop's own FAQ text, never invented words.

The lookup answers only when the matcher is confident the entry answers *this* question;
the speculative LLM service (services/llm/speculative.py) answers the same way and uses this
lookup as its retrieval drafter.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from services.faq.entry import FaqDocument
from services.faq.matcher import Calibration, FaqMatch, FaqMatcher
from services.text.sentences import Language
from services.understanding.encoder import SentenceEncoder

if TYPE_CHECKING:
    from services.faq.store import FaqRefresher

__all__ = ["FaqAnswer", "FaqDocument", "FaqLookupAnswerer", "FaqMatch"]


@dataclass(frozen=True)
class FaqAnswer:
    text: str
    slug: str
    score: float
    """The matcher's calibrated probability that the entry answers the question."""


class FaqLookupAnswerer:
    """Answers with the matching FAQ entry, in the customer's language when the shop has it.

    The matcher behind it is swapped whole when the shop's FAQ changes
    (`reload`), so a message being answered keeps the index it started with.
    """

    def __init__(
        self,
        documents: Iterable[FaqDocument],
        *,
        encoder: SentenceEncoder | None = None,
        min_confidence: float | None = None,
    ) -> None:
        """`min_confidence`: the shop's own bar for answering (Calibration.load)."""
        self._encoder = encoder
        self._calibration = Calibration.load(threshold=min_confidence)
        self._matcher = FaqMatcher(documents, encoder=encoder, calibration=self._calibration)
        self._last: tuple[str, str, FaqMatch | None] | None = None
        self._lock = threading.Lock()
        self.refresher: FaqRefresher | None = None
        """Set by services.answerers when the FAQ comes from the database."""

    @property
    def matcher(self) -> FaqMatcher:
        return self._matcher

    def reload(self, documents: Iterable[FaqDocument]) -> None:
        """Build the new index first, then swap: answering never sees half an index."""
        matcher = FaqMatcher(documents, encoder=self._encoder, calibration=self._calibration)
        with self._lock:
            self._matcher = matcher
            self._last = None

    def match(self, question: str, *, language: Language, embedded: str | None = None) -> FaqMatch | None:
        """The best entry with its evidence (answered or not); the last result is reused, so the
        answer to a message is the one its understanding found (`embedded`: FaqMatcher.scores)."""
        with self._lock:
            last, matcher = self._last, self._matcher
        if last is not None and last[0] == question and last[1] == language:
            return last[2]
        found = matcher.match(question, language=language, embedded=embedded)
        with self._lock:
            if matcher is self._matcher:
                self._last = (question, language, found)
        return found

    def context(self, question: str, *, language: Language, limit: int = 3) -> str:
        """The entries most related to `question`, as text a model may draw on."""
        documents = self._matcher.related(question, language=language, limit=limit)
        return "\n\n".join(f"Q: {d.question}\nA: {d.answer}" for d in documents)

    async def answer(
        self, question: str, *, language: Language, tags: Sequence[str] = ()
    ) -> FaqAnswer | None:
        """`tags` are accepted for the interface; the matcher weighs every entry (a shop's tags vary)."""
        found = self.match(question, language=language)
        if found is None or not found.answered:
            return None
        return FaqAnswer(text=found.document.answer, slug=found.slug, score=found.confidence)
