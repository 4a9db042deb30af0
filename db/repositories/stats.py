"""The rows admins' figures are made of: customer messages and answers of a period."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import NamedTuple

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, LLMReply
from db.repositories.logs import customer_traffic


class MessageFigures(NamedTuple):
    """What `/stats` and the dashboard count of one customer message."""

    id: int
    chat_id: int | None
    created_at: datetime
    intent: str | None
    latency_ms: float | None
    error: str | None
    route: str | None
    answer_source: str | None
    dont_know: bool | None


async def customer_messages_since(
    session: AsyncSession, *, since: datetime, exclude_users: Collection[int] = ()
) -> list[MessageFigures]:
    """Every customer message since `since` (staff traffic and `exclude_users` left out), unordered."""
    statement = select(  # type: ignore[call-overload, misc]  # overloads stop at 4 columns
        InboundMessage.id,
        InboundMessage.chat_id,
        InboundMessage.created_at,
        InboundMessage.intent,
        InboundMessage.latency_ms,
        InboundMessage.error,
        InboundMessage.route,
        InboundMessage.answer_source,
        InboundMessage.dont_know,
    ).where(col(InboundMessage.created_at) >= since, customer_traffic())
    if exclude_users:
        statement = statement.where(col(InboundMessage.telegram_user_id).not_in(list(exclude_users)))
    return [MessageFigures(*row) for row in (await session.exec(statement)).all()]


async def llm_replies_since(session: AsyncSession, *, since: datetime) -> list[LLMReply]:
    """Every answer the answer service logged since `since`, unordered."""
    statement = select(LLMReply).where(col(LLMReply.created_at) >= since)
    return list((await session.exec(statement)).all())


async def answers_with_senders(
    session: AsyncSession,
    *,
    since: datetime | None = None,
    after_reply: int | None = None,
    arms: Collection[str] | None = None,
    exclude_users: Collection[int] = (),
) -> list[tuple[LLMReply, int | None, int | None, bool | None]]:
    """(answer, Telegram user id, chat id, its message's `dont_know`) of every logged answer since
    `since` or after the `after_reply` id, of `arms` only when given, unordered."""
    statement = select(
        LLMReply, InboundMessage.telegram_user_id, InboundMessage.chat_id, InboundMessage.dont_know
    ).join(InboundMessage, col(InboundMessage.id) == col(LLMReply.inbound_id))
    if since is not None:
        statement = statement.where(col(LLMReply.created_at) >= since)
    if after_reply is not None:
        statement = statement.where(col(LLMReply.id) > after_reply)
    if arms is not None:
        statement = statement.where(col(LLMReply.arm).in_(list(arms)))
    if exclude_users:
        statement = statement.where(col(InboundMessage.telegram_user_id).not_in(list(exclude_users)))
    return list((await session.exec(statement)).all())
