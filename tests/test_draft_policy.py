"""The draft-length policy driven by measured pass costs, and the decoder that uses it.

The scripted model below answers with a fixed token sequence (its argmax at
each position is the next token of that sequence), so the passes a decoder
needs depend only on drafting and the policy: a real FAQ answer restated
(seed data, one id per word) must take far fewer passes than plain decoding,
text that copies nothing no more passes than plain decoding, and the output
is the scripted answer token for token either way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from db.seed import FAQ
from services.llm.acceptance import DraftPolicy, PassCosts, ngram_lookup
from services.llm.local.decoding import Decoder, DecodeStats

QUIET = {0: 11.7, 1: 15.6, 3: 23.2, 7: 40.9, 15: 72.5}
"""ms by draft tokens, as `python -m bench.token_speculative` measured them on a quiet machine."""
LOADED = {0: 11.7, 1: 18.7, 3: 32.8, 7: 60.9, 15: 117.1}
"""The same machine under load: each extra position costs 0.6 of a single-token pass."""


def test_pass_costs_interpolate_between_measured_sizes_and_follow_observed_passes() -> None:
    costs = PassCosts(QUIET, 20)
    assert costs.ms[3] == 23.2
    assert costs.ms[5] == pytest.approx(23.2 + (40.9 - 23.2) / 2), "on the line between 3 and 7"
    assert costs.ms[2] == pytest.approx((15.6 + 23.2) / 2)
    assert PassCosts({0: 10.0}, 3).ms == [10.0] * 4, "one measured size: flat past it"
    assert costs.ms[20] > costs.ms[15]  # past the largest size, the last slope goes on
    steady = PassCosts({0: 10.0, 1: 12.0, 3: 16.0}, 6)
    assert steady.ms[4:] == pytest.approx([18.0, 20.0, 22.0]), "2 ms a position, as from 1 to 3"
    before, single = costs.ms[7], costs.ms[0]
    costs.observe(7, 100.0)
    assert costs.ms[7] == pytest.approx(before + 0.1 * (100.0 - before)), "a tenth of the way to it"
    assert costs.ms[0] / single == pytest.approx(costs.ms[7] / before), "the whole curve, one factor"
    assert costs.ceiling(0) == 1.0
    assert abs(costs.ceiling(15) - 16 * 11.7 / 72.5) < 1e-9


def test_a_pass_measured_at_no_cost_gives_no_factor_to_follow() -> None:
    costs = PassCosts({0: 0.0, 2: 10.0}, 4)  # a clock too coarse to time the smallest pass
    costs.observe(0, 5.0)
    assert costs.ms == [0.0, 5.0, 10.0, 15.0, 20.0], "left as it was, nothing divided by zero"
    costs.observe(2, 20.0)
    assert costs.ms[2] == pytest.approx(11.0)


def trained(costs: dict[int, float], history: Sequence[tuple[int, int]]) -> DraftPolicy:
    policy = DraftPolicy(max_tokens=16, costs=PassCosts(costs, 16))
    for drafted, accepted in history:
        policy.update(drafted, accepted)
    return policy


def test_long_drafts_when_they_are_kept_none_when_they_are_rejected() -> None:
    kept = trained(QUIET, [(16, 16)] * 30)
    assert kept.length() == 16
    rejected = trained(QUIET, [(4, 0)] * 10)
    lengths = [rejected.length() for _ in range(16)]
    assert lengths.count(0) == 14 and lengths.count(2) == 2  # plain decoding, with a periodic probe


def test_a_draft_worth_making_starts_the_probe_count_over() -> None:
    """Plain decoding probes with a short draft every eighth step; a step that drafted because
    drafting paid starts the count again, so the next probe comes eight steps after it."""
    policy = trained(QUIET, [(4, 0)] * 10)
    assert [policy.length() for _ in range(3)] == [0, 0, 0]
    for _ in range(30):
        policy.update(16, 16)
    assert policy.length() > 0
    for _ in range(40):
        policy.update(4, 0)
    lengths = [policy.length() for _ in range(16)]
    assert [index for index, length in enumerate(lengths) if length] == [7, 15], lengths


def test_a_dearer_position_shortens_the_draft_at_the_same_acceptance() -> None:
    history = [(8, 3), (8, 5), (8, 2), (8, 8), (8, 4)] * 3
    quiet, loaded = trained(QUIET, history), trained(LOADED, history)
    assert 0 < loaded.best_length() < quiet.best_length()
    best = quiet.best_length()
    assert all(
        quiet.expected_tokens(k) / quiet.costs.ms[k] <= quiet.expected_tokens(best) / quiet.costs.ms[best]  # type: ignore[union-attr]
        for k in range(17)
    )


def test_acceptance_is_learned_per_draft_position() -> None:
    policy = trained(QUIET, [(8, 2)] * 20)
    assert policy.acceptance_at(1) > 0.9 and policy.acceptance_at(2) > 0.9
    assert policy.acceptance_at(3) < 0.1
    assert abs(policy.acceptance_at(4) - policy.prior) < 1e-9  # never tried: the prior


class ScriptedModel:
    """A ForwardModel whose greedy answer is `answer`: logits put the next answer token on top."""

    def __init__(self, prompt: Sequence[int], answer: Sequence[int], vocabulary: int) -> None:
        self.sequence = [*prompt, *answer, vocabulary]
        self.vocabulary = vocabulary + 1
        self.cached = 0

    @property
    def eos(self) -> int:
        return self.vocabulary - 1

    def forward(self, tokens: Sequence[int], n_past: int) -> np.ndarray:
        rows = np.zeros((len(tokens), self.vocabulary), dtype=np.float32)
        for offset, token in enumerate(tokens):
            position = n_past + offset
            # Off script (a rejected draft token) the model still says its own next token.
            rows[offset, self.sequence[min(position + 1, len(self.sequence) - 1)]] = 1.0
            del token
        self.cached = n_past + len(tokens)
        return rows

    def truncate(self, n: int) -> None:
        self.cached = min(self.cached, n)


def words(text: str, ids: dict[str, int]) -> list[int]:
    return [ids.setdefault(word, len(ids)) for word in text.split()]


def test_a_restated_faq_answer_takes_far_fewer_passes_and_stays_exact() -> None:
    ids: dict[str, int] = {}
    faq = next(answer for slug, lang, _, answer, _, _ in FAQ if slug == "return-method" and lang == "en")
    prompt = words(f"FAQ: {faq} Question: how do I return an item?", ids)
    answer = words(f"Sure. {faq} If anything is unclear, ask again. {faq}", ids)
    model = ScriptedModel(prompt, answer, vocabulary=len(ids))
    decoder = Decoder(model, costs=PassCosts(QUIET, 16), timed=False)
    plain, plain_stats = decoder.greedy(prompt, 400)
    fast, fast_stats = decoder.speculative(prompt, 400)
    assert plain == fast == answer
    assert plain_stats.drafted == 0 and plain_stats.forward_passes == len(answer) + 1, "one token a pass"
    assert fast_stats.forward_passes * 3 < plain_stats.forward_passes
    assert fast_stats.ceiling(PassCosts(QUIET, 16)) > 1.5


def test_text_that_copies_nothing_costs_no_more_passes_than_plain_decoding() -> None:
    ids: dict[str, int] = {}
    prompt = words("Write a poem about autumn.", ids)
    answer = [len(ids) + offset for offset in range(120)]  # every token new: nothing to look up
    model = ScriptedModel(prompt, answer, vocabulary=len(ids) + 120)
    decoder = Decoder(model, costs=PassCosts(QUIET, 16), timed=False)
    fast, stats = decoder.speculative(prompt, 400)
    assert fast == answer and stats.drafted == 0 and stats.forward_passes == len(answer) + 1


def test_no_draft_tokens_means_no_draft_not_even_a_probe() -> None:
    plain = DraftPolicy(max_tokens=0, costs=PassCosts(QUIET, 16))
    assert [plain.length() for _ in range(20)] == [0] * 20, "not even a probe"


def test_nothing_produced_yet_has_no_n_gram_to_look_up() -> None:
    source = [5, 6, 7, 5, 6]
    assert ngram_lookup(source, [], ngram=3, min_ngram=0) is None
    assert ngram_lookup(source, [9, 5, 6], ngram=3, min_ngram=1) == 5, "after the latest 5 6"
    assert ngram_lookup(source, [5, 6], ngram=3, min_ngram=1) == 5, "fewer produced than n: a shorter n"


def test_a_decode_s_ceiling_is_its_tokens_at_single_pass_cost_over_the_passes_it_made() -> None:
    """Every drafted position accepted: a pass of n draft tokens yields n + 1 tokens for its cost."""
    stats = DecodeStats(draft_lengths=[3, 0, 7])
    costs = PassCosts(QUIET, 16)
    assert stats.ceiling(costs) == pytest.approx((4 + 1 + 8) * 11.7 / (23.2 + 11.7 + 40.9))
    assert DecodeStats().ceiling(costs) == 1.0, "no pass made: no speedup"


def test_without_costs_each_pass_moves_the_recent_rate_and_run_halfway() -> None:
    """HTTP token mode's policy: a fresh one drafts a little over its assumed run; a pass fully
    rejected halves the rate below the skip line, a pass fully kept lengthens the next draft."""
    fresh = DraftPolicy()
    assert fresh.length() == 4, "run 2 assumed: 2 x 1.5 + 1"
    fresh.update(4, 0)
    assert (fresh.rate, fresh.run) == (0.25, 1.0)
    assert fresh.length() == 0, "below skip_below: no draft until the probe"
    kept = DraftPolicy()
    kept.update(4, 4)
    assert (kept.rate, kept.run) == (0.75, 3.0)
    assert kept.length() == 5


def test_a_policy_that_stopped_drafting_probes_every_eighth_pass() -> None:
    low = DraftPolicy(rate=0.0)
    assert [low.length() for _ in range(16)] == ([0] * 7 + [2]) * 2
