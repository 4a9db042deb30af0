"""What an operator's Prometheus scrapes from `/metrics`: one registry per process (per app).

Counters move where the facts are final: an update's outcome when its handling
ends (with its intent, route, latency and LLM calls), a Telegram error when the
retry policy gave up or never retried. Gauges that live in the database (the
inbox backlog, open hand-offs) are read when scraped.
"""

from __future__ import annotations

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflictError,
    TelegramEntityTooLarge,
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.methods import Response, TelegramMethod
from aiogram.methods.base import TelegramType
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from services.admin.conversation_log import Interaction, Outcome
from services.inbox.durable import Receipt

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
CONTENT_TYPE = CONTENT_TYPE_LATEST

_ERROR_CODES: tuple[tuple[type[TelegramAPIError], str], ...] = (
    (TelegramRetryAfter, "429"),
    (TelegramBadRequest, "400"),
    (TelegramUnauthorizedError, "401"),
    (TelegramForbiddenError, "403"),
    (TelegramNotFound, "404"),
    (TelegramConflictError, "409"),
    (TelegramEntityTooLarge, "413"),
    (TelegramServerError, "5xx"),
    (TelegramNetworkError, "network"),
)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        registry = self.registry
        self.received = Counter(
            "csbot_updates_received",
            "Updates taken in, by kind and what the inbox did with them",
            ["kind", "stored"],
            registry=registry,
        )
        self.updates = Counter(
            "csbot_updates",
            "Updates handled, by outcome, intent and route",
            ["status", "intent", "route"],
            registry=registry,
        )
        self.update_seconds = Histogram(
            "csbot_update_seconds",
            "Time to handle one update",
            ["intent"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.telegram_errors = Counter(
            "csbot_telegram_errors",
            "Bot API calls that failed (after retries), by method and code",
            ["method", "code"],
            registry=registry,
        )
        self.llm_calls = Counter(
            "csbot_llm_calls",
            "LLM API calls by endpoint, purpose and outcome",
            ["endpoint", "kind", "outcome"],
            registry=registry,
        )
        self.llm_tokens = Counter(
            "csbot_llm_tokens",
            "LLM tokens by endpoint and direction",
            ["endpoint", "direction"],
            registry=registry,
        )
        self.llm_cost = Counter(
            "csbot_llm_cost_usd", "LLM cost in USD by endpoint", ["endpoint"], registry=registry
        )
        self.llm_ttft = Histogram(
            "csbot_llm_ttft_seconds",
            "Time to the first token of an LLM call",
            ["endpoint", "kind"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.draft_tokens = Counter(
            "csbot_draft_tokens",
            "Drafted tokens, and those the target accepted",
            ["outcome"],
            registry=registry,
        )
        self.inbox_backlog = Gauge(
            "csbot_inbox_backlog",
            "Stored updates not answered yet (being handled or waiting)",
            registry=registry,
        )
        self.handoffs_open = Gauge(
            "csbot_handoffs_open", "Hand-offs to a person still open", registry=registry
        )

    def record_arrival(self, kind: str, receipt: object) -> None:
        stored = receipt.value if isinstance(receipt, Receipt) else "inbox"  # inbox, journaled, duplicate
        self.received.labels(kind, stored).inc()

    def record_outcome(self, interaction: Interaction, outcome: Outcome, seconds: float) -> None:
        intent = interaction.intent or "none"
        self.updates.labels(outcome.status.value, intent, interaction.route or "none").inc()
        self.update_seconds.labels(intent).observe(seconds)
        report = interaction.llm
        if report is None:
            return
        self.draft_tokens.labels("drafted").inc(report.draft_tokens)
        self.draft_tokens.labels("accepted").inc(report.accepted_tokens)
        for call in report.ledger.calls:
            self.llm_calls.labels(call.endpoint, call.kind, "error" if call.error else "ok").inc()
            self.llm_tokens.labels(call.endpoint, "prompt").inc(call.prompt_tokens)
            self.llm_tokens.labels(call.endpoint, "completion").inc(call.completion_tokens)
            self.llm_cost.labels(call.endpoint).inc(call.cost_usd)
            if call.ttft_ms is not None:
                self.llm_ttft.labels(call.endpoint, call.kind).observe(call.ttft_ms / 1000)

    def record_telegram_error(self, method: str, error: TelegramAPIError) -> None:
        code = next((code for kind, code in _ERROR_CODES if isinstance(error, kind)), "other")
        self.telegram_errors.labels(method, code).inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


class TelegramErrorCounter(BaseRequestMiddleware):
    """Outermost on the bot's session: counts each call that finally failed, once."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        try:
            return await make_request(bot, method)
        except TelegramAPIError as error:
            self._metrics.record_telegram_error(method.__api_method__, error)
            raise
