"""A second look at a question the matcher would not answer: the retrieval encoder's ranking, and
the shop's own phrasings it is a close paraphrase of.

The matcher (services/faq/matcher.py) reads every message with USE-multilingual and answers only
when its calibrated probability clears the bar. For a message it would not answer and that asks
the FAQ (`services.understanding.understand.asks_the_faq`), multilingual-e5-small
(services/understanding/retrieval_encoder.py) looks again:

- **ranking**: each entry's e5 score (the best of the question against the entry's phrasings and
  against its question-with-answer passages) is added to the matcher's ranking score, `RANK_WEIGHT`
  times; the offered entries are the new top three. On the tuning FAQs the right entry is then in
  the top three for 0.985 of their covered questions, against 0.970 for the matcher alone (weights
  0, 0.5, 1, 2 and 4 compared in a one-off script; 2 and 4 tied on the top three).
- **a second judgement**: a logistic model (`FEATURES`, services/faq/data/second_look_calibration.json,
  fitted by `python -m bench.retrieval` on the tuning FAQs as written and after half their
  questions were filed as examples) answers with the new first entry when it is sure: the
  matcher's own probability and whether it picked the same entry, the leads of the new ranking and
  of e5 alone, the nearest of the entry's own phrasings (its question in any language, or an
  example the shop wrote or filed from its customers' questions) and its lead over every other
  entry's, the question-with-answer similarity and its lead. Its bar adds at most 0.3% wrong
  answers over the tuning pool; a shop's raised bar (CSBOT_FAQ_MIN_CONFIDENCE) holds for it too,
  and a FAQ of one entry (nothing to lead) is never answered by it.

The entries' e5 vectors are built on the first second look (not at start) and kept on disk by the
content they encode (services/understanding/vector_cache.py), so a restart or a reload of an
unchanged FAQ reads them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from services.faq.calibration import Calibration
from services.faq.entry import meaning_phrasings
from services.faq.leads import lead
from services.text.patterns import CJK
from services.understanding.retrieval_encoder import (
    RETRIEVAL_MODEL,
    RetrievalEncoder,
    shared_retrieval_encoder,
)
from services.understanding.vector_cache import cached, digest

if TYPE_CHECKING:
    from services.faq.matcher import FaqMatch, FaqMatcher
    from services.text.sentences import Language

RANK_WEIGHT = 2.0
CALIBRATION_PATH = Path(__file__).parent / "data" / "second_look_calibration.json"
FEATURES = (
    "first_probability",
    "first_agrees",
    "rank_margin",
    "retrieval",
    "retrieval_margin",
    "paraphrase",
    "paraphrase_lead",
    "passage",
    "passage_margin",
    "cjk",
)


@cache
def second_look_calibration() -> Calibration:
    return Calibration.load(CALIBRATION_PATH, features=FEATURES)


@dataclass(frozen=True)
class _Index:
    phrasings: np.ndarray
    phrasing_entries: np.ndarray
    passages: np.ndarray
    passage_entries: np.ndarray


class SecondLook:
    """The e5 index of one FAQ matcher's entries; built once, on first use, thread-safe."""

    def __init__(
        self,
        matcher: FaqMatcher,
        encoder: RetrievalEncoder | None = None,
        calibration: Calibration | None = None,
        *,
        shop_bar: float | None = None,
    ) -> None:
        """`shop_bar`: a shop that raised the matcher's bar (CSBOT_FAQ_MIN_CONFIDENCE) gets the
        second look's answers only at that probability too."""
        self._matcher = matcher
        self._shop_bar = shop_bar
        self._calibration = calibration
        self._encoder = encoder
        self._index: _Index | None = None
        self._lock = threading.Lock()

    def _built(self) -> tuple[RetrievalEncoder, _Index]:
        with self._lock:
            if self._encoder is None:
                self._encoder = shared_retrieval_encoder()
            if self._index is None:
                self._index = self._build(self._encoder)
            return self._encoder, self._index

    def _build(self, encoder: RetrievalEncoder) -> _Index:
        matcher = self._matcher
        slot = {slug: n for n, slug in enumerate(matcher.slugs)}
        phrasings = [(slot[d.slug], text) for d in matcher.documents for text in meaning_phrasings(d)]
        passages = [(slot[d.slug], f"{d.question}\n{d.answer}") for d in matcher.documents]
        return _Index(
            _cached(encoder, [t for _, t in phrasings], query=True),
            np.array([n for n, _ in phrasings], dtype=np.int64),
            _cached(encoder, [t for _, t in passages], query=False),
            np.array([n for n, _ in passages], dtype=np.int64),
        )

    def judge(
        self, question: str, combined: np.ndarray, first: tuple[int, float]
    ) -> tuple[np.ndarray, np.ndarray, dict[str, float]] | None:
        """Every entry's index by the new ranking, its scores, and the features of its first.
        `combined`: the matcher's ranking score per entry; `first`: the matcher's own best entry and
        its calibrated probability."""
        encoder, index = self._built()
        if not len(index.phrasings):
            return None
        vector = encoder.query(question)
        entries = len(self._matcher.slugs)
        to_phrasings = index.phrasings @ vector
        by_entry = np.full(entries, -1.0)
        np.maximum.at(by_entry, index.phrasing_entries, to_phrasings)
        to_passages = np.full(entries, -1.0)
        np.maximum.at(to_passages, index.passage_entries, index.passages @ vector)
        retrieval = np.maximum(by_entry, to_passages)
        rank = combined + RANK_WEIGHT * retrieval
        order = np.argsort(-rank)
        best = int(order[0])
        others = to_phrasings[index.phrasing_entries != best]
        return (
            order,
            rank,
            {
                "first_probability": first[1] if first[0] == best else 0.0,
                "first_agrees": float(first[0] == best),
                "rank_margin": lead(rank, best, 0.0),
                "retrieval": float(retrieval[best]),
                "retrieval_margin": lead(retrieval, best, 0.0),
                "paraphrase": float(by_entry[best]),
                "paraphrase_lead": float(by_entry[best]) - (float(others.max()) if len(others) else 0.0),
                "passage": float(to_passages[best]),
                "passage_margin": lead(to_passages, best, 0.0),
                "cjk": float(bool(CJK.search(question))),
            },
        )

    def look(
        self,
        question: str,
        found: FaqMatch,
        combined: np.ndarray,
        *,
        language: Language,
        within: float,
        keep: int,
    ) -> FaqMatch:
        """`found` re-ranked, and answered when the second look's calibration is sure.
        `within`, `keep`: how the alternatives are chosen (FaqMatcher.match)."""
        first = (self._matcher.slugs.index(found.slug), found.confidence)
        judged = self.judge(question, combined, first)
        if judged is None:
            return found
        order, rank, features = judged
        near = rank[order[0]] - within * (1 + RANK_WEIGHT)
        alternatives = tuple(self._matcher.slugs[int(i)] for i in order[:keep] if rank[i] >= near)
        calibration = self._calibration or second_look_calibration()
        probability = calibration.probability(features)
        evidence = found.evidence | {name: round(value, 3) for name, value in features.items()}
        evidence["second_look"] = round(probability, 3)
        slug = self._matcher.slugs[int(order[0])]
        # With one entry there is nothing to lead: its margins say nothing ("capital of France?")
        alone = len(self._matcher.slugs) < 2
        if not alone and probability >= max(calibration.threshold, self._shop_bar or 0.0):
            return replace(
                found,
                slug=slug,
                document=self._matcher.localized(slug, language),
                answered=True,
                evidence=evidence,
                alternatives=alternatives,
            )
        return replace(found, evidence=evidence, alternatives=alternatives)


def _cached(encoder: RetrievalEncoder, texts: list[str], *, query: bool) -> np.ndarray:
    """The e5 vectors of `texts` (services/understanding/vector_cache.py)."""
    kind = "e5-query" if query else "e5-passage"
    return cached(
        digest([kind, RETRIEVAL_MODEL, *texts]),
        len(texts),
        lambda: encoder.queries(texts) if query else encoder.passages(texts),
    )
