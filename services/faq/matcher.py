"""Which FAQ entry answers a question, and whether any does.

A wrong answer in the shop's own words is as harmful as an invented one, so the
matcher answers only when a calibrated model of "this entry answers this
question" is confident. Its evidence, for the best entry:

- `similarity`: the sentence encoder's cosine to the entry's question and
  example phrasings (any language: the encoder is multilingual);
- `margin`: how far the best entry's combined score (semantic + answer + lexical)
  is ahead of the runner-up entry;
- `background_gap`: how much closer the question is to a common shop question
  the FAQ does *not* cover (services/faq/data/shop_questions.txt, minus the ones this
  FAQ covers) than to the entry: "Do you ship internationally?" is nearer to
  that background question than to a same-day-dispatch entry. The more topics the
  background knows, the more near misses find a neighbour there: 133 generic
  questions -> 613 with 20 kinds of shop (leave-one-FAQ-out, right answers at
  2% false: 25.7% -> 29.7% of the questions, the list alone added to the previous
  matcher in a one-off worktree);
- `answer_similarity` and `lexical`: cosine to the answer text, and TF-IDF
  agreement of the words;
- `centroid` and `centroid_margin`: cosine to the mean of all the entry's
  phrasings (its question in every language and its examples), which is less
  noisy than the single nearest phrasing, and its lead over the runner-up;
- `lexical_agrees` and `semantic_agrees`: whether words alone and meaning alone
  pick the same entry as the combination (agreement of independent evidence);
  `lexical_margin` and `answer_margin`: their leads over the runner-up;
- `term_coverage` and `unknown_terms`: how much of the question's words (weighted by rarity) the
  best entry's rows contain, and how much no row of the FAQ contains at all. A near miss shares the
  entry's topic but asks about something the entry never mentions ("do you rent snowboards?" to a
  ski-rental entry): its odd word is rare and uncovered. Leave-one-FAQ-out on the tuning sets
  (`python -m bench.calibrate --cross-validate`), right answers at 1 / 2 / 3% false answers:
  13.4 / 22.4 / 28.1% -> 17.2 / 25.7 / 31.4% of the questions.
- `unwritten_language`: the best entry has no row in the question's language, so the two above
  say nothing (they are 0): before it, a Japanese question to an entry written in Korean and
  English looked like a question full of words the FAQ never mentions.
- `cjk`: the question is Korean or Japanese, so the calibration can hold those
  scripts to their own bar (similarities run differently per script).

A word-level feature (embedding each specific word of the question) was
measured and removed: it did not help on held-out FAQs and cost an extra
encoder call on most messages, the p99 latency tail.

A message that is one of the shop's own phrasings of an entry (its question or an
example, in any language, ignoring case, spaces and punctuation) is answered with
that entry whatever the scores say: the shop wrote those words for it ("what is
your return policy", an example of a returns entry, scored 0.775 against a 0.78 bar
and got "I'm not sure"). A phrasing the shop gave two entries decides nothing.

A logistic model over these (weights and threshold in
services/faq/data/faq_calibration.json, fitted by bench/calibrate.py on the tuning
sets only) gives the probability that the entry is right; below the threshold
the bot says honestly that the FAQ doesn't cover the question.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from services.faq.calibration import Calibration
from services.faq.entry import FaqDocument, meaning_phrasings
from services.faq.leads import lead, max_except
from services.faq.second_look import SecondLook
from services.text.normalize import detect_language, normalize
from services.text.patterns import CJK
from services.text.sentences import Language
from services.understanding.encoder import SentenceEncoder, shared_encoder
from services.understanding.lexical import TfidfIndex, best_per_group, terms
from services.understanding.retrieval_encoder import RetrievalEncoder

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
ALTERNATIVES = 3
"""Closest entries kept with a match: the right entry is among the three closest for 93-100% of
the covered tuning questions, among the first for 77-100%."""
ALTERNATIVES_WITHIN = 0.3
"""...and only those whose ranking score is this close to the best's: an entry far behind is no
likely answer ("Do you ship to Japan?" was offered "How do I return an item?"). With the second
look's ranking (where it is scaled by 1 + its weight) the window seldom binds on the tuning sets
(`python -m bench.retrieval --offers`, 2026-12-02): 2.9 entries per offer at 0.2 and 3.0 at 0.3,
for the same 0.925 reached."""
FEATURES = (
    "similarity",
    "margin",
    "background_gap",
    "answer_similarity",
    "lexical",
    "semantic_margin",
    "centroid",
    "centroid_margin",
    "lexical_agrees",
    "semantic_agrees",
    "lexical_margin",
    "answer_margin",
    "term_coverage",
    "unknown_terms",
    "unwritten_language",
    "cjk",
)


@dataclass(frozen=True)
class FaqMatch:
    slug: str
    document: FaqDocument
    """The entry's row in the customer's language when the shop has one."""
    confidence: float
    answered: bool
    runner_up: str | None
    evidence: dict[str, float] = field(default_factory=dict)
    alternatives: tuple[str, ...] = ()
    """The closest entries, best first (`slug` included): what a customer may pick from when the
    matcher will not answer outright (services.faq.choices)."""


class _Background:
    """Common shop questions: the same for every shop, embedded once per process."""

    def __init__(self, encoder: SentenceEncoder) -> None:
        self.questions = [
            line.strip()
            for line in BACKGROUND_PATH.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")
        ]
        self.embeddings = encoder.encode(self.questions)


_backgrounds: dict[int, _Background] = {}
_backgrounds_lock = threading.Lock()


def _background(encoder: SentenceEncoder) -> _Background:
    with _backgrounds_lock:
        if id(encoder) not in _backgrounds:
            _backgrounds[id(encoder)] = _Background(encoder)
        return _backgrounds[id(encoder)]


def warm_up_background(encoder: SentenceEncoder) -> None:
    """Embed the common questions now (called from the start-up warm-up thread)."""
    _background(encoder)


class FaqMatcher:
    """An index of one FAQ; immutable once built (reloading builds a new one)."""

    def __init__(
        self,
        documents: Iterable[FaqDocument],
        *,
        encoder: SentenceEncoder | None = None,
        calibration: Calibration | None = None,
        retrieval: RetrievalEncoder | None = None,
        shop_bar: float | None = None,
    ) -> None:
        """`retrieval`: the second look's encoder (the process's shared one by default); `shop_bar`:
        the shop's own bar (CSBOT_FAQ_MIN_CONFIDENCE), which the second look answers at too."""
        self._encoder = encoder or shared_encoder()
        self._calibration = calibration or Calibration.load(CALIBRATION_PATH, features=FEATURES)
        self.documents = list(documents)
        self.slugs = sorted({d.slug for d in self.documents})
        self._rows: dict[str, list[FaqDocument]] = {slug: [] for slug in self.slugs}
        for document in self.documents:
            self._rows[document.slug].append(document)
        self._own_phrasings: dict[str, str] = {}
        self.second_look = SecondLook(self, retrieval, shop_bar=shop_bar)
        if not self.documents:
            return
        slot = {slug: n for n, slug in enumerate(self.slugs)}
        self.documents.sort(key=lambda d: slot[d.slug])  # grouped by entry: per-entry maxima by reduceat
        phrasings = [(d.slug, text) for d in self.documents for text in (d.question, *d.examples) if text]
        self._own_phrasings = _own_phrasings(phrasings)
        meanings = [(d.slug, text) for d in self.documents for text in meaning_phrasings(d)]
        self._phrase_lexical_groups = [slot[slug] for slug, _ in phrasings]
        self._phrase_groups = np.array([slot[slug] for slug, _ in meanings])
        self._phrase_starts = self._starts(self._phrase_groups)
        self._phrase_vectors = self._encoder.encode([text for _, text in meanings])
        self._answer_starts = self._starts(np.array([slot[d.slug] for d in self.documents]))
        self._answer_vectors = self._encoder.encode([d.answer for d in self.documents])
        self._phrase_lexical = TfidfIndex(text for _, text in phrasings)
        self._document_lexical = TfidfIndex(
            " ".join((d.question, *d.examples, d.answer, *d.tags)) for d in self.documents
        )
        self._document_groups = [slot[d.slug] for d in self.documents]
        self._entry_terms: list[set[str]] = [set() for _ in self.slugs]
        self._entry_languages: list[set[str]] = [set() for _ in self.slugs]
        """The languages an entry's questions are written in (read from the text, not the label)."""
        for document in self.documents:
            for text in (document.question, *document.examples, document.answer, *document.tags):
                self._entry_terms[slot[document.slug]].update(terms(text))
            self._entry_languages[slot[document.slug]].add(detect_language(document.question))

        background = _background(self._encoder)
        self._uncovered_background = background.embeddings[:0]
        self._background_known = False
        self._centroids = self._centroids_of(self._phrase_vectors, self._phrase_groups)
        covered, entries = self._covers(background)
        self._uncovered_background = background.embeddings[~covered]
        self._background_known = True
        if covered.any():  # a common question this FAQ answers is one more phrasing of its entry
            groups = np.concatenate([self._phrase_groups, entries[covered]])
            vectors = np.vstack([self._phrase_vectors, background.embeddings[covered]])
            order = np.argsort(groups, kind="stable")
            self._phrase_groups, self._phrase_vectors = groups[order], vectors[order]
        # The word index keeps the shop's own phrasings in their first order: `_phrase_lexical_groups`
        # (set above) stays theirs. Re-deriving it from the merged, re-sorted groups credited 40 of
        # the demo FAQ's 110 phrasings' words to the wrong entry.
        self._phrase_starts = self._starts(self._phrase_groups)

    def _centroids_of(self, vectors: np.ndarray, groups: np.ndarray) -> np.ndarray:
        """Each entry's mean phrasing, normalised: what its question means across languages and wordings.

        Computed from the shop's own rows only (not the common questions an entry is
        found to cover), so the judgement of coverage cannot feed back into it.
        """
        centroids = np.zeros((len(self.slugs), vectors.shape[1]), dtype=np.float32)
        np.add.at(centroids, groups, vectors)
        centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-6)
        return centroids

    def _covers(self, background: _Background) -> tuple[np.ndarray, np.ndarray]:
        """Which common shop questions this FAQ answers, by the matcher's own judgement.

        Judged on every feature but the background gap itself: "What is your return
        policy?" is covered by a return-method entry worded otherwise, while "Do you
        ship internationally?" is not covered by a same-day-dispatch entry.
        """
        covered = np.zeros(len(background.questions), dtype=bool)
        entries = np.zeros(len(background.questions), dtype=int)
        for n, (question, vector) in enumerate(zip(background.questions, background.embeddings, strict=True)):
            judged = self._judge(question, vector=vector)
            if judged is not None:
                order, _, evidence = judged
                covered[n] = self._calibration.probability(evidence) >= BACKGROUND_COVERED
                entries[n] = order[0]
        return covered, entries

    @staticmethod
    def _starts(groups: np.ndarray) -> np.ndarray:
        """Where each entry's rows begin in sorted `groups` (kept: np.r_ cost ~20 us per message)."""
        return np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])

    @staticmethod
    def _best(scores: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Per-entry maximum; `starts` from `_starts` (every entry has at least one row)."""
        return np.maximum.reduceat(scores, starts)

    def scores(
        self, question: str, *, embedded: str | None = None, vector: np.ndarray | None = None
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Combined ranking score per slug, and its parts. `embedded`: the text whose embedding
        stands for the question's meaning when it is not the question itself (the classifier's
        reading, product names made neutral: one embedding per message); words come from `question`."""
        if vector is None:
            vector = self._encoder.encode_one(embedded or question)
        semantic = self._best(self._phrase_vectors @ vector, self._phrase_starts)
        answer = self._best(self._answer_vectors @ vector, self._answer_starts)
        lexical_question = np.array(
            best_per_group(
                self._phrase_lexical.similarities(question), self._phrase_lexical_groups, len(self.slugs)
            )
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
        parts = {
            "semantic": semantic,
            "answer": answer,
            "lexical": lexical_question + lexical_document,
            "centroid": self._centroids @ vector,
        }
        return combined, parts | {"vector": vector}

    def evidence(self, question: str) -> tuple[int, int | None, dict[str, float]] | None:
        """The best slug's index, the runner-up's, and the features the calibration reads."""
        judged = self._judge(question)
        if judged is None:
            return None
        order, _, evidence = judged
        return int(order[0]), int(order[1]) if len(order) > 1 else None, evidence

    def _judge(
        self, question: str, embedded: str | None = None, *, vector: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, dict[str, float]] | None:
        """Every entry's index, closest first, their ranking scores, and the features of the first."""
        if not self.documents or not question.strip():
            return None
        combined, parts = self.scores(question, embedded=embedded, vector=vector)
        order = np.argsort(-combined)
        best = int(order[0])
        second = int(order[1]) if len(order) > 1 else None
        similarity = float(parts["semantic"][best])
        nearest_uncovered = (
            float((self._uncovered_background @ parts["vector"]).max())
            if self._background_known and len(self._uncovered_background)
            else None
        )
        gap = BACKGROUND_NEUTRAL if nearest_uncovered is None else nearest_uncovered - similarity
        # A FAQ of one entry has no runner-up: the nearest topic it leaves out stands in for one,
        # else every question would lead by the whole score ("capital of France?" -> delivery).
        alone = -1.0 if nearest_uncovered is None else nearest_uncovered
        runner = float(combined[second]) if second is not None else max(alone, 0.0)
        lexical, centroid = parts["lexical"], parts["centroid"]
        evidence = {
            "similarity": similarity,
            "margin": float(combined[best]) - runner,
            "background_gap": gap,
            "answer_similarity": float(parts["answer"][best]),
            "lexical": float(lexical[best]),
            "semantic_margin": lead(parts["semantic"], best, alone),
            "centroid": float(centroid[best]),
            "centroid_margin": lead(centroid, best, alone),
            "lexical_agrees": float(lexical.max() > 0 and int(np.argmax(lexical)) == best),
            "semantic_agrees": float(int(np.argmax(parts["semantic"])) == best),
            "lexical_margin": float(lexical[best]) - max(0.0, max_except(lexical, best, 0.0)),
            "answer_margin": lead(parts["answer"], best, alone),
            **self._term_shares(embedded or question, best),
            "cjk": float(bool(CJK.search(question))),
        }
        return order, combined, evidence

    def _term_shares(self, question: str, best: int) -> dict[str, float]:
        """`term_coverage` and `unknown_terms` (see the module docstring), read from the text with
        catalogue product names made neutral when there is one: a product's name is no word the
        FAQ fails to mention. A question with no content words at all scores 0 on both.

        Words can only be compared within one language: when the entry has no row in the question's
        language, both are 0 and `unwritten_language` is 1 (a Japanese question to an entry written
        in Korean and English shares none of its words, whatever it asks)."""
        if detect_language(question) not in self._entry_languages[best]:
            return {"term_coverage": 0.0, "unknown_terms": 0.0, "unwritten_language": 1.0}
        weights = {term: self._document_lexical.rarity(term) for term in set(terms(question))}
        total = sum(weights.values())
        if not total:
            return {"term_coverage": 0.0, "unknown_terms": 0.0, "unwritten_language": 0.0}
        entry = self._entry_terms[best]
        return {
            "term_coverage": sum(w for term, w in weights.items() if term in entry) / total,
            "unknown_terms": sum(w for term, w in weights.items() if not self._document_lexical.knows(term))
            / total,
            "unwritten_language": 0.0,
        }

    def match(
        self,
        question: str,
        *,
        language: Language,
        embedded: str | None = None,
        second_look: bool = False,
    ) -> FaqMatch | None:
        """`second_look`: a question the FAQ is asked (`asks_the_faq` in
        services/understanding/understand.py) that the calibration would not answer gets the
        retrieval encoder's look (services/faq/second_look.py)."""
        judged = self._judge(question, embedded)
        if judged is None:
            return None
        order, combined, evidence = judged
        near = combined[order[0]] - ALTERNATIVES_WITHIN
        confidence = self._calibration.probability(evidence)
        slug = self.slugs[int(order[0])]
        answered = confidence >= self._calibration.threshold
        own = None if answered else self._own_phrasings.get(phrasing_key(question))
        if own is not None:
            # The shop wrote these very words for this entry: no similarity is needed to trust them.
            top_probability = confidence if own == slug else 0.0
            slug, answered = own, True
            confidence = max(top_probability, self._calibration.threshold)
            evidence = evidence | {"own_phrasing": 1.0}
        found = FaqMatch(
            slug=slug,
            document=self.localized(slug, language),
            confidence=round(confidence, 3),
            answered=answered,
            runner_up=self.slugs[int(order[1])] if len(order) > 1 else None,
            evidence={name: round(value, 3) for name, value in evidence.items()},
            alternatives=tuple(self.slugs[int(i)] for i in order[:ALTERNATIVES] if combined[i] >= near),
        )
        if not second_look or answered:
            return found
        return self.second_look.look(
            embedded or question,
            found,
            combined,
            language=language,
            within=ALTERNATIVES_WITHIN,
            keep=ALTERNATIVES,
        )

    def localized(self, slug: str, language: Language) -> FaqDocument:
        """The row in `language`, else English, else the first the shop wrote."""
        rows = self._rows[slug]
        for wanted in (language, "en"):
            for row in rows:
                if row.language == wanted:
                    return row
        return rows[0]

    def related(self, question: str, *, language: Language, limit: int = 3) -> list[FaqDocument]:
        """The closest entries, for a model to draw on when none answers outright."""
        if not self.documents:
            return []
        combined, _ = self.scores(question)
        return [self.localized(self.slugs[int(i)], language) for i in np.argsort(-combined)[:limit]]


def phrasing_key(text: str) -> str:
    """A phrasing without case, spaces or punctuation: "반품 되나요?" and "반품되나요" are one."""
    return "".join(character for character in normalize(text) if character.isalnum())


def _own_phrasings(phrasings: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each of the shop's own phrasings (questions and examples) that belongs to one entry only."""
    owners: dict[str, set[str]] = {}
    for slug, text in phrasings:
        key = phrasing_key(text)
        if key:
            owners.setdefault(key, set()).add(slug)
    return {key: next(iter(slugs)) for key, slugs in owners.items() if len(slugs) == 1}
