"""The acceptance rule of speculative decoding, on the log-probabilities an API returns.

Greedy (temperature 0): keep a draft token while it equals the target's
argmax. Sampling: accept a draft token x with probability min(1, p(x)/q(x));
on rejection sample from norm(max(0, p - q)). Then the output is distributed
exactly as the target's own samples (Leviathan et al. 2023; Chen et al. 2023),
within the top-k the API reports.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping


def argmax(top: Mapping[int, float]) -> int:
    return max(top, key=lambda token: top[token])


def target_distribution(top: Mapping[int, float], temperature: float) -> dict[int, float]:
    """Probabilities over the reported top tokens at `temperature` (renormalised)."""
    scaled = {token: logprob / temperature for token, logprob in top.items()}
    peak = max(scaled.values())
    weights = {token: math.exp(value - peak) for token, value in scaled.items()}
    total = sum(weights.values())
    return {token: weight / total for token, weight in weights.items()}


def accept_or_resample(
    top: Mapping[int, float],
    draft_token: int,
    draft_probability: Mapping[int, float],
    *,
    temperature: float,
    rng: random.Random,
) -> tuple[bool, int]:
    """(accepted, token to emit). `draft_probability` is q; a retrieval draft is a point mass."""
    if temperature <= 0:
        best = argmax(top)
        return best == draft_token, best
    p = target_distribution(top, temperature)
    q_x = draft_probability.get(draft_token, 0.0)
    p_x = p.get(draft_token, 0.0)
    if q_x > 0 and rng.random() < min(1.0, p_x / q_x):
        return True, draft_token
    residual = {token: max(0.0, prob - draft_probability.get(token, 0.0)) for token, prob in p.items()}
    total = sum(residual.values())
    if total <= 0:  # p == q on the reported support: any sample from p is exact
        residual, total = p, 1.0
    pick = rng.random() * total
    for token, weight in residual.items():
        pick -= weight
        if pick <= 0:
            return False, token
    return False, next(reversed(residual))
