"""Speculative decoding is exact: on a deterministic reference model, token for token equal to greedy."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from services.llm.local.decoding import (
    Decoder,
    DecodeStats,
    DraftPolicy,
    PassCosts,
    lookup_draft,
    measure_pass_costs,
)


class ReferenceModel:
    """Logits are a pure function of the prefix, so batching cannot change them.

    It copies like a grounded answer does: when the last two tokens occurred
    before, it strongly prefers what followed them - but not always, so drafts
    are sometimes rejected. It also checks that the cache is rolled back exactly.
    """

    def __init__(self, vocab: int = 48, seed: int = 3) -> None:
        rng = np.random.default_rng(seed)
        self.table = rng.normal(size=(vocab, vocab, vocab)).astype(np.float32)
        self.vocab = vocab
        self.cache: list[int] = []
        self.passes = 0

    @property
    def eos(self) -> int:
        return 0

    def _logits(self, prefix: Sequence[int]) -> np.ndarray:
        row = self.table[prefix[-2] if len(prefix) > 1 else 1, prefix[-1]].copy()
        for start in range(len(prefix) - 3, -1, -1):
            if prefix[start : start + 2] == prefix[-2:] and (sum(prefix[-2:]) % 5):
                row[prefix[start + 2]] += 6.0  # copy what followed last time, most of the time
                break
        if len(prefix) > 60:
            row[0] += 4.0  # and eventually stop
        return row

    def forward(self, tokens: Sequence[int], n_past: int) -> np.ndarray:
        assert n_past == len(self.cache), "the cache must hold exactly the accepted prefix"
        self.passes += 1
        rows = []
        for token in tokens:
            self.cache.append(int(token))
            rows.append(self._logits(self.cache))
        return np.stack(rows)

    def truncate(self, n: int) -> None:
        assert n <= len(self.cache)
        del self.cache[n:]


def prompts(count: int) -> list[list[int]]:
    rng = random.Random(11)
    made = []
    for _ in range(count):
        facts = [rng.randrange(1, 48) for _ in range(rng.randrange(10, 40))]
        made.append(facts + facts[: rng.randrange(2, 8)])  # a repeated stretch, like a quoted FAQ
    return made


def decoder_for(model: ReferenceModel, **options: Any) -> Decoder:
    """Pass costs as measured on a quiet machine (an extra position costs 0.35 of a pass), not timed:
    a Python stub's wall-clock timings say nothing, and would make draft lengths vary run to run."""
    return Decoder(model, costs=PassCosts({0: 1.0, 1: 1.35, 16: 6.6}, 16), timed=False, **options)


@pytest.mark.parametrize("prompt", prompts(40))
def test_speculative_output_is_token_identical_to_greedy(prompt: list[int]) -> None:
    model = ReferenceModel()
    decoder = decoder_for(model)
    plain, plain_stats = decoder.greedy(prompt, 80)
    fast, fast_stats = decoder.speculative(prompt, 80)
    assert fast == plain
    assert fast_stats.forward_passes <= plain_stats.forward_passes


def test_drafts_pay_off_on_copied_text() -> None:
    model = ReferenceModel()
    decoder = decoder_for(model)
    totals = [0, 0]
    for prompt in prompts(40):
        totals[0] += decoder.greedy(prompt, 80)[1].forward_passes
        totals[1] += decoder.speculative(prompt, 80)[1].forward_passes
    assert totals[1] < 0.8 * totals[0]


class FillingModel(ReferenceModel):
    """A model whose cache takes what fits of a pass before it refuses the pass (a context of
    `n_ctx` tokens): after a refusal its cache holds more than the caller asked it to keep."""

    def __init__(self, n_ctx: int) -> None:
        super().__init__()
        self.n_ctx = n_ctx

    def forward(self, tokens: Sequence[int], n_past: int) -> np.ndarray:
        room = self.n_ctx - n_past
        if len(tokens) > room:
            if room > 0:
                super().forward(tokens[:room], n_past)
            raise ValueError(f"context of {self.n_ctx} tokens exceeded")
        return super().forward(tokens, n_past)


def test_a_context_too_small_to_measure_pass_costs_still_decodes_exactly() -> None:
    """Measuring the pass costs needs 16 positions after the prompt; with room for 10 the
    measurement is given up, the cache is put back to the prompt, and the answer is greedy's."""
    prompt = prompts(1)[0]
    decoder = Decoder(FillingModel(len(prompt) + 10), timed=False)
    out, _ = decoder.speculative(prompt, 8)
    assert decoder.costs is None
    assert out == Decoder(ReferenceModel(), timed=False).greedy(prompt, 8)[0]


def test_budget_and_eos_are_respected() -> None:
    decoder = decoder_for(ReferenceModel())
    for prompt in prompts(10):
        out, stats = decoder.speculative(prompt, 7)
        assert len(out) <= 7 and 0 not in out and stats.tokens == len(out)


def test_sampling_runs_through_the_acceptance_rule() -> None:
    decoder = decoder_for(ReferenceModel(), temperature=0.8, rng=random.Random(5))
    out, stats = decoder.speculative(prompts(1)[0], 40)
    assert 0 < len(out) <= 40 and stats.forward_passes > 0


def test_lookup_prefers_the_latest_occurrence() -> None:
    policy = DraftPolicy(max_tokens=4, ngram=2)
    assert lookup_draft([5, 6, 7, 8, 5, 6, 9, 1, 5, 6], policy, 3) == [9, 1, 5]
    assert lookup_draft([1, 2, 3], policy, 3) == []


def test_draft_length_backs_off_when_drafts_fail() -> None:
    policy = DraftPolicy(max_tokens=12)
    for _ in range(6):
        policy.update(8, 0)
    lengths = [policy.length() for _ in range(12)]
    assert lengths.count(0) >= 10 and max(lengths) <= 2, "mostly no drafting, with short probes"


def test_decode_statistics_leave_the_prompt_s_time_out_and_never_divide_by_zero() -> None:
    """What bench.token_speculative prints: tokens per second of decoding (the prompt's time
    apart) and the share of drafted tokens accepted."""
    stats = DecodeStats(tokens=12, drafted=8, accepted=6, seconds=3.5, prompt_seconds=0.5)
    assert stats.decode_seconds == 3.0
    assert stats.tokens_per_second == 4.0 and stats.acceptance == 0.75
    idle = DecodeStats(seconds=0.5, prompt_seconds=0.5)
    assert (idle.tokens_per_second, idle.acceptance) == (0.0, 0.0)
    unprompted = DecodeStats(tokens=6, seconds=2.0)  # no prompt evaluated: all of it decoding
    assert (unprompted.decode_seconds, unprompted.tokens_per_second) == (2.0, 3.0)


def test_timed_passes_move_the_pass_costs_towards_what_they_took() -> None:
    """On a virtual clock where every position a pass scores takes 10 ms, each pass moves the
    costs (first set at about 1 ms a pass) as `PassCosts.observe` says; untimed, they stay as set."""
    model, now = ReferenceModel(), [100.0]  # not 0: a time is read as a difference
    forward = model.forward

    def slow_forward(tokens: Sequence[int], n_past: int) -> Any:
        now[0] += 0.010 * len(tokens)
        return forward(tokens, n_past)

    model.forward = slow_forward  # type: ignore[method-assign]
    measured = {0: 1.0, 1: 1.35, 16: 6.6}
    timed = Decoder(model, costs=PassCosts(measured, 16), clock=lambda: now[0])
    prompt = prompts(1)[0]
    _, stats = timed.speculative(prompt, 40)
    expected = PassCosts(measured, 16)
    for drafted in stats.draft_lengths:
        expected.observe(drafted, 10.0 * (drafted + 1))
    assert stats.draft_lengths and timed.costs is not None
    assert timed.costs.ms == pytest.approx(expected.ms) and timed.costs.ms[0] > 1.0
    assert stats.prompt_seconds == pytest.approx(0.010 * len(prompt))
    untimed = decoder_for(ReferenceModel())
    untimed.speculative(prompt, 40)
    assert untimed.costs is not None and untimed.costs.ms[0] == 1.0


def test_pass_costs_are_measured_as_the_time_each_pass_took() -> None:
    """On a virtual clock where every position a pass scores takes 10 ms, a pass over k draft
    positions costs 10 (k + 1) ms, whatever the clock read when measuring began."""
    model, now = ReferenceModel(), [100.0]
    forward = model.forward

    def slow_forward(tokens: Sequence[int], n_past: int) -> Any:
        now[0] += 0.010 * len(tokens)
        return forward(tokens, n_past)

    model.forward = slow_forward  # type: ignore[method-assign]
    context = prompts(1)[0]
    model.forward(context, 0)
    costs = measure_pass_costs(model, context, 8, sizes=(0, 1, 3), repeats=2, clock=lambda: now[0])
    assert costs.ms[:4] == pytest.approx([10.0, 20.0, 30.0, 40.0])
    assert model.cache == list(context), "the cache is left holding the context only"


def test_top_logprobs_hold_for_logits_far_from_zero() -> None:
    """Raw logits may be in the thousands: the log-probabilities of the top tokens are still finite
    and those of the whole distribution (here all of it) add up to one."""
    from services.llm.local.decoding import _top_logprobs

    logits = np.array([1000.0, 999.0, 998.0], dtype=np.float32)
    top = _top_logprobs(logits, 3)
    assert sorted(top, key=top.__getitem__, reverse=True) == [0, 1, 2]
    assert all(np.isfinite(value) for value in top.values())
    assert sum(np.exp(value) for value in top.values()) == pytest.approx(1.0)
    assert top[0] - top[1] == pytest.approx(1.0)
