"""The record admins read: every inbound message, what the bot made of it, what it sent.

The inbound row is stored by the inbox before anything that can fail runs; this
module fills it in when handling ends: the outcome (answered, failed, or back to
received for another try), the classification, and every message the bot tried
to send, with its status. When the database is down at that moment, the same
record goes to the local journal and is written on replay, so an answer that
reached the customer is never handled (and sent) a second time.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundStatus, OutboundStatus
from db.repositories import inbox as inbox_rows
from db.types import utcnow
from services.admin.figures import streamed_dont_know
from services.llm.speculative import ReplyReport
from services.replies import Reply, ReplyRoute
from services.understanding.classifier import Classification


@dataclass
class SentMessage:
    method: str
    chat_id: int | None
    text: str
    status: str = OutboundStatus.SENT
    error: str | None = None
    retryable: bool = False
    """The failure was Telegram's (5xx, 429, network): a later try may get through."""
    retry_after: float | None = None
    """Telegram's flood wait (429 `retry_after`, seconds) when it refused the message for that."""
    final: bool = True
    """A message the customer keeps (not a streaming preview that a later edit replaces)."""
    landed: bool = False
    """Telegram accepted it although the sending task was cancelled while the call was in flight."""
    logged: bool = False
    """Its outbound row is written already (the delivery mark), so the outcome leaves it out."""
    notice: bool = False
    """A note about the bot's own trouble ("we got your message"), not the answer: it does not
    count as delivering the reply."""
    payload: str | None = None
    """A message refused in a way a later try can fix: the call as JSON, to send again as it was."""
    buttons: str | None = None
    """The labels of the buttons it offered, as a JSON list."""


@dataclass
class Interaction:
    """What happened while handling one update; filled in as handling goes."""

    inbound_id: int
    user_id: int | None
    chat_id: int | None = None
    attempt: int = 1
    apologized: bool = False
    started: float = field(default_factory=time.perf_counter)
    intent: str | None = None
    confidence: float | None = None
    entities: dict[str, Any] = field(default_factory=dict)
    route: str | None = None
    answer_source: str | None = None
    error: str | None = None
    dont_know: bool = False
    """The reply said the bot has no answer (see `Reply.dont_know`, `answered_stream`)."""
    sent: list[SentMessage] = field(default_factory=list)
    llm: ReplyReport | None = None
    """Draft/verify metrics and API calls when an LLM-service answer was streamed."""
    on_delivered: Callable[[SentMessage], Awaitable[None]] | None = field(default=None, repr=False)
    """Writes the delivery mark of a message the customer received, right after Telegram took it."""

    def classified(self, classification: Classification) -> None:
        self.intent = classification.intent.value
        self.confidence = classification.confidence
        self.entities = {**classification.entities.as_dict(), "cues": list(classification.cues)}

    def answered(self, reply: Reply) -> None:
        self.route = reply.route or self.route
        self.answer_source = reply.source.value
        self.dont_know = reply.dont_know

    def answered_stream(self, committed: str, report: ReplyReport) -> None:
        """A streamed answer ended with `committed` sent: it said "I don't know" when nothing
        verified came of it (the bot's own no-answer reply follows), or a model said so anyway."""
        self.llm = report
        self.dont_know = streamed_dont_know(committed, report)

    def routed(self, route: ReplyRoute, source: str | None = None) -> None:
        self.route = route
        if source is not None:
            self.answer_source = source

    def failed(self, error: BaseException) -> None:
        self.error = f"{type(error).__name__}: {error}"[:2000]

    def delivered(self) -> bool:
        """Part of the reply reached the customer in this handling run (handling it again would
        repeat it); a notice about the bot's own trouble is not part of the reply."""
        return any(
            sent.chat_id == self.chat_id and sent.status == OutboundStatus.SENT and not sent.notice
            for sent in self.sent
        )

    def flood_wait(self) -> float | None:
        """The longest flood wait Telegram asked for on a message to the customer, if any."""
        waits = [
            sent.retry_after
            for sent in self.sent
            if sent.chat_id == self.chat_id and sent.status == OutboundStatus.FAILED and sent.retry_after
        ]
        return max(waits) if waits else None

    def owes(self) -> bool:
        """A message meant for the customer was refused in a way a later try can fix."""
        return any(
            sent.chat_id == self.chat_id
            and sent.final
            and not sent.notice
            and sent.status == OutboundStatus.FAILED
            and sent.retryable
            for sent in self.sent
        )

    def undelivered(self) -> bool:
        """Every message meant for the customer failed in a way a later try could fix."""
        to_customer = [sent for sent in self.sent if sent.chat_id == self.chat_id]
        return bool(to_customer) and all(
            sent.status == OutboundStatus.FAILED and sent.retryable for sent in to_customer
        )


@dataclass(frozen=True)
class Outcome:
    status: InboundStatus
    reason: str | None = None
    retry_at: datetime | None = None
    """For RECEIVED: when another try may start (None: at once)."""
    refund_attempt: bool = False
    """For RECEIVED: the try that ends here does not count against `max_attempts` (a flood wait,
    or a turn given to the chat's earlier message: nothing was tried)."""

    @classmethod
    def retry_in(cls, seconds: float, reason: str, *, refund_attempt: bool = False) -> Outcome:
        return cls(
            InboundStatus.RECEIVED,
            reason,
            utcnow() + timedelta(seconds=seconds),
            refund_attempt=refund_attempt,
        )


ANSWERED = Outcome(InboundStatus.ANSWERED)


current_interaction: ContextVar[Interaction | None] = ContextVar("current_interaction", default=None)
"""Lets the outgoing-request hook attach what the bot sends to the update being handled."""

sending_notice: ContextVar[bool] = ContextVar("sending_notice", default=False)
"""Set while the bot sends a notice (its own trouble, a message read only in part): what is sent
then is not the answer (`as_notice`)."""


@contextmanager
def as_notice() -> Iterator[None]:
    """Messages sent inside are notices: "we got your message", "I read only the first part". They
    never count as the reply having been delivered, so a later try still answers."""
    token = sending_notice.set(True)
    try:
        yield
    finally:
        sending_notice.reset(token)


def outcome_record(interaction: Interaction, outcome: Outcome) -> dict[str, Any]:
    """Everything `write_outcome` needs, as JSON-able data (it may go through the journal)."""
    return {
        "type": "outcome",
        "inbound_id": interaction.inbound_id,
        "user_id": interaction.user_id,
        "status": outcome.status.value,
        "reason": outcome.reason,
        "retry_at": outcome.retry_at.isoformat() if outcome.retry_at else None,
        "refund_attempt": outcome.refund_attempt,
        "apologized": interaction.apologized,
        "intent": interaction.intent,
        "confidence": interaction.confidence,
        "entities": interaction.entities,
        "route": interaction.route,
        "answer_source": interaction.answer_source,
        "error": interaction.error,
        "dont_know": interaction.dont_know,
        "latency_ms": round((time.perf_counter() - interaction.started) * 1000, 3),
        # flat: asdict's deep copy cost 0.15 ms; messages whose delivery mark is written are left out
        "sent": [_sent_record(sent) for sent in interaction.sent if not sent.logged],
    }


async def write_outcome(
    session: AsyncSession, record: dict[str, Any], llm: ReplyReport | None = None
) -> None:
    """Fill in the inbound row and add the outbound rows, in the caller's transaction.

    The row is updated without being read first (one statement, not two); a row that
    is no longer waiting was written already (a journal replay) and is left alone.
    """
    inbound_id = record["inbound_id"]
    values: dict[str, Any] = {
        "status": record["status"],
        "status_reason": record["reason"],
        "lease_until": datetime.fromisoformat(record["retry_at"]) if record["retry_at"] else None,
        **{
            name: record[name]
            for name in ("intent", "confidence", "entities", "route", "answer_source", "error", "latency_ms")
        },
        "dont_know": record.get("dont_know"),  # None: journalled before the answering path said
    }
    if record["apologized"]:
        values["apologized"] = True  # never set back: an apology once sent stays sent
    if not await inbox_rows.record_outcome(
        session, inbound_id, values, refund_attempt=bool(record.get("refund_attempt"))
    ):
        return
    user_id = record["user_id"]
    await inbox_rows.add_outbound(
        session, [outbound_row(inbound_id, user_id, sent) for sent in record["sent"]]
    )
    if llm is not None:
        await _store_llm_report(session, inbound_id, llm)


def _sent_record(sent: SentMessage) -> dict[str, Any]:
    return {
        "method": sent.method,
        "chat_id": sent.chat_id,
        "text": sent.text,
        "status": sent.status,
        "error": sent.error,
        "notice": sent.notice,
        "payload": sent.payload,
        "buttons": sent.buttons,
    }


def outbound_row(inbound_id: int, user_id: int | None, sent: dict[str, Any]) -> dict[str, Any]:
    """The outbound row of a message (as `_sent_record` gives it) sent while handling `inbound_id`."""
    return {
        "inbound_id": inbound_id,
        "chat_id": sent["chat_id"],
        "telegram_user_id": sent["chat_id"] if sent["chat_id"] == user_id else None,
        "method": sent["method"],
        "text": sent["text"],
        "status": sent["status"],
        "error": sent["error"],
        "notice": bool(sent.get("notice")),
        "payload": sent.get("payload"),
        "buttons": sent.get("buttons"),
    }


def delivery_mark(inbound_id: int, user_id: int | None, sent: SentMessage) -> dict[str, Any]:
    """The outbound row written the moment the customer received `sent` (see `Interaction.on_delivered`)."""
    return outbound_row(inbound_id, user_id, _sent_record(sent))


async def _store_llm_report(session: AsyncSession, inbound_id: int, report: ReplyReport) -> None:
    ledger = report.ledger
    reply = {
        "inbound_id": inbound_id,
        "mode": report.mode.label,
        "drafter": report.drafter,
        "draft_tokens": report.draft_tokens,
        "accepted_tokens": report.accepted_tokens,
        "verify_calls": report.verify_calls,
        "ttft_ms": round(report.ttft_ms, 3) if report.ttft_ms is not None else None,
        "total_ms": round(report.total_ms, 3),
        "prompt_tokens": ledger.prompt_tokens,
        "completion_tokens": ledger.completion_tokens,
        "cost_usd": ledger.cost_usd,
        "dropped_turns": report.dropped_turns,
        "guard": report.guard,
        "fallback_reason": report.fallback_reason,
        "arm": report.arm,
    }
    await inbox_rows.add_llm_reply(session, reply, [asdict(call) for call in ledger.calls])
