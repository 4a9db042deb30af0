"""What the speculative answerer needs from the LLM gateway, and nothing more.

The answerer's parts type against this Protocol, not the gateway class, so
they say exactly which calls they make (and a test may hand them anything that
speaks it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from services.llm.capabilities import Capabilities
from services.llm.config import LLMEndpoint, LLMRole
from services.llm.gateway import CallLedger, ChatResult, Message, ScoreResult


class ModelAPI(Protocol):
    def has(self, role: LLMRole) -> bool: ...

    def primary(self, role: LLMRole) -> LLMEndpoint: ...

    def capabilities(self, role: LLMRole) -> Capabilities | None: ...

    async def chat(
        self,
        role: LLMRole,
        messages: Sequence[Message],
        *,
        ledger: CallLedger,
        max_tokens: int,
        temperature: float = 0.0,
        top_logprobs: int | None = None,
        kind: str = "chat",
    ) -> ChatResult: ...

    async def score(
        self, role: LLMRole, prompt: Sequence[int], *, ledger: CallLedger, top: int = 5, needed_from: int = 0
    ) -> ScoreResult: ...

    def stream_chat(
        self,
        role: LLMRole,
        messages: Sequence[Message],
        *,
        ledger: CallLedger,
        max_tokens: int,
        temperature: float = 0.0,
    ) -> AsyncIterator[str]: ...

    def stream_completion(
        self,
        role: LLMRole,
        prompt: Sequence[int],
        *,
        ledger: CallLedger,
        max_tokens: int,
        temperature: float = 0.0,
    ) -> AsyncIterator[str]: ...

    async def tokenize(
        self,
        role: LLMRole,
        *,
        text: str | None = None,
        messages: Sequence[Message] | None = None,
        ledger: CallLedger | None = None,
    ) -> list[int]: ...

    async def detokenize(
        self, role: LLMRole, tokens: Sequence[int], *, ledger: CallLedger | None = None
    ) -> str: ...

    async def prompt_tokens(
        self, role: LLMRole, messages: Sequence[Message], *, ledger: CallLedger | None = None
    ) -> int: ...
