"""What an OpenAI-compatible endpoint is, as the shop configures it."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, SecretStr

REASONING_MODEL = re.compile(r"(o\d|gpt-5)(?!\d)", re.IGNORECASE)
"""OpenAI's reasoning families: o1, o3, o4-mini, gpt-5, gpt-5.1-mini... (not gpt-50, not o10)."""


VerifyMode = Literal["auto", "token", "judge"]


class LLMEndpoint(BaseModel):
    """One deployment of a model behind an OpenAI-compatible API.

    A role (target or drafter) lists several: the first that is not cooling
    down serves, the rest are the fallback chain.
    """

    base_url: str
    model: str
    api_keys: list[SecretStr] = Field(default_factory=list, description="rotated on 401/429")
    context_window: int = Field(default=8192, gt=256)
    price_in: float = Field(default=0.0, ge=0, description="USD per million input tokens")
    price_out: float = Field(default=0.0, ge=0, description="USD per million output tokens")
    rpm: int | None = Field(default=None, gt=0)
    tpm: int | None = Field(default=None, gt=0)
    max_concurrency: int = Field(default=4, gt=0)
    timeout: float = Field(default=30.0, gt=0, description="seconds per request")
    first_token_timeout: float = Field(default=15.0, gt=0, description="seconds to the first streamed token")
    verify: VerifyMode = Field(
        default="auto",
        description="token: /v1/completions echo+logprobs (vLLM-style); judge: chat-only APIs",
    )
    tokenizer: str | None = Field(default=None, description="o200k_base or cl100k_base; guessed from model")
    reasoning: bool | None = Field(
        default=None,
        description="a reasoning model (o-series, gpt-5...): max_completion_tokens instead of max_tokens, "
        "its default temperature, no logprobs; guessed from the model name when unset",
    )
    reasoning_effort: str | None = Field(default=None, description="sent to reasoning models, e.g. low")
    reasoning_budget: int = Field(
        default=1024, ge=0, description="completion tokens a reasoning model may think in, beyond the reply"
    )
    partial_prompt_logprobs: bool = Field(
        default=False,
        description="the server accepts `prompt_logprobs_from` (csbot's local server): log-probabilities "
        "only where verification reads them",
    )

    @property
    def name(self) -> str:
        return f"{self.model}@{self.base_url}"

    @property
    def is_reasoning(self) -> bool:
        if self.reasoning is not None:
            return self.reasoning
        return bool(REASONING_MODEL.match(self.model.rsplit("/", 1)[-1]))  # "openai/gpt-5" on gateways

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_in + completion_tokens * self.price_out) / 1_000_000


RetrievalCheck = Literal["relevance", "draft"]


class LLMRoles(BaseModel):
    target: list[LLMEndpoint] = Field(default_factory=list)
    drafter: list[LLMEndpoint] = Field(default_factory=list)
    retrieval_check: RetrievalCheck = Field(
        default="relevance",
        description="relevance: the target only confirms that the shop's FAQ text answers the question, "
        "and the text is sent as written; draft: the FAQ text is a draft verified like a model's "
        "(token or judge mode), so the reply is in the target's own words",
    )
    retries: int = Field(default=3, ge=0, description="attempts per endpoint after the first")
    reply_deadline: float = Field(
        default=20.0,
        gt=0,
        description="seconds a reply may take in all; then the customer gets the FAQ text the target "
        "confirmed, or an offer of a person, and the reason is logged",
    )
    cooldown_after_failures: int = Field(default=3, gt=0)
    cooldown_seconds: float = Field(default=30.0, ge=0)
