"""Precision and recall of the classifier on a labelled set."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from services.classifier import Intent, IntentClassifier


@dataclass(frozen=True)
class Labelled:
    intent: Intent
    language: str
    text: str


@dataclass(frozen=True)
class Report:
    total: int
    correct: int
    per_intent: dict[Intent, tuple[float, float, int]]
    """intent -> (precision, recall, support)"""
    mistakes: list[tuple[Labelled, Intent]]
    mean_ms: float

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


def load_labelled(path: str | Path) -> list[Labelled]:
    """Lines `intent<TAB>language<TAB>text`; `#` starts a comment."""
    items = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            intent, language, text = line.split("\t", 2)
            items.append(Labelled(Intent(intent), language, text))
        except ValueError as error:
            raise ValueError(f"{path}:{number}: expected intent<TAB>language<TAB>text") from error
    return items


def evaluate(classifier: IntentClassifier, items: list[Labelled]) -> Report:
    predicted: Counter[Intent] = Counter()
    actual: Counter[Intent] = Counter()
    hits: Counter[Intent] = Counter()
    mistakes = []
    started = time.perf_counter()
    for item in items:
        guess = classifier.classify(item.text).intent
        predicted[guess] += 1
        actual[item.intent] += 1
        if guess == item.intent:
            hits[guess] += 1
        else:
            mistakes.append((item, guess))
    elapsed_ms = (time.perf_counter() - started) * 1000
    per_intent = {
        intent: (
            hits[intent] / predicted[intent] if predicted[intent] else 0.0,
            hits[intent] / actual[intent] if actual[intent] else 0.0,
            actual[intent],
        )
        for intent in Intent
    }
    return Report(len(items), sum(hits.values()), per_intent, mistakes, elapsed_ms / max(1, len(items)))


def render_report(report: Report) -> str:
    lines = [f"{'intent':<10}{'precision':>10}{'recall':>8}{'support':>9}"]
    for intent, (precision, recall, support) in report.per_intent.items():
        lines.append(f"{intent.value:<10}{precision:>10.3f}{recall:>8.3f}{support:>9}")
    lines.append(
        f"accuracy {report.accuracy:.3f} on {report.total} utterances; "
        f"mean {report.mean_ms:.3f} ms per message"
    )
    for item, guess in report.mistakes:
        lines.append(f"  miss: [{item.intent.value} -> {guess.value}] ({item.language}) {item.text}")
    return "\n".join(lines)
