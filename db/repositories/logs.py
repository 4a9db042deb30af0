from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from sqlalchemy import or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, OutboundMessage


async def inbound(
    session: AsyncSession,
    *,
    user_id: int | None = None,
    intent: str | None = None,
    since: datetime | None = None,
    limit: int = 20,
    exclude_users: Collection[int] = (),
) -> list[InboundMessage]:
    """Newest `limit` messages matching the filters, returned oldest first.

    `exclude_users` (the admins) keeps the admins' own commands out of a customer log,
    unless a user filter asks for them explicitly.
    """
    statement = select(InboundMessage)
    if user_id is not None:
        statement = statement.where(InboundMessage.telegram_user_id == user_id)
    elif exclude_users:
        statement = statement.where(col(InboundMessage.telegram_user_id).not_in(list(exclude_users)))
    if intent is not None:
        statement = statement.where(InboundMessage.intent == intent)
    if since is not None:
        statement = statement.where(InboundMessage.created_at >= since)
    statement = statement.order_by(col(InboundMessage.id).desc()).limit(limit)
    rows = list((await session.exec(statement)).all())
    rows.reverse()
    return rows


async def replies_to(session: AsyncSession, inbound_ids: Sequence[int]) -> list[OutboundMessage]:
    if not inbound_ids:
        return []
    statement = (
        select(OutboundMessage)
        .where(col(OutboundMessage.inbound_id).in_(list(inbound_ids)))
        .order_by(col(OutboundMessage.id))
    )
    return list((await session.exec(statement)).all())


async def conversation(
    session: AsyncSession, user_id: int, *, limit: int = 50
) -> list[InboundMessage | OutboundMessage]:
    """Both directions for one customer, in the order they happened."""
    received = await inbound(session, user_id=user_id, limit=limit)
    sent = (
        await session.exec(
            select(OutboundMessage)
            .where(
                or_(
                    OutboundMessage.telegram_user_id == user_id,
                    OutboundMessage.chat_id == user_id,
                )
            )
            .order_by(col(OutboundMessage.id).desc())
            .limit(limit)
        )
    ).all()
    merged: list[InboundMessage | OutboundMessage] = [*received, *sent]
    merged.sort(key=lambda row: (row.created_at, isinstance(row, OutboundMessage)))
    return merged[-limit:]
