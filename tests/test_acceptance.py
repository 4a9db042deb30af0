"""The acceptance rule leaves the target's distribution unchanged."""

from __future__ import annotations

import math
import random
from collections import Counter

from services.llm.acceptance import accept_or_resample, sample, target_distribution

TOP = {1: math.log(0.5), 2: math.log(0.3), 3: math.log(0.2)}


def test_greedy_keeps_only_the_argmax() -> None:
    rng = random.Random(0)
    assert accept_or_resample(TOP, 1, {1: 1.0}, temperature=0, rng=rng) == (True, 1)
    assert accept_or_resample(TOP, 2, {2: 1.0}, temperature=0, rng=rng) == (False, 1)


def test_greedy_sampling_takes_the_argmax_and_draws_nothing() -> None:
    """At temperature 0 the target's own choice is its argmax, and no random number is drawn: a
    greedy reply is the same whatever else shares the generator."""
    rng = random.Random(7)
    assert sample(TOP, temperature=0, rng=rng) == 1
    assert rng.random() == random.Random(7).random()


def sample_outputs(draft_q: dict[int, float], n: int = 40_000) -> Counter[int]:
    rng = random.Random(1234)
    outputs: Counter[int] = Counter()
    tokens, weights = zip(*draft_q.items(), strict=True)
    for _ in range(n):
        draft = rng.choices(tokens, weights)[0]
        _, token = accept_or_resample(TOP, draft, draft_q, temperature=1.0, rng=rng)
        outputs[token] += 1
    return outputs


def test_sampling_reproduces_the_target_distribution_for_any_drafter() -> None:
    expected = target_distribution(TOP, 1.0)
    for draft_q in ({1: 1.0}, {3: 1.0}, {1: 0.2, 2: 0.2, 3: 0.6}):
        outputs = sample_outputs(draft_q)
        total = sum(outputs.values())
        for token, probability in expected.items():
            assert abs(outputs[token] / total - probability) < 0.01, (draft_q, outputs)


def test_a_retrieval_draft_is_accepted_as_often_as_the_target_would_say_it() -> None:
    rng = random.Random(7)
    accepted = sum(accept_or_resample(TOP, 2, {2: 1.0}, temperature=1.0, rng=rng)[0] for _ in range(20_000))
    assert abs(accepted / 20_000 - 0.3) < 0.01


def test_temperature_shapes_the_target_distribution() -> None:
    """At T = 0.5 p is sharper than the reported probabilities: p(x) is proportional to prob(x) ** 2."""
    sharp = target_distribution(TOP, 0.5)
    squares = {token: math.exp(lp) ** 2 for token, lp in TOP.items()}
    total = sum(squares.values())
    for token, square in squares.items():
        assert abs(sharp[token] - square / total) < 1e-9
    rng = random.Random(99)
    accepted = sum(accept_or_resample(TOP, 2, {2: 1.0}, temperature=0.5, rng=rng)[0] for _ in range(20_000))
    assert abs(accepted / 20_000 - sharp[2]) < 0.01, "a draft token is kept as often as p at T says"
    outputs: Counter[int] = Counter(
        accept_or_resample(TOP, 3, {3: 1.0}, temperature=0.5, rng=rng)[1] for _ in range(20_000)
    )
    for token, probability in sharp.items():
        assert abs(outputs[token] / 20_000 - probability) < 0.01, outputs


def test_tokens_far_below_the_top_still_give_a_distribution() -> None:
    """Log-probabilities as an endpoint reports them for unlikely tokens (-400 and below) at a low
    temperature: read relative to the best one, not as they are, which would underflow to nothing."""
    sharp = target_distribution({1: -400.0, 2: -400.0 - math.log(3)}, 0.25)
    assert abs(sum(sharp.values()) - 1) < 1e-9
    assert abs(sharp[1] - 81 / 82) < 1e-9  # (1 : 1/3) ** 4
