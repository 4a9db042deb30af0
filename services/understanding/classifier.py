"""Intent classifier that learns from example phrasings, the way Rasa and Dialogflow bots do.

Why examples and not rules: a shop fixes a misunderstanding by adding a line to
services/understanding/data/intent_examples.tsv, not by writing regular expressions, and a
multilingual sentence encoder generalises from a few hundred examples to
phrasings nobody wrote down (the old cue tables scored 1.000 on the set they were
tuned on and 0.84 on unseen customer text). Three kinds of evidence add up as
log-odds:

- semantic: a logistic regression on the encoder's embeddings of the examples,
  plus the mean similarity to each intent's three nearest examples;
- lexical: TF-IDF similarity to the nearest example of each intent (character
  bigrams for Korean and Japanese), which catches rare shop words the encoder
  blurs, and a naive-Bayes likelihood of the message's terms under each
  intent's examples pooled, which lets one decisive stem ("반품", "返品") count
  even when the rest of a short message looks like another intent;
- entity cues: SKUs, product names, order and RMA numbers are precise and keep
  deciding when present.

Nothing is trained offline: the model is fitted at start from the examples in
well under a second, and fitted once per process for a given set of examples.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import numpy as np

from services.orders.codes import OrderCodes
from services.text.sentences import Language
from services.understanding.encoder import ENCODER_MODEL, SentenceEncoder, shared_encoder
from services.understanding.entities import CatalogueName, Entities, EntityExtractor, without_product_names
from services.understanding.lexical import TermLikelihood, TfidfIndex, best_per_group
from services.understanding.vector_cache import cached, digest

MAX_CLASSIFIED_CHARS = 600
ExtraScores = Callable[[str], tuple[Mapping[str, float], list[str]]]
"""Another scorer's log-odds per intent name for a (clipped) message, and the cues it matched."""
"""Intent shows in the first sentences; a 10,000-character paste costs no more than this."""
EXAMPLES_PATH = Path(__file__).parent / "data" / "intent_examples.tsv"


class Intent(StrEnum):
    STOCK = "stock"
    SHIPPING = "shipping"
    RETURNS = "returns"
    HUMAN = "human"
    FAQ = "faq"


INTENTS: tuple[Intent, ...] = tuple(Intent)


@dataclass(frozen=True)
class Classification:
    intent: Intent
    confidence: float
    entities: Entities
    cues: tuple[str, ...] = ()
    runner_up: Intent | None = None
    read: str | None = None
    """The message as it was read when it named a product: the names made neutral
    (entities.without_product_names). The FAQ matcher reads the same, so it is embedded once."""


@dataclass(frozen=True)
class Example:
    intent: Intent
    language: str
    """The example's language as the file tags it (`mix` for mixed ones)."""
    text: str


# Weights of the evidence, chosen by 5-fold cross-validation on the examples file only
# (bench/calibrate.py prints the search); the held-out sets never took part.
NEIGHBOUR_WEIGHT = 5.0
"""Log-odds per unit of mean cosine similarity to an intent's 3 nearest examples."""
LEXICAL_WEIGHT = 1.5
"""Log-odds per unit of TF-IDF cosine to an intent's nearest example."""
TERM_WEIGHT = 1.0
"""Log-odds per nat of mean term log-likelihood (bench/calibrate.py prints its 5-fold search: the
best Korean cross-validated macro-F1, overall macro-F1 unchanged within 0.002)."""
NEIGHBOURS = 3
ENTITY_CUES: tuple[tuple[str, Intent, float], ...] = (
    ("skus", Intent.STOCK, 2.5),
    ("products", Intent.STOCK, 1.0),
    ("order_numbers", Intent.SHIPPING, 1.0),
    ("rma_numbers", Intent.RETURNS, 3.0),
)
"""Log-odds an entity adds to its intent (the same weights the rule-based classifier used)."""


def load_examples(path: str | Path = EXAMPLES_PATH) -> list[Example]:
    """Lines `intent<TAB>language<TAB>text`; `#` starts a comment. A bad line names its number."""
    examples = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t", 2)
        if len(parts) != 3 or parts[0] not in Intent.__members__.values():
            raise ValueError(f"{path}:{number}: expected intent<TAB>language<TAB>text with a known intent")
        examples.append(Example(Intent(parts[0]), parts[1], parts[2]))
    return examples


class _ExampleModel:
    """What is learnt from one set of examples: shared by every classifier built on them."""

    def __init__(self, examples: Sequence[Example], encoder: SentenceEncoder) -> None:
        self.labels = np.array([INTENTS.index(e.intent) for e in examples])
        texts = [e.text for e in examples]
        key = digest([ENCODER_MODEL, *texts])
        self.embeddings = cached(f"use-{key}", len(texts), lambda: encoder.encode(texts))
        # The softmax's weights and, as their last row, its bias: fitted once per set of examples.
        fitted = cached(
            digest(["softmax", key, *(e.intent for e in examples)]),
            self.embeddings.shape[1] + 1,
            lambda: np.vstack(_fit_softmax(self.embeddings, self.labels, len(INTENTS))),
        )
        self.weights, self.bias = fitted[:-1], fitted[-1]
        self.lexical = TfidfIndex(e.text for e in examples)
        self.groups = [int(label) for label in self.labels]
        self.terms = TermLikelihood((e.text for e in examples), self.groups, len(INTENTS))
        self.neighbours = _NearestPerGroup(self.labels, len(INTENTS), NEIGHBOURS)
        self.familiar = _familiar_similarity(self.embeddings)

    def familiarity(self, similarities: np.ndarray) -> float:
        """1 when the message is as close to some example as examples are to each other; less below.

        `similarities`: the message's cosine to every example (`evidence` computes them once)."""
        return min(1.0, max(0.0, float(similarities.max())) / self.familiar)

    def evidence(
        self, vector: np.ndarray, text: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Semantic log-probabilities, nearest-example means, lexical, term likelihoods, and the
        similarities to every example they came from."""
        logits = vector @ self.weights + self.bias
        semantic = logits - logits.max()
        semantic = semantic - np.log(np.exp(semantic).sum())
        similarities = self.embeddings @ vector
        neighbours = self.neighbours.means(similarities)
        lexical = np.array(best_per_group(self.lexical.similarities(text), self.groups, len(INTENTS)))
        likelihoods = np.array(self.terms.log_likelihoods(text))
        return semantic, neighbours, lexical, likelihoods - likelihoods.max(), similarities


class _NearestPerGroup:
    """Mean of each group's `k` highest similarities, in a few array operations per message.

    A loop of mask, sort and mean per intent cost about 100 us a message in small numpy
    calls; here the similarities are gathered into one padded (groups x largest group)
    matrix whose padding is -inf, and one partition finds every group's top `k`.
    """

    def __init__(self, labels: np.ndarray, groups: int, k: int) -> None:
        members = [np.flatnonzero(labels == group) for group in range(groups)]
        width = max([len(m) for m in members] + [k])
        self._k = k
        self._padded = np.full((groups, width), len(labels), dtype=np.intp)  # index of the -inf slot
        for group, found in enumerate(members):
            self._padded[group, : len(found)] = found
        self._counts = np.array([min(k, len(m)) for m in members], dtype=np.float32)

    def means(self, similarities: np.ndarray) -> np.ndarray:
        """0 for a group without members; the mean of fewer than `k` when a group is that small."""
        extended = np.append(similarities, np.float32(-np.inf))[self._padded]
        width = extended.shape[1]
        top = np.partition(extended, width - self._k, axis=1)[:, width - self._k :]
        top = np.sort(top, axis=1)  # float32 and ascending, as the sorted slices were: the same sums
        total = np.where(np.isfinite(top), top, np.float32(0.0)).sum(axis=1)
        means = np.divide(total, self._counts, out=np.zeros_like(total), where=self._counts > 0)
        result: np.ndarray = means.astype(np.float64)
        return result


UNFAMILIAR_QUANTILE = 0.05


def _familiar_similarity(embeddings: np.ndarray) -> float:
    """How close an example usually is to its nearest other example (the 5th percentile).

    A message farther than that from every example ("hmm", a pasted URL) is
    nothing the shop taught: its confidence shrinks, so the bot asks instead.
    """
    if len(embeddings) < 2:
        return 1.0
    similarities = embeddings @ embeddings.T
    np.fill_diagonal(similarities, -1.0)
    return max(1e-3, float(np.quantile(similarities.max(axis=1), UNFAMILIAR_QUANTILE)))


def _fit_softmax(
    x: np.ndarray, labels: np.ndarray, classes: int, *, l2: float = 1e-3, steps: int = 300, rate: float = 2.0
) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression by full-batch gradient descent (400 x 512: ~50 ms)."""
    targets = np.eye(classes)[labels]
    weights = np.zeros((x.shape[1], classes), dtype=np.float64)
    bias = np.zeros(classes)
    for _ in range(steps):
        logits = x @ weights + bias
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        error = probabilities - targets
        weights -= rate * (x.T @ error / len(x) + l2 * weights)
        bias -= rate * error.mean(axis=0)
    return weights.astype(np.float32), bias.astype(np.float32)


_models: dict[tuple[Example, ...], _ExampleModel] = {}
_models_lock = threading.Lock()


def _model_for(examples: Sequence[Example], encoder: SentenceEncoder) -> _ExampleModel:
    key = tuple(examples)
    with _models_lock:
        if key not in _models:
            _models[key] = _ExampleModel(key, encoder)
        return _models[key]


class IntentClassifier:
    def __init__(
        self,
        catalogue: Iterable[CatalogueName] = (),
        *,
        examples: Sequence[Example] | None = None,
        encoder: SentenceEncoder | None = None,
        extra: ExtraScores | None = None,
        term_weight: float | None = None,
        order_codes: OrderCodes | None = None,
    ) -> None:
        """`extra` adds another scorer's log-odds (measurement only: bench/intent_cues.py measures
        what the old hand-written cue tables would add). `order_codes`: the shop's order-number
        shapes (services.orders.codes)."""
        self._extractor = EntityExtractor(catalogue, order_codes=order_codes)
        self._encoder = encoder or shared_encoder()
        self._model = _model_for(examples if examples is not None else _default_examples(), self._encoder)
        self._term_weight = TERM_WEIGHT if term_weight is None else term_weight
        self._extra = extra

    @property
    def encoder(self) -> SentenceEncoder:
        return self._encoder

    catalogue_version: object = None
    """What the catalogue looked like when its index was built (services.answerers sets it)."""
    catalogue_checked_at: float = 0.0
    catalogue_loaded: bool = False
    """The index was built from the shop's whole catalogue (not left empty because it could not
    be read at start)."""

    @property
    def catalogue_empty(self) -> bool:
        """The shop has no products at all (a shop that imported only its FAQ): no stock question
        can be answered, so asking which product is meant would only go round in circles."""
        return self.catalogue_loaded and self._extractor.products == 0

    def product_names(self, sku: str) -> tuple[str, ...]:
        """A product's names in the current index: what a chat's remembered product is called."""
        return self._extractor.names_of(sku)

    @property
    def order_codes(self) -> OrderCodes:
        return self._extractor.order_codes

    def example_product(self, language: Language) -> str | None:
        """A name of one of the shop's products in `language`'s script (else its first name), for
        /help's examples; None with no catalogue (never the demo's SKU-7890)."""
        return self._extractor.example_name(language)

    def use_catalogue(self, extractor: EntityExtractor, version: object) -> None:
        """Swap in an index of a changed catalogue (built elsewhere: it takes seconds at 100k)."""
        self._extractor = extractor
        self.catalogue_version = version

    def classify(self, text: str) -> Classification:
        clipped = text[:MAX_CLASSIFIED_CHARS]
        entities = self._extractor.extract(clipped)
        read = without_product_names(clipped, entities.product_words) if entities.product_words else None
        vector = self._encoder.encode_one(read or clipped)
        semantic, neighbours, lexical, term_likelihoods, similarities = self._model.evidence(
            vector, read or clipped
        )
        scores = (
            semantic
            + NEIGHBOUR_WEIGHT * neighbours
            + LEXICAL_WEIGHT * lexical
            + self._term_weight * term_likelihoods
        )
        cues: list[str] = []
        for field_name, intent, weight in ENTITY_CUES:
            if getattr(entities, field_name):
                scores[INTENTS.index(intent)] += weight
                cues.append(f"{intent}:<{field_name}>")
        if self._extra is not None:
            table, matched = self._extra(clipped)
            scores += np.array([table.get(intent.value, 0.0) for intent in INTENTS])
            cues.extend(matched)
        probabilities = np.exp(scores - scores.max())
        probabilities /= probabilities.sum()
        order = np.argsort(-probabilities)
        best, second = INTENTS[order[0]], INTENTS[order[1]]
        cues.append(f"semantic:{INTENTS[int(np.argmax(semantic))]}")
        if lexical.max() > 0:
            cues.append(f"lexical:{INTENTS[int(np.argmax(lexical))]}={lexical.max():.2f}")
        confidence = float(probabilities[order[0]])
        if not any(getattr(entities, field_name) for field_name, _, _ in ENTITY_CUES):
            confidence *= self._model.familiarity(similarities)  # an order number or SKU is never unfamiliar
        return Classification(best, round(confidence, 3), entities, tuple(cues), second, read)


_default_lock = threading.Lock()
_default: list[Example] | None = None


def _default_examples() -> list[Example]:
    global _default
    with _default_lock:
        if _default is None:
            _default = load_examples()
        return _default


def warm_up() -> threading.Thread:
    """Load the encoder and learn the default examples in the background while the rest starts.

    `csbot run/chat` call this before importing aiogram (seconds of its own), so
    start-up costs about the longer of the two, not their sum.
    """

    def warm() -> None:
        from services.faq.matcher import warm_up_background

        _model_for(_default_examples(), shared_encoder())
        warm_up_background(shared_encoder())

    thread = threading.Thread(target=warm, name="warm-up", daemon=True)
    thread.start()
    return thread
