"""Token-level speculative decoding with prompt lookup, over any model that gives logits per position.

Each step feeds one batch: the token chosen last step plus k draft tokens
copied from earlier text (the prompt's facts and FAQ, or the answer so far)
that followed the same n-gram. One forward pass scores them all; the longest
prefix equal to the model's own choice is kept, the model's token at the first
mismatch (or after the last draft token) becomes the next pending token, and
the KV cache is cut back past what was rejected. Under greedy decoding the
output is token for token what plain decoding gives; under sampling, the
acceptance rule keeps the model's distribution.

The draft length is the one with the most expected tokens per millisecond,
from this machine's own pass costs (measured once at start, then from every
timed pass) and the recent acceptance at each draft position: none when
drafts are not accepted (with a periodic short probe), so text that copies
nothing costs what plain decoding costs. The acceptance loop, the draft-length
policy and the n-gram lookup are the ones the HTTP token verifier uses
(services/llm/acceptance.py); only the scores come from the engine here.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from services.llm.acceptance import DraftPolicy, PassCosts, accept_block, ngram_lookup, sample

__all__ = [
    "DecodeStats",
    "Decoder",
    "DraftPolicy",
    "ForwardModel",
    "LogitRows",
    "PassCosts",
    "lookup_draft",
    "measure_pass_costs",
]


class ForwardModel(Protocol):
    @property
    def eos(self) -> int: ...

    def forward(self, tokens: Sequence[int], n_past: int) -> np.ndarray:
        """Logits (len(tokens) x vocab) for `tokens` placed after the first `n_past` cached ones.

        Afterwards the cache holds n_past + len(tokens) positions.
        """
        ...

    def truncate(self, n: int) -> None:
        """Keep only the first `n` cached positions."""
        ...


@dataclass
class DecodeStats:
    tokens: int = 0
    forward_passes: int = 0
    drafted: int = 0
    accepted: int = 0
    seconds: float = 0.0
    prompt_seconds: float = 0.0
    """Evaluating the prompt: the same work for every decoder, kept apart from decoding."""
    draft_lengths: list[int] = field(default_factory=list)
    """Draft tokens of each verification pass, as the policy chose them."""

    def ceiling(self, costs: PassCosts) -> float:
        """Speedup over plain decoding had every drafted position been accepted, at the lengths chosen."""
        if not self.draft_lengths:
            return 1.0
        tokens = sum(length + 1 for length in self.draft_lengths)
        ms = sum(costs.at(length) for length in self.draft_lengths)
        return tokens * costs.ms[0] / ms

    @property
    def acceptance(self) -> float:
        return self.accepted / self.drafted if self.drafted else 0.0

    @property
    def decode_seconds(self) -> float:
        return self.seconds - self.prompt_seconds

    @property
    def tokens_per_second(self) -> float:
        """Generation speed after the prompt (as time per output token is usually reported)."""
        return self.tokens / self.decode_seconds if self.decode_seconds > 0 else 0.0


def lookup_draft(context: Sequence[int], policy: DraftPolicy, length: int) -> list[int]:
    """Tokens that followed the latest earlier occurrence of the context's last n-gram (prompt lookup)."""
    if length <= 0:
        return []
    # The occurrence must end before the context does, so something follows it.
    found = ngram_lookup(
        context, context, ngram=policy.ngram, min_ngram=policy.min_ngram, stop=len(context) - 1, latest=True
    )
    return [] if found is None else list(context[found : found + length])


class LogitRows:
    """Scores from the engine's own forward pass: full logit rows, top-k only when sampling needs it."""

    def __init__(self, rows: np.ndarray) -> None:
        self._rows = rows

    def argmax(self, row: int) -> int:
        return int(np.argmax(self._rows[row]))

    def top(self, row: int) -> dict[int, float]:
        return _top_logprobs(self._rows[row], 64)


def measure_pass_costs(
    model: ForwardModel,
    context: Sequence[int],
    max_tokens: int,
    *,
    sizes: Sequence[int] = (0, 1, 3, 7, 15),
    repeats: int = 3,
    clock: Callable[[], float] = time.perf_counter,
) -> PassCosts:
    """Milliseconds of a verification pass by draft positions, after `context` (already cached).

    The fastest of a few repeats per size: the machine's own cost, not a
    neighbour's burst. The cache is left holding `context` only.
    """
    measured: dict[int, float] = {}
    n_past = len(context)
    for size in sizes:
        timings = []
        for _ in range(repeats):
            model.truncate(n_past)
            started = clock()
            model.forward([context[-1]] * (size + 1), n_past)  # the pass over `size` draft positions
            timings.append((clock() - started) * 1000)
        measured[size] = min(timings)
    model.truncate(n_past)
    return PassCosts(measured, max_tokens)


@dataclass
class Decoder:
    model: ForwardModel
    temperature: float = 0.0
    rng: random.Random = field(default_factory=random.Random)
    costs: PassCosts | None = None
    """This machine's pass costs: measured on the first speculative answer, then kept up to date."""
    max_draft: int = 16
    timed: bool = True
    """Whether timed passes update `costs` (off for a scripted model, whose timings say nothing)."""
    clock: Callable[[], float] = time.perf_counter
    """Seconds, for timing the forward passes (tests give a virtual one)."""

    def _is_eos(self, token: int) -> bool:
        return token == self.model.eos

    def _choose(self, logits: np.ndarray) -> int:
        scores = LogitRows(logits[None, :])
        if self.temperature <= 0:
            return scores.argmax(0)
        return sample(scores.top(0), temperature=self.temperature, rng=self.rng)

    def greedy(self, prompt: Sequence[int], max_tokens: int) -> tuple[list[int], DecodeStats]:
        """Plain decoding, one token per forward pass: the reference for speed and exactness."""
        return self.speculative(prompt, max_tokens, policy=DraftPolicy(max_tokens=0))

    def speculative(
        self, prompt: Sequence[int], max_tokens: int, *, policy: DraftPolicy | None = None
    ) -> tuple[list[int], DecodeStats]:
        stats = DecodeStats()
        started = self.clock()
        self.model.truncate(0)
        logits = self.model.forward(prompt, 0)
        stats.forward_passes += 1
        stats.prompt_seconds = self.clock() - started
        if policy is None:
            if self.costs is None:
                try:
                    self.costs = measure_pass_costs(self.model, prompt, self.max_draft, clock=self.clock)
                except ValueError:  # no room left in the context for the sizes measured
                    self.model.truncate(len(prompt))
                started = self.clock() - stats.prompt_seconds  # measuring is not decoding
            policy = DraftPolicy(max_tokens=self.max_draft, costs=self.costs)
        context = list(prompt)
        pending = self._choose(logits[-1])
        out: list[int] = []
        while pending != self.model.eos and len(out) < max_tokens:
            context.append(pending)
            out.append(pending)
            room = max_tokens - len(out)
            draft = lookup_draft(context, policy, min(policy.length(), room))
            n_past = len(context) - 1
            pass_started = self.clock()
            rows = self.model.forward([pending, *draft], n_past)
            if policy.costs is not None and self.timed:
                policy.costs.observe(len(draft), (self.clock() - pass_started) * 1000)
            stats.forward_passes += 1
            stats.draft_lengths.append(len(draft))
            outcome = accept_block(
                LogitRows(rows), draft, temperature=self.temperature, rng=self.rng, is_end=self._is_eos
            )
            kept, next_token = outcome.kept, outcome.next_token
            accepted = draft[:kept]
            stats.drafted += len(draft)
            stats.accepted += kept
            policy.update(len(draft), kept)
            if draft:
                self.model.truncate(n_past + 1 + kept)  # drop the rejected tail from the cache
            if self.model.eos in accepted:  # the reply ends inside the draft
                accepted, next_token = accepted[: accepted.index(self.model.eos)], self.model.eos
            context.extend(accepted)
            out.extend(accepted)
            assert next_token is not None  # None only after an accepted end token, handled above
            pending = next_token
        out = out[:max_tokens]
        stats.tokens = len(out)
        stats.seconds = self.clock() - started
        return out, stats


def _top_logprobs(logits: np.ndarray, k: int) -> dict[int, float]:
    k = min(k, logits.shape[-1])
    indices = np.argpartition(logits, -k)[-k:]
    values = logits[indices].astype(np.float64)
    shifted = values - values.max()
    log_norm = np.log(np.exp(shifted).sum())
    return {int(i): float(v - log_norm) for i, v in zip(indices, shifted, strict=True)}
