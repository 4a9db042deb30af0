"""Precision and recall of the classifier on a labelled set."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from services.understanding.classifier import Intent, IntentClassifier


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

    by_language: dict[str, float]
    """language -> macro-F1 on that language's utterances"""

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def macro_f1(self) -> float:
        return macro_f1(self.per_intent.values())


def macro_f1(rows: object) -> float:
    """Mean F1 over the classes that occur (in the gold labels or the guesses)."""
    scores = [
        2 * p * r / (p + r) if p + r else 0.0
        for p, r, support in rows  # type: ignore[attr-defined]
        if support or p
    ]
    return sum(scores) / len(scores) if scores else 0.0


def load_labelled(path: str | Path) -> list[Labelled]:
    """Lines `intent<TAB>language<TAB>text`; `#` starts a comment, a header line is skipped."""
    items = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#") or line.split("\t")[0] in ("expected", "intent"):
            continue
        try:
            intent, language, text = line.split("\t", 2)
            items.append(Labelled(Intent(intent), language, text))
        except ValueError as error:
            raise ValueError(
                f"{path}: line {number}: expected intent<TAB>language<TAB>text, the intent one of "
                + ", ".join(i.value for i in Intent)
            ) from error
    return items


def evaluate(classifier: IntentClassifier, items: list[Labelled]) -> Report:
    started = time.perf_counter()
    guesses = [classifier.classify(item.text).intent for item in items]
    elapsed_ms = (time.perf_counter() - started) * 1000
    mistakes = [(item, guess) for item, guess in zip(items, guesses, strict=True) if guess != item.intent]
    by_language = {
        language: macro_f1(
            _per_intent(
                [(i, g) for i, g in zip(items, guesses, strict=True) if i.language == language]
            ).values()
        )
        for language in sorted({item.language for item in items})
    }
    return Report(
        len(items),
        len(items) - len(mistakes),
        _per_intent(list(zip(items, guesses, strict=True))),
        mistakes,
        elapsed_ms / max(1, len(items)),
        by_language,
    )


def _per_intent(pairs: list[tuple[Labelled, Intent]]) -> dict[Intent, tuple[float, float, int]]:
    predicted: Counter[Intent] = Counter(guess for _, guess in pairs)
    actual: Counter[Intent] = Counter(item.intent for item, _ in pairs)
    hits: Counter[Intent] = Counter(guess for item, guess in pairs if guess == item.intent)
    return {
        intent: (
            hits[intent] / predicted[intent] if predicted[intent] else 0.0,
            hits[intent] / actual[intent] if actual[intent] else 0.0,
            actual[intent],
        )
        for intent in Intent
    }


def render_report(report: Report) -> str:
    lines = [f"{'intent':<10}{'precision':>10}{'recall':>8}{'support':>9}"]
    for intent, (precision, recall, support) in report.per_intent.items():
        lines.append(f"{intent.value:<10}{precision:>10.3f}{recall:>8.3f}{support:>9}")
    lines.append(
        f"macro-F1 {report.macro_f1:.3f}, accuracy {report.accuracy:.3f} on {report.total} utterances; "
        f"mean {report.mean_ms:.3f} ms per message"
    )
    lines.append(
        "macro-F1 by language: " + ", ".join(f"{lang} {f1:.3f}" for lang, f1 in report.by_language.items())
    )
    for item, guess in report.mistakes:
        lines.append(f"  miss: [{item.intent.value} -> {guess.value}] ({item.language}) {item.text}")
    return "\n".join(lines)
