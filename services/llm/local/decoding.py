"""Token-level speculative decoding with prompt lookup, over any model that gives logits per position.

Each step feeds one batch: the token chosen last step plus k draft tokens
copied from earlier text (the prompt's facts and FAQ, or the answer so far)
that followed the same n-gram. One forward pass scores them all; the longest
prefix equal to the model's own choice is kept, the model's token at the first
mismatch (or after the last draft token) becomes the next pending token, and
the KV cache is cut back past what was rejected. Under greedy decoding the
output is token for token what plain decoding gives; under sampling, the
acceptance rule keeps the model's distribution.

The draft length follows recent acceptance: long while drafts are accepted,
none when they are not (with a periodic short probe), so text that copies
nothing costs what plain decoding costs.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from services.llm.acceptance import accept_or_resample


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


@dataclass
class DraftPolicy:
    """How long a draft to try, learned from recent acceptance.

    On a CPU each extra position in a forward pass costs about half a whole
    single-token pass (`python -m bench.token_speculative` prints the costs), so
    a draft pays only when most of it is accepted: below `skip_below` we stop
    drafting and only probe now and then.
    """

    max_tokens: int = 16
    ngram: int = 3
    min_ngram: int = 2
    probe_every: int = 8
    skip_below: float = 0.5
    _rate: float = 0.5
    _run: float = 2.0
    """Recent accepted tokens per draft: the next draft is a little longer than that."""
    _since_probe: int = 0

    def length(self) -> int:
        if self._rate < self.skip_below:
            self._since_probe += 1
            if self._since_probe < self.probe_every:
                return 0
            self._since_probe = 0
            return 2
        return max(2, min(self.max_tokens, round(self._run * 1.5) + 1))

    def update(self, drafted: int, accepted: int) -> None:
        if drafted:
            self._rate += 0.5 * (accepted / drafted - self._rate)
            self._run += 0.5 * (accepted - self._run)


def lookup_draft(context: Sequence[int], policy: DraftPolicy, length: int) -> list[int]:
    """Tokens that followed the latest earlier occurrence of the context's last n-gram."""
    if length <= 0:
        return []
    for n in range(policy.ngram, policy.min_ngram - 1, -1):
        if len(context) <= n:
            continue
        tail = list(context[-n:])
        # Search backwards so the most recent match (the answer so far, then the prompt) wins.
        for start in range(len(context) - n - 1, -1, -1):
            if list(context[start : start + n]) == tail:
                follow = list(context[start + n : start + n + length])
                if follow:
                    return follow
    return []


@dataclass
class Decoder:
    model: ForwardModel
    temperature: float = 0.0
    rng: random.Random = field(default_factory=random.Random)

    def _choose(self, logits: np.ndarray) -> int:
        if self.temperature <= 0:
            return int(np.argmax(logits))
        top = _top_logprobs(logits, 64)
        _, token = accept_or_resample(top, -1, {}, temperature=self.temperature, rng=self.rng)
        return token

    def greedy(self, prompt: Sequence[int], max_tokens: int) -> tuple[list[int], DecodeStats]:
        """Plain decoding, one token per forward pass: the reference for speed and exactness."""
        return self.speculative(prompt, max_tokens, policy=DraftPolicy(max_tokens=0))

    def speculative(
        self, prompt: Sequence[int], max_tokens: int, *, policy: DraftPolicy | None = None
    ) -> tuple[list[int], DecodeStats]:
        policy = policy or DraftPolicy()
        stats = DecodeStats()
        started = time.perf_counter()
        self.model.truncate(0)
        logits = self.model.forward(prompt, 0)
        stats.forward_passes += 1
        stats.prompt_seconds = time.perf_counter() - started
        context = list(prompt)
        pending = self._choose(logits[-1])
        out: list[int] = []
        while pending != self.model.eos and len(out) < max_tokens:
            context.append(pending)
            out.append(pending)
            room = max_tokens - len(out)
            draft = lookup_draft(context, policy, min(policy.length() if policy.max_tokens else 0, room))
            n_past = len(context) - 1
            rows = self.model.forward([pending, *draft], n_past)
            stats.forward_passes += 1
            kept = 0
            next_token: int | None = None
            for offset, token in enumerate(draft):
                if self.temperature <= 0:
                    choice = int(np.argmax(rows[offset]))
                    ok = choice == token
                else:
                    top = _top_logprobs(rows[offset], 64)
                    ok, choice = accept_or_resample(
                        top, token, {token: 1.0}, temperature=self.temperature, rng=self.rng
                    )
                if not ok:
                    next_token = choice
                    break
                kept += 1
                if token == self.model.eos:
                    break
            accepted = draft[:kept]
            stats.drafted += len(draft)
            stats.accepted += kept
            policy.update(len(draft), kept)
            if kept < len(draft) or draft:
                self.model.truncate(n_past + 1 + kept)  # drop the rejected tail from the cache
            if self.model.eos in accepted:
                accepted = accepted[: accepted.index(self.model.eos)]
                context.extend(accepted)
                out.extend(accepted)
                pending = self.model.eos
                break
            context.extend(accepted)
            out.extend(accepted)
            pending = next_token if next_token is not None else self._choose(rows[kept])
        out = out[:max_tokens]
        stats.tokens = len(out)
        stats.seconds = time.perf_counter() - started
        return out, stats


def _top_logprobs(logits: np.ndarray, k: int) -> dict[int, float]:
    k = min(k, logits.shape[-1])
    indices = np.argpartition(logits, -k)[-k:]
    values = logits[indices].astype(np.float64)
    shifted = values - values.max()
    log_norm = np.log(np.exp(shifted).sum())
    return {int(i): float(v - log_norm) for i, v in zip(indices, shifted, strict=True)}
