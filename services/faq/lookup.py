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

from services.faq.calibration import Calibration
from services.faq.entry import FaqDocument
from services.faq.matcher import CALIBRATION_PATH, FEATURES, FaqMatch, FaqMatcher
from services.text.sentences import Language
from services.understanding.encoder import SentenceEncoder

if TYPE_CHECKING:
    from services.faq.store import FaqRefresher

__all__ = ["FaqAnswer", "FaqDocument", "FaqLookupAnswerer", "FaqMatch", "entries_text"]

_KEPT = 64
"""Recent matches kept: a message's understanding and its answer ask for the same one."""


def entries_text(documents: Iterable[FaqDocument]) -> str:
    """Entries as a model reads them: "Q: ...\nA: ..." blocks."""
    return "\n\n".join(f"Q: {d.question}\nA: {d.answer}" for d in documents)


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
        self._min_confidence = min_confidence
        self._calibration = Calibration.load(CALIBRATION_PATH, features=FEATURES, threshold=min_confidence)
        self._matcher = self._index(documents)
        self._last: dict[tuple[str, str, bool], FaqMatch | None] = {}
        self._lock = threading.Lock()
        self.refresher: FaqRefresher | None = None
        """Set by services.answerers when the FAQ comes from the database."""

    @property
    def matcher(self) -> FaqMatcher:
        return self._matcher

    def _index(self, documents: Iterable[FaqDocument]) -> FaqMatcher:
        return FaqMatcher(
            documents, encoder=self._encoder, calibration=self._calibration, shop_bar=self._min_confidence
        )

    def learnt(self, documents: Iterable[FaqDocument]) -> FaqLookupAnswerer:
        """A lookup of `documents` with this one's encoder and bar (`csbot eval --learn`)."""
        return FaqLookupAnswerer(documents, encoder=self._encoder, min_confidence=self._min_confidence)

    def reload(self, documents: Iterable[FaqDocument]) -> None:
        """Build the new index first, then swap: answering never sees half an index."""
        matcher = self._index(documents)
        with self._lock:
            self._matcher = matcher
            self._last = {}

    def match(
        self,
        question: str,
        *,
        language: Language,
        embedded: str | None = None,
        second_look: bool = False,
    ) -> FaqMatch | None:
        """The best entry with its evidence (answered or not); the last results are reused, so the
        answer to a message is the one its understanding found (`embedded`: FaqMatcher.scores;
        `second_look`: FaqMatcher.match)."""
        key = (question, language, second_look)
        with self._lock:
            matcher = self._matcher
            if key in self._last:
                return self._last[key]
            first_key = (question, language, False)
            if second_look and first_key in self._last:
                first = self._last[first_key]
                if first is None or first.answered:
                    return first  # answered at the first look: the second would change nothing
        found = matcher.match(question, language=language, embedded=embedded, second_look=second_look)
        with self._lock:
            if matcher is self._matcher:
                self._last[key] = found
                while len(self._last) > _KEPT:
                    del self._last[next(iter(self._last))]
        return found

    def context(self, question: str, *, language: Language, limit: int = 3) -> str:
        """The entries most related to `question`, as text a model may draw on."""
        return entries_text(self.related(question, language=language, limit=limit))

    def related(self, question: str, *, language: Language, limit: int = 3) -> list[FaqDocument]:
        """The entries most related to `question`, closest first, in `language` where written."""
        return self._matcher.related(question, language=language, limit=limit)

    async def answer(
        self, question: str, *, language: Language, tags: Sequence[str] = ()
    ) -> FaqAnswer | None:
        """`tags` are accepted for the interface; the matcher weighs every entry (a shop's tags vary)."""
        found = self.match(question, language=language, second_look=True)
        if found is None or not found.answered:
            return None
        return FaqAnswer(text=found.document.answer, slug=found.slug, score=found.confidence)
