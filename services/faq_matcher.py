"""Which FAQ entry answers a question, and whether any does.

A wrong answer in the shop's own words is as harmful as an invented one, so the
matcher answers only when a calibrated model of "this entry answers this
question" is confident. Its evidence, for the best entry:

- `similarity`: the sentence encoder's cosine to the entry's question and
  example phrasings (any language: the encoder is multilingual);
- `margin`: how far the best entry's combined score (semantic + answer + lexical)
  is ahead of the runner-up entry;
- `background_gap`: how much closer the question is to a common shop question
  the FAQ does *not* cover (services/data/shop_questions.txt, minus the ones this
  FAQ covers) than to the entry: "Do you ship internationally?" is nearer to
  that background question than to a same-day-dispatch entry;
- `uncovered_word`: the most specific word of the question that neither appears
  in the entry nor means something close to one of its words ("military" in
  "military discount" against a student-discount entry);
- `answer_similarity` and `lexical`: cosine to the answer text, and TF-IDF
  agreement of the words.

A logistic model over these (weights and threshold in
services/data/faq_calibration.json, fitted by bench/calibrate.py on the tuning
sets only) gives the probability that the entry is right; below the threshold
the bot says honestly that the FAQ doesn't cover the question.
"""

from __future__ import annotations

import json
import math
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from services.encoder import SentenceEncoder, shared_encoder
from services.lexical import TfidfIndex, best_per_group, content_words

DATA = Path(__file__).parent / "data"
CALIBRATION_PATH = DATA / "faq_calibration.json"
BACKGROUND_PATH = DATA / "shop_questions.txt"

# Ranking weights, chosen on the demo tuning set (bench/calibrate.py).
ANSWER_WEIGHT = 0.3
LEXICAL_QUESTION_WEIGHT = 0.2
LEXICAL_DOCUMENT_WEIGHT = 0.2
BACKGROUND_COVERED = 0.9
"""Probability at which a common shop question counts as covered by an entry (and becomes one of
its phrasings): stricter than answering a customer, and independent of the answering threshold so
that fitting the threshold does not move the features it is fitted on."""
BACKGROUND_NEUTRAL = 0.0
"""The gap used while judging the background itself, and when every background question is covered."""
MOST_SPECIFIC_WORDS = 4
"""Words of a question weighed against an entry: a long message costs no more than this."""
RECENT_WORDS = 20_000
"""Customer words outside the FAQ whose embeddings are kept (512 floats each: ~40 MB at most)."""
FEATURES = (
    "similarity",
    "margin",
    "background_gap",
    "uncovered_word",
    "answer_similarity",
    "lexical",
    "semantic_margin",
)


@dataclass(frozen=True)
class FaqDocument:
    slug: str
    language: str
    question: str
    answer: str
    tags: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class FaqMatch:
    slug: str
    document: FaqDocument
    """The entry's row in the customer's language when the shop has one."""
    confidence: float
    answered: bool
    runner_up: str | None
    evidence: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Calibration:
    weights: tuple[float, ...]
    bias: float
    threshold: float

    @classmethod
    def load(cls, path: Path = CALIBRATION_PATH) -> Calibration:
        data = json.loads(path.read_text(encoding="utf-8"))
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"{path}: fitted for features {data['features']}, the matcher has {FEATURES}")
        return cls(tuple(data["weights"]), float(data["bias"]), float(data["threshold"]))

    def probability(self, evidence: dict[str, float]) -> float:
        z = self.bias + sum(w * evidence[name] for w, name in zip(self.weights, FEATURES, strict=True))
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


class _Background:
    """Common shop questions and word frequencies: the same for every shop, built once."""

    def __init__(self, encoder: SentenceEncoder) -> None:
        from services.classifier import load_examples

        self.questions = [
            line.strip()
            for line in BACKGROUND_PATH.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")
        ]
        self.embeddings = encoder.encode(self.questions)
        corpus = self.questions + [example.text for example in load_examples()]
        self.frequency = Counter(word for text in corpus for word in set(content_words(text)))
        self.size = len(corpus)
        vocabulary = sorted(self.frequency)
        self.word_vectors = dict(zip(vocabulary, encoder.encode(vocabulary), strict=True))
        """Customers' everyday words, embedded once per process rather than per message."""


_backgrounds: dict[int, _Background] = {}
_backgrounds_lock = threading.Lock()


def _background(encoder: SentenceEncoder) -> _Background:
    with _backgrounds_lock:
        if id(encoder) not in _backgrounds:
            _backgrounds[id(encoder)] = _Background(encoder)
        return _backgrounds[id(encoder)]


def warm_up_background(encoder: SentenceEncoder) -> None:
    """Embed the common questions and words now (called from the start-up warm-up thread)."""
    _background(encoder)


class FaqMatcher:
    """An index of one FAQ; immutable once built (reloading builds a new one)."""

    def __init__(
        self,
        documents: Iterable[FaqDocument],
        *,
        encoder: SentenceEncoder | None = None,
        calibration: Calibration | None = None,
    ) -> None:
        self._encoder = encoder or shared_encoder()
        self._calibration = calibration or Calibration.load()
        self.documents = list(documents)
        self.slugs = sorted({d.slug for d in self.documents})
        self._rows: dict[str, list[FaqDocument]] = {slug: [] for slug in self.slugs}
        for document in self.documents:
            self._rows[document.slug].append(document)
        if not self.documents:
            return
        slot = {slug: n for n, slug in enumerate(self.slugs)}
        self.documents.sort(key=lambda d: slot[d.slug])  # grouped by entry: per-entry maxima by reduceat
        phrasings = [(d.slug, text) for d in self.documents for text in (d.question, *d.examples) if text]
        self._phrase_groups = np.array([slot[slug] for slug, _ in phrasings])
        self._phrase_vectors = self._encoder.encode([text for _, text in phrasings])
        self._answer_groups = np.array([slot[d.slug] for d in self.documents])
        self._answer_vectors = self._encoder.encode([d.answer for d in self.documents])
        self._phrase_lexical = TfidfIndex(text for _, text in phrasings)
        self._document_lexical = TfidfIndex(
            " ".join((d.question, *d.examples, d.answer, *d.tags)) for d in self.documents
        )
        self._document_groups = [slot[d.slug] for d in self.documents]

        background = _background(self._encoder)
        self._background_words = background.word_vectors
        self._uncovered_background = background.embeddings[:0]
        self._background_known = False
        self._vocabulary: list[set[str]] = [set() for _ in self.slugs]
        for d in self.documents:
            for text in (d.question, d.answer, *d.examples, *d.tags):
                self._vocabulary[slot[d.slug]].update(content_words(text))
        words = sorted(set().union(*self._vocabulary))
        self._word_vectors = dict(zip(words, self._encoder.encode(words), strict=True))
        self._recent_words: OrderedDict[str, np.ndarray] = OrderedDict()
        self._entry_words = [np.array([self._word_vectors[w] for w in sorted(v)]) for v in self._vocabulary]
        frequency = Counter(background.frequency)
        for d in self.documents:
            frequency.update(set(content_words(" ".join((d.question, d.answer, *d.examples)))))
        self._frequency, self._corpus_size = frequency, background.size + len(self.documents)
        self._words_lock = threading.Lock()
        covered, entries = self._covers(background)
        self._uncovered_background = background.embeddings[~covered]
        self._background_known = True
        if covered.any():  # a common question this FAQ answers is one more phrasing of its entry
            groups = np.concatenate([self._phrase_groups, entries[covered]])
            vectors = np.vstack([self._phrase_vectors, background.embeddings[covered]])
            order = np.argsort(groups, kind="stable")
            self._phrase_groups, self._phrase_vectors = groups[order], vectors[order]

    def _covers(self, background: _Background) -> tuple[np.ndarray, np.ndarray]:
        """Which common shop questions this FAQ answers, by the matcher's own judgement.

        Judged on every feature but the background gap itself: "What is your return
        policy?" is covered by a return-method entry worded otherwise, while "Do you
        ship internationally?" is not covered by a same-day-dispatch entry.
        """
        covered = np.zeros(len(background.questions), dtype=bool)
        entries = np.zeros(len(background.questions), dtype=int)
        for n, question in enumerate(background.questions):
            found = self.evidence(question)
            if found is not None:
                covered[n] = self._calibration.probability(found[2]) >= BACKGROUND_COVERED
                entries[n] = found[0]
        return covered, entries

    @staticmethod
    def _best(scores: np.ndarray, groups: np.ndarray) -> np.ndarray:
        """Per-entry maximum; `groups` is sorted and every entry has at least one row."""
        starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
        return np.maximum.reduceat(scores, starts)

    def scores(self, question: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Combined ranking score per slug, and its parts."""
        vector = self._encoder.encode_one(question)
        semantic = self._best(self._phrase_vectors @ vector, self._phrase_groups)
        answer = self._best(self._answer_vectors @ vector, self._answer_groups)
        phrase_groups = [int(g) for g in self._phrase_groups]
        lexical_question = np.array(
            best_per_group(self._phrase_lexical.similarities(question), phrase_groups, len(self.slugs))
        )
        lexical_document = np.array(
            best_per_group(
                self._document_lexical.similarities(question), self._document_groups, len(self.slugs)
            )
        )
        combined = (
            semantic
            + ANSWER_WEIGHT * answer
            + LEXICAL_QUESTION_WEIGHT * lexical_question
            + LEXICAL_DOCUMENT_WEIGHT * lexical_document
        )
        parts = {"semantic": semantic, "answer": answer, "lexical": lexical_question + lexical_document}
        return combined, parts | {"vector": vector}

    def evidence(
        self, question: str, *, words_if: float | None = None
    ) -> tuple[int, int | None, dict[str, float]] | None:
        """The best slug's index, the runner-up's, and the features the calibration reads.

        With `words_if`, the word-level feature (the costly one: it may embed new
        words) is computed only when the entry would otherwise reach that
        probability: it can only lower the confidence.
        """
        if not self.documents or not question.strip():
            return None
        combined, parts = self.scores(question)
        order = np.argsort(-combined)
        best = int(order[0])
        second = int(order[1]) if len(order) > 1 else None
        similarity = float(parts["semantic"][best])
        runner = float(combined[second]) if second is not None else 0.0
        gap = (
            float((self._uncovered_background @ parts["vector"]).max()) - similarity
            if self._background_known and len(self._uncovered_background)
            else BACKGROUND_NEUTRAL
        )
        evidence = {
            "similarity": similarity,
            "margin": float(combined[best]) - runner,
            "background_gap": gap,
            "uncovered_word": 0.0,
            "answer_similarity": float(parts["answer"][best]),
            "lexical": float(parts["lexical"][best]),
            "semantic_margin": similarity - float(np.delete(parts["semantic"], best).max(initial=-1.0)),
        }
        lowers_only = self._calibration.weights[FEATURES.index("uncovered_word")] <= 0
        if words_if is None or not lowers_only or self._calibration.probability(evidence) >= words_if:
            evidence["uncovered_word"] = self._uncovered_word(question, best)
        return best, second, evidence

    def match(self, question: str, *, language: str) -> FaqMatch | None:
        found = self.evidence(question, words_if=self._calibration.threshold)
        if found is None:
            return None
        best, second, evidence = found
        confidence = self._calibration.probability(evidence)
        slug = self.slugs[best]
        return FaqMatch(
            slug=slug,
            document=self.localized(slug, language),
            confidence=round(confidence, 3),
            answered=confidence >= self._calibration.threshold,
            runner_up=self.slugs[second] if second is not None else None,
            evidence={name: round(value, 3) for name, value in evidence.items()},
        )

    def localized(self, slug: str, language: str) -> FaqDocument:
        """The row in `language`, else English, else the first the shop wrote."""
        rows = self._rows[slug]
        for wanted in (language, "en"):
            for row in rows:
                if row.language == wanted:
                    return row
        return rows[0]

    def related(self, question: str, *, language: str, limit: int = 3) -> list[FaqDocument]:
        """The closest entries, for a model to draw on when none answers outright."""
        if not self.documents:
            return []
        combined, _ = self.scores(question)
        return [self.localized(self.slugs[int(i)], language) for i in np.argsort(-combined)[:limit]]

    def _uncovered_word(self, question: str, slot: int) -> float:
        """Specificity x distance of the question word the entry least accounts for (0 when none)."""
        vocabulary = self._vocabulary[slot]
        words = [w for w in dict.fromkeys(content_words(question)) if w not in vocabulary]
        if not words or not len(self._entry_words[slot]):
            return 0.0
        specificity = {
            w: min(1.0, math.log(1 + self._corpus_size / (self._frequency.get(w, 0) + 1)) / 4) for w in words
        }
        words = sorted(words, key=lambda w: -specificity[w])[:MOST_SPECIFIC_WORDS]
        closeness = (self._word_embeddings(words) @ self._entry_words[slot].T).max(axis=1)
        return max((1 - float(close)) * specificity[w] for w, close in zip(words, closeness, strict=True))

    def _word_embeddings(self, words: Sequence[str]) -> np.ndarray:
        """Words of the FAQ are encoded at load; customers' other words once, then remembered."""
        common = self._background_words
        with self._words_lock:
            found = {w: self._word_vectors.get(w, common.get(w, self._recent_words.get(w))) for w in words}
        missing = [w for w, vector in found.items() if vector is None]
        if missing:
            fresh = dict(zip(missing, self._encoder.encode(missing), strict=True))
            found.update(fresh)
            with self._words_lock:
                self._recent_words.update(fresh)
                while len(self._recent_words) > RECENT_WORDS:
                    self._recent_words.popitem(last=False)
        return np.array([found[w] for w in words])
