"""A fitted logistic model of "this entry answers this question", with the bar it answers at.

The matcher (services/faq/matcher.py) and its second look (services/faq/second_look.py) each read
one, fitted by `python -m bench.calibrate` on the tuning FAQs only; the file names the features it
was fitted for, so a feature added without a refit fails at start, not silently.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Calibration:
    weights: tuple[float, ...]
    bias: float
    threshold: float
    features: tuple[str, ...]

    @classmethod
    def load(cls, path: Path, *, features: tuple[str, ...], threshold: float | None = None) -> Calibration:
        """`threshold`: a shop's own bar (CSBOT_FAQ_MIN_CONFIDENCE) in place of the fitted one.

        The matcher's fitted bar keeps false answers near 1% of the tuning questions and within 3%
        on each tuning FAQ; a shop that would rather offer choices than risk a wrong answer raises it
        (0.93: false answers on the nine held-out FAQs 2.1% -> 1.2% of questions, coverage 0.337 ->
        0.245)."""
        data = json.loads(path.read_text(encoding="utf-8"))
        if tuple(data["features"]) != features:
            raise ValueError(f"{path}: fitted for features {data['features']}, the model reads {features}")
        fitted = float(data["threshold"])
        return cls(
            tuple(data["weights"]), float(data["bias"]), fitted if threshold is None else threshold, features
        )

    def probability(self, evidence: dict[str, float]) -> float:
        z = self.bias + sum(w * evidence[name] for w, name in zip(self.weights, self.features, strict=True))
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
