"""What an OpenAI-compatible endpoint is, as the shop configures it."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

REASONING_MODEL = re.compile(r"(o\d|gpt-5)(?!\d)", re.IGNORECASE)
"""OpenAI's reasoning families: o1, o3, o4-mini, gpt-5, gpt-5.1-mini... (not gpt-50, not o10)."""


VerifyMode = Literal["auto", "token", "judge"]


class _Keys(BaseModel):
    """A part of CSBOT_LLM: a key csbot does not know (`"targets"`) stops the start with its name,
    instead of being ignored and leaving the shop without the model it configured."""

    model_config = ConfigDict(extra="forbid")


class LLMEndpoint(_Keys):
    """One deployment of a model behind an OpenAI-compatible API.

    A role (target or drafter) lists several: the first that is not cooling
    down serves, the rest are the fallback chain.
    """

    base_url: str = Field(description="the API's base URL, e.g. https://api.openai.com/v1")
    model: str = Field(description="the model name the endpoint serves")
    api_keys: list[SecretStr] = Field(default_factory=list, description="rotated on 401/429")
    context_window: int = Field(
        default=8192, gt=256, description="tokens the model reads at once; older turns are dropped to fit"
    )
    price_in: float = Field(default=0.0, ge=0, description="USD per million input tokens")
    price_out: float = Field(default=0.0, ge=0, description="USD per million output tokens")
    rpm: int | None = Field(default=None, gt=0, description="requests a minute the endpoint allows")
    tpm: int | None = Field(
        default=None,
        gt=0,
        description="tokens a minute the endpoint allows, corrected from the usage reported",
    )
    max_concurrency: int = Field(
        default=4, gt=0, description="calls and streams at once; one when the probe saw two streams break"
    )
    timeout: float = Field(default=30.0, gt=0, description="seconds per request")
    first_token_timeout: float = Field(default=15.0, gt=0, description="seconds to the first streamed token")
    verify: VerifyMode = Field(
        default="auto",
        description="token: /v1/completions echo+logprobs (vLLM-style); judge: chat-only APIs",
    )
    tokenizer: str | None = Field(
        default=None,
        description="`o200k_base`, `cl100k_base` or `gguf:<path>`; guessed for OpenAI models; other "
        "models are counted exactly with their `/tokenize`",
    )
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


RetrievalCheck = Literal["relevance", "draft", "shop_text"]


# --- canary arms: several configurations side by side, by weight ---------------

ARM_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"
"""Short enough for a Telegram command (`/canary gpt-5-mini 5`) and a log column."""
REPLY_DEADLINE_SECONDS = 20.0
"""A reply's time in all, by default (`reply_deadline`), wherever an answerer is built."""


class GuardRule(_Keys):
    """Trips when the canary's value exceeds `ratio` x the baseline's plus `margin` (the metric's unit).

    The margin keeps a tiny baseline (0 guard rejections) from making any single event a breach.
    """

    ratio: float = Field(default=2.0, gt=0, description="times the baseline's value the canary may reach")
    margin: float = Field(default=0.0, ge=0, description="plus this much, in the metric's unit")

    def limit(self, baseline: float) -> float:
        return baseline * self.ratio + self.margin


def _rule(ratio: float, margin: float, description: str) -> Any:
    """A rail's field: its default rule, and what it measures."""
    return Field(default_factory=lambda: GuardRule(ratio=ratio, margin=margin), description=description)


class GuardRails(_Keys):
    """Per-arm limits relative to the baseline arm; judged only once both arms have `min_sample` answers."""

    min_sample: int = Field(default=100, ge=1, description="answers each arm needs before a rule is judged")
    error_rate: GuardRule | None = _rule(
        2.0, 0.02, "share of answers where the model failed and the FAQ text or a person took over"
    )
    guard_rejection_rate: GuardRule | None = _rule(
        2.0, 0.02, "share of answers the fact guard stopped (an invented number, date, link...)"
    )
    dont_know_rate: GuardRule | None = _rule(2.0, 0.05, "share of answers where the bot said it did not know")
    p95_latency_ms: GuardRule | None = _rule(
        1.5, 250.0, "the 95th percentile of a reply's time, in milliseconds"
    )
    cost_per_answer_usd: GuardRule | None = _rule(1.5, 0.0, "model cost per answer, in USD")
    check_every_seconds: float = Field(default=30.0, ge=0, description="how often the rails are judged")

    def rules(self) -> dict[str, GuardRule]:
        named = {
            "error_rate": self.error_rate,
            "guard_rejection_rate": self.guard_rejection_rate,
            "dont_know_rate": self.dont_know_rate,
            "p95_latency_ms": self.p95_latency_ms,
            "cost_per_answer_usd": self.cost_per_answer_usd,
        }
        return {name: rule for name, rule in named.items() if rule is not None}


class CanaryArm(_Keys):
    """A named alternative to the baseline chain, served to `weight` percent of customers.

    Roles it leaves out are the baseline's: an arm that only names a `drafter` tries a new
    drafter behind the same target, so the comparison isolates that one change.
    """

    name: str = Field(pattern=ARM_NAME, description="how reports, logs and `/canary` name the arm")
    weight: float = Field(default=0.0, ge=0, le=100, description="percent of customers")
    target: list[LLMEndpoint] | None = Field(default=None, description="the arm's own target chain")
    drafter: list[LLMEndpoint] | None = Field(default=None, description="the arm's own drafter chain")
    retrieval_check: RetrievalCheck | None = Field(default=None, description="the arm's own retrieval check")
    guard_rails: GuardRails | None = Field(
        default=None,
        description="this arm's own rails (a riskier change, a stricter limit); else the shared ones",
    )


DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
DURATION_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def duration_seconds(value: object) -> object:
    """`90`, `30s`, `15m`, `6h`, `1d`: the way shops write a schedule's pace."""
    if isinstance(value, str):
        found = DURATION.match(value)
        if found is None:
            raise ValueError(f"expected a duration such as 30m, 6h or 1d, not {value!r}")
        return float(found.group(1)) * DURATION_SECONDS[found.group(2)]
    return value


class CanarySchedule(_Keys):
    """A gradual migration: the arm's weight steps up every `every` seconds while the rails hold."""

    arm: str = Field(pattern=ARM_NAME, description="the arm whose weight steps up")
    steps: list[float] = Field(
        default_factory=lambda: [5.0, 25.0, 50.0, 100.0],
        min_length=1,
        description="its weights in percent, increasing, the last at most 100",
    )
    every: float = Field(default=86400.0, gt=0, description="seconds per step; 30m, 6h, 1d are accepted")

    @field_validator("every", mode="before")
    @classmethod
    def _duration(cls, value: object) -> object:
        return duration_seconds(value)

    @field_validator("steps")
    @classmethod
    def _increasing(cls, steps: list[float]) -> list[float]:
        if any(not 0 < step <= 100 for step in steps) or steps != sorted(set(steps)):
            raise ValueError("steps must be increasing percentages above 0, at most 100")
        return steps


class LLMRole(StrEnum):
    """Which chain of endpoints a call goes to."""

    TARGET = "target"
    """The stronger model: it verifies, or writes alone."""
    DRAFTER = "drafter"
    """The cheap model that proposes drafts for the target to verify."""


class LLMRoles(_Keys):
    target: list[LLMEndpoint] = Field(
        default_factory=list,
        description="the model that verifies drafts or writes alone, endpoints in fallback order",
    )
    drafter: list[LLMEndpoint] = Field(
        default_factory=list,
        description="a cheaper model that drafts for the target, endpoints in fallback order",
    )
    retrieval_check: RetrievalCheck = Field(
        default="relevance",
        description="relevance: the target only confirms that the shop's FAQ text answers the question, "
        "and the text is sent as written; draft: the FAQ text is a draft verified like a model's "
        "(token or judge mode), so the reply is in the target's own words; shop_text: as relevance, "
        "and the model never writes: a question with no confirmed entry gets the closest entries "
        "confirmed one by one (the first YES is sent as written), else the bot's 'I don't know'",
    )
    retries: int = Field(default=3, ge=0, description="attempts per endpoint after the first")

    def endpoints(self, role: LLMRole) -> list[LLMEndpoint]:
        match role:
            case LLMRole.TARGET:
                return self.target
            case LLMRole.DRAFTER:
                return self.drafter

    reply_deadline: float = Field(
        default=REPLY_DEADLINE_SECONDS,
        gt=0,
        description="seconds a reply may take in all; then the customer gets the FAQ text the target "
        "confirmed, or an offer of a person, and the reason is logged",
    )
    cooldown_after_failures: int = Field(
        default=3, gt=0, description="failures in a row that rest an endpoint"
    )
    cooldown_seconds: float = Field(
        default=30.0, ge=0, description="how long it rests while the next one serves"
    )
    max_retry_wait: float = Field(
        default=30.0,
        ge=0,
        description="the longest a Retry-After is waited out when no reply deadline is set; an endpoint "
        "asking for longer rests that long and the fallback serves",
    )
    baseline: str = Field(
        default="baseline", pattern=ARM_NAME, description="the name of the chain above, as reports show it"
    )
    arms: list[CanaryArm] = Field(
        default_factory=list, description="canaries beside the baseline; it serves whoever they leave"
    )
    arm_salt: str = Field(
        default="csbot", description="mixed into the customer hash: change it to reshuffle who is in a canary"
    )
    guard_rails: GuardRails = Field(
        default_factory=GuardRails,
        description="limits each arm keeps against the baseline, or it is rolled back",
    )
    schedule: CanarySchedule | None = Field(
        default=None, description="steps one arm's weight up while its rails hold"
    )

    @model_validator(mode="after")
    def _arms_fit(self) -> LLMRoles:
        names = [self.baseline, *(arm.name for arm in self.arms)]
        if len(set(names)) != len(names):
            raise ValueError(f"arm names must differ from each other and from the baseline: {names}")
        if sum(arm.weight for arm in self.arms) > 100:
            raise ValueError("the arms' weights add up to more than 100 percent")
        if self.schedule is not None and self.schedule.arm not in names[1:]:
            raise ValueError(f"the schedule names arm {self.schedule.arm!r}, which is not among the arms")
        return self

    def rails_for(self, name: str) -> GuardRails:
        arm = self.arm(name)
        return arm.guard_rails if arm is not None and arm.guard_rails is not None else self.guard_rails

    def arm(self, name: str) -> CanaryArm | None:
        return next((arm for arm in self.arms if arm.name == name), None)

    def arm_roles(self, name: str) -> LLMRoles:
        """One arm's chains as a configuration of their own (the baseline's where the arm names none)."""
        update: dict[str, object] = {"arms": [], "schedule": None}
        arm = self.arm(name)
        if arm is not None:
            update.update(
                target=arm.target if arm.target is not None else self.target,
                drafter=arm.drafter if arm.drafter is not None else self.drafter,
                retrieval_check=arm.retrieval_check or self.retrieval_check,
            )
        elif name != self.baseline:
            raise KeyError(name)
        return self.model_copy(update=update)


def known_keys() -> frozenset[str]:
    """Every key CSBOT_LLM's JSON may hold, at any depth (for "did you mean" suggestions)."""
    models: tuple[type[BaseModel], ...] = (
        LLMEndpoint,
        GuardRule,
        GuardRails,
        CanaryArm,
        CanarySchedule,
        LLMRoles,
    )
    return frozenset(name for model in models for name in model.model_fields)
