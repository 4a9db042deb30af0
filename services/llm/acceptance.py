"""Speculative decoding's shared core: the acceptance rule, the acceptance loop, draft lengths, n-gram lookup.

Both verifiers use this one implementation: the local engine (logits from its
own forward pass) and the HTTP token verifier (top log-probabilities from
/v1/completions echo). What differs between them is only where the scores
come from (`Scores`) and where drafts come from.

Greedy (temperature 0): keep a draft token while it equals the target's
argmax. Sampling: accept a draft token x with probability min(1, p(x)/q(x));
on rejection sample from norm(max(0, p - q)); after a fully accepted block the
extra token is sampled from p. Then the output is distributed exactly as the
target's own samples (Leviathan et al. 2023; Chen et al. 2023), within the
top-k the API reports.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


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
    return False, _pick(residual, total, rng)


def sample(top: Mapping[int, float], *, temperature: float, rng: random.Random) -> int:
    """The target's own choice at a position: its argmax when greedy, else a sample of p."""
    if temperature <= 0:
        return argmax(top)
    return _pick(target_distribution(top, temperature), 1.0, rng)


def _pick(weights: Mapping[int, float], total: float, rng: random.Random) -> int:
    pick = rng.random() * total
    for token, weight in weights.items():
        pick -= weight
        if pick <= 0:
            return token
    return next(reversed(list(weights)))


class Scores(Protocol):
    """The target's scores for consecutive positions: row i predicts the token at draft position i."""

    def argmax(self, row: int) -> int: ...

    def top(self, row: int) -> Mapping[int, float]:
        """Log-probabilities of the likeliest tokens at `row` (what sampling needs)."""
        ...


@dataclass(frozen=True)
class TopScores:
    """Scores as an API reports them: the top log-probabilities per position."""

    rows: Sequence[Mapping[int, float]]

    def argmax(self, row: int) -> int:
        return argmax(self.rows[row])

    def top(self, row: int) -> Mapping[int, float]:
        return self.rows[row]


@dataclass(frozen=True)
class BlockOutcome:
    kept: int
    """Draft tokens accepted, from the start of the block."""
    next_token: int | None
    """The target's token after the kept ones: its correction of the first rejected draft token, or
    (all kept) the extra token of the last row. None when a kept token ended the answer."""
    corrected: bool
    """`next_token` replaces a rejected draft token (rather than following the whole block)."""


def accept_block(
    scores: Scores,
    draft: Sequence[int],
    *,
    temperature: float,
    rng: random.Random,
    is_end: Callable[[int], bool] | None = None,
) -> BlockOutcome:
    """The acceptance loop over one scored block; `scores` has len(draft) + 1 rows.

    A draft is a point mass (q = 1 for its token): retrieval text and prompt
    lookup are deterministic, and a drafter model's text arrives without its
    probabilities.
    """
    for offset, token in enumerate(draft):
        if temperature <= 0:
            choice = scores.argmax(offset)
            accepted = choice == token
        else:
            accepted, choice = accept_or_resample(
                scores.top(offset), token, {token: 1.0}, temperature=temperature, rng=rng
            )
        if not accepted:
            return BlockOutcome(offset, choice, corrected=True)
        if is_end is not None and is_end(token):
            return BlockOutcome(offset + 1, None, corrected=False)
    if temperature <= 0:
        return BlockOutcome(len(draft), scores.argmax(len(draft)), corrected=False)
    extra = sample(scores.top(len(draft)), temperature=temperature, rng=rng)
    return BlockOutcome(len(draft), extra, corrected=False)


class PassCosts:
    """What one forward pass costs on this machine by the number of draft positions it scores.

    `ms[k]` is a pass scoring the pending token plus k draft tokens. Measured at
    start for a few sizes (the rest interpolated) and kept up to date from the
    passes actually timed, so the draft length follows the machine's load:
    quiet, an extra position costs about a third of a single-token pass; under
    load, more than half.
    """

    def __init__(self, measured: Mapping[int, float], max_tokens: int, *, smoothing: float = 0.1) -> None:
        if 0 not in measured:
            raise ValueError("the cost of a pass without draft tokens is needed")
        sizes = sorted(measured)
        self.ms: list[float] = [_interpolate(measured, sizes, k) for k in range(max_tokens + 1)]
        self._smoothing = smoothing

    def observe(self, drafted: int, ms: float) -> None:
        """One more timed pass: the whole curve moves a little towards it, keeping its shape, so a
        neighbour's load shows at every size at once (moving one size alone bent the curve)."""
        if drafted < len(self.ms) and self.ms[drafted] > 0:
            factor = 1 + self._smoothing * (ms / self.ms[drafted] - 1)
            self.ms = [cost * factor for cost in self.ms]

    def at(self, drafted: int) -> float:
        """A pass with `drafted` draft positions (past the curve's end, its last point)."""
        return self.ms[min(drafted, len(self.ms) - 1)]

    def ceiling(self, drafted: int) -> float:
        """Speedup over plain decoding if all `drafted` positions were accepted: k + 1 tokens per pass."""
        return (drafted + 1) * self.ms[0] / self.at(drafted)


def _interpolate(measured: Mapping[int, float], sizes: Sequence[int], k: int) -> float:
    """The cost at `k` draft positions from the measured sizes (sorted, 0 among them): measured, or
    on the line between the sizes either side, or past the largest along the last step's slope."""
    if k in measured:
        return measured[k]
    above = bisect.bisect(sizes, k)  # the first measured size over k (0 is measured: never the first)
    lower = sizes[above - 1]
    if above == len(sizes):  # past the largest measured size: the last step's slope goes on
        if above == 1:
            return measured[lower]
        below = sizes[above - 2]
        return measured[lower] + (measured[lower] - measured[below]) / (lower - below) * (k - lower)
    upper = sizes[above]
    share = (k - lower) / (upper - lower)
    return measured[lower] + share * (measured[upper] - measured[lower])


@dataclass
class DraftPolicy:
    """How long a draft to try, learned from recent acceptance.

    Without pass costs (HTTP token mode: a call costs a round trip and the
    prompt whatever the block) the next draft is a little longer than the
    recent accepted run, and below `skip_below` drafting stops but for a
    periodic probe. With `costs` (the local engine, which times its own
    passes) the length is the k that maximises expected tokens per
    millisecond, (1 + sum of P(first j accepted), j <= k) / ms[k], where
    P(first j accepted) is the product of the recent acceptance rates at
    draft positions 1..j: a draft pays only as far as it is likely to be
    kept, and k = 0 (plain decoding, with a periodic probe) when nothing pays.
    """

    max_tokens: int = 16
    ngram: int = 3
    min_ngram: int = 2
    probe_every: int = 8
    skip_below: float = 0.5
    rate: float = 0.5
    """Recent share of drafted tokens accepted."""
    run: float = 2.0
    """Recent accepted tokens per draft: the next draft is a little longer than that."""
    costs: PassCosts | None = None
    prior: float = 0.7
    """Acceptance rate assumed at a draft position before it has been tried (with weight `prior_weight`)."""
    prior_weight: float = 2.0
    decay: float = 0.9
    """How much of the past each new observation at a position leaves (recent acceptance counts most)."""
    _since_probe: int = 0
    _tried: list[float] = field(default_factory=list)
    _kept: list[float] = field(default_factory=list)

    def length(self) -> int:
        if self.max_tokens <= 0:
            return 0
        if self.costs is not None:
            best = self.best_length()
        elif self.rate < self.skip_below:
            best = 0
        else:
            return max(min(2, self.max_tokens), min(self.max_tokens, round(self.run * 1.5) + 1))
        if best > 0:
            self._since_probe = 0
            return best
        self._since_probe += 1
        if self._since_probe < self.probe_every:
            return 0
        self._since_probe = 0
        return min(2, self.max_tokens)

    def acceptance_at(self, position: int) -> float:
        """Recent rate at which a draft token at `position` (1-based) is kept, given all before it were."""
        self._grow()
        return self._kept[position] / self._tried[position]

    def expected_tokens(self, drafted: int) -> float:
        """Tokens a pass with `drafted` draft positions yields on average: 1 + expected accepted run."""
        return self._expected_by_length(drafted)[drafted]

    def best_length(self) -> int:
        """The draft length with the most expected tokens per millisecond (0: drafting does not pay)."""
        costs = self.costs
        assert costs is not None
        rates = [tokens / costs.at(drafted) for drafted, tokens in enumerate(self._expected_by_length())]
        return max(range(len(rates)), key=rates.__getitem__)  # the shortest of equals: plain first

    def _expected_by_length(self, longest: int | None = None) -> list[float]:
        """`expected_tokens` for every draft length 0..`longest` (default `max_tokens`), in one pass."""
        expected, survive = [1.0], 1.0
        for position in range(1, (self.max_tokens if longest is None else longest) + 1):
            survive *= self.acceptance_at(position)
            expected.append(expected[-1] + survive)
        return expected

    def update(self, drafted: int, accepted: int) -> None:
        if not drafted:
            return
        self.rate += 0.5 * (accepted / drafted - self.rate)
        self.run += 0.5 * (accepted - self.run)
        self._grow()
        # Positions up to the first rejected one were tried; those before it were kept.
        for position in range(1, min(drafted, accepted + 1) + 1):
            self._tried[position] = self._tried[position] * self.decay + 1.0
            self._kept[position] = self._kept[position] * self.decay + (1.0 if position <= accepted else 0.0)

    def _grow(self) -> None:
        missing = self.max_tokens + 2 - len(self._tried)  # a list times zero or less is empty
        self._tried += [self.prior_weight] * missing
        self._kept += [self.prior_weight * self.prior] * missing


def ngram_lookup(
    source: Sequence[int],
    produced: Sequence[int],
    *,
    ngram: int,
    min_ngram: int,
    start: int = 0,
    stop: int | None = None,
    latest: bool = True,
) -> int | None:
    """Where `source` goes on after the last n tokens of `produced`, longest n first.

    Returns the index just after an occurrence of that n-gram lying within
    source[start:stop], the latest occurrence or the earliest, or None. Prompt
    lookup (the local engine) searches the text so far, latest first; the HTTP
    verifier re-syncs with its draft after a correction, earliest first.
    """
    end = len(source) if stop is None else min(stop, len(source))
    for n in range(ngram, min_ngram - 1, -1):
        if n <= 0 or len(produced) < n:
            continue
        tail = list(produced[-n:])
        first, bound = max(start, 0), end - n + 1  # occurrences start in [first, bound)
        starts = range(bound - 1, first - 1, -1) if latest else range(first, bound)
        for index in starts:
            if list(source[index : index + n]) == tail:
                return index + n
    return None
