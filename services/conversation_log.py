"""The record admins read: every inbound message, what the bot made of it, what it sent.

The inbound row is written before any handler runs, in its own session, so a
failure later in handling can only add the error to it, never lose it.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, LLMCall, LLMReply, OutboundMessage
from services.classifier import Classification
from services.llm.speculative import ReplyReport
from services.replies import Reply


@dataclass
class SentMessage:
    method: str
    chat_id: int | None
    text: str


@dataclass
class Interaction:
    """What happened while handling one update; filled in as handling goes."""

    inbound_id: int
    user_id: int | None
    started: float = field(default_factory=time.perf_counter)
    intent: str | None = None
    confidence: float | None = None
    entities: dict[str, Any] = field(default_factory=dict)
    route: str | None = None
    answer_source: str | None = None
    error: str | None = None
    sent: list[SentMessage] = field(default_factory=list)
    llm: ReplyReport | None = None
    """Draft/verify metrics and API calls when an LLM-service answer was streamed."""

    def classified(self, classification: Classification) -> None:
        self.intent = classification.intent.value
        self.confidence = classification.confidence
        self.entities = {**classification.entities.as_dict(), "cues": list(classification.cues)}

    def answered(self, reply: Reply) -> None:
        self.route = reply.route or self.route
        self.answer_source = reply.source.value

    def routed(self, route: str, source: str | None = None) -> None:
        self.route = route
        if source is not None:
            self.answer_source = source

    def failed(self, error: BaseException) -> None:
        self.error = f"{type(error).__name__}: {error}"[:2000]


current_interaction: ContextVar[Interaction | None] = ContextVar("current_interaction", default=None)
"""Lets the outgoing-request hook attach what the bot sends to the update being handled."""


class ConversationLog:
    def __init__(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        self._session_factory = session_factory

    async def open(
        self,
        *,
        update_id: int | None,
        user_id: int | None,
        chat_id: int | None,
        kind: str,
        text: str,
    ) -> Interaction | None:
        """Store the inbound message; None when this update was already received.

        Telegram re-delivers updates after a timeout or a webhook error; the
        unique update_id makes the second delivery a no-op instead of a second
        answer (or a second return request).
        """
        row = InboundMessage(
            update_id=update_id, telegram_user_id=user_id, chat_id=chat_id, kind=kind, text=text
        )
        async with self._session_factory() as session:
            session.add(row)
            try:
                await session.commit()
            except IntegrityError:
                return None
        assert row.id is not None
        return Interaction(inbound_id=row.id, user_id=user_id)

    async def close(self, interaction: Interaction) -> None:
        latency_ms = (time.perf_counter() - interaction.started) * 1000
        async with self._session_factory() as session:
            row = await session.get(InboundMessage, interaction.inbound_id)
            if row is None:
                return
            row.intent = interaction.intent
            row.confidence = interaction.confidence
            row.entities = interaction.entities
            row.route = interaction.route
            row.answer_source = interaction.answer_source
            row.error = interaction.error
            row.latency_ms = round(latency_ms, 3)
            session.add(row)
            for sent in interaction.sent:
                session.add(
                    OutboundMessage(
                        inbound_id=interaction.inbound_id,
                        chat_id=sent.chat_id,
                        telegram_user_id=sent.chat_id if sent.chat_id == interaction.user_id else None,
                        method=sent.method,
                        text=sent.text,
                    )
                )
            if interaction.llm is not None:
                await _store_llm_report(session, interaction.inbound_id, interaction.llm)
            await session.commit()


async def _store_llm_report(session: AsyncSession, inbound_id: int, report: ReplyReport) -> None:
    ledger = report.ledger
    reply = LLMReply(
        inbound_id=inbound_id,
        mode=report.mode,
        drafter=report.drafter,
        draft_tokens=report.draft_tokens,
        accepted_tokens=report.accepted_tokens,
        verify_calls=report.verify_calls,
        ttft_ms=round(report.ttft_ms, 3) if report.ttft_ms is not None else None,
        total_ms=round(report.total_ms, 3),
        prompt_tokens=ledger.prompt_tokens,
        completion_tokens=ledger.completion_tokens,
        cost_usd=ledger.cost_usd,
        dropped_turns=report.dropped_turns,
        guard=report.guard,
        fallback_reason=report.fallback_reason,
    )
    session.add(reply)
    await session.flush()
    assert reply.id is not None
    session.add_all(LLMCall(reply_id=reply.id, **asdict(call)) for call in ledger.calls)
