from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from sqlalchemy import or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, InboundStatus, OutboundMessage, OutboundStatus

NOT_ANSWERED = (InboundStatus.FAILED, InboundStatus.ABANDONED)


async def inbound(
    session: AsyncSession,
    *,
    user_id: int | None = None,
    intent: str | None = None,
    since: datetime | None = None,
    limit: int = 20,
    exclude_users: Collection[int] = (),
    failed: bool = False,
) -> list[InboundMessage]:
    """Newest `limit` messages matching the filters, returned oldest first.

    `exclude_users` (the admins) keeps the admins' own commands out of a customer log,
    unless a user filter asks for them explicitly. `failed` keeps what needs an admin:
    messages that failed or were abandoned, and messages with a reply Telegram refused.
    """
    statement = select(InboundMessage)
    if failed:
        refused = select(OutboundMessage.inbound_id).where(OutboundMessage.status == OutboundStatus.FAILED)
        statement = statement.where(
            or_(col(InboundMessage.status).in_(NOT_ANSWERED), col(InboundMessage.id).in_(refused))
        )
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
    session: AsyncSession, user_id: int, *, limit: int = 50, delivered_only: bool = False
) -> list[InboundMessage | OutboundMessage]:
    """Both directions for one customer, in the order they happened.

    `delivered_only` leaves out replies Telegram refused: the customer never read them,
    so a model must not take them for something it said.
    """
    received = await inbound(session, user_id=user_id, limit=limit)
    statement = select(OutboundMessage).where(
        or_(
            col(OutboundMessage.telegram_user_id) == user_id,
            col(OutboundMessage.chat_id) == user_id,
        )
    )
    if delivered_only:
        statement = statement.where(OutboundMessage.status == OutboundStatus.SENT)
    sent = (await session.exec(statement.order_by(col(OutboundMessage.id).desc()).limit(limit))).all()
    merged: list[InboundMessage | OutboundMessage] = [*received, *sent]
    merged.sort(key=lambda row: (row.created_at, isinstance(row, OutboundMessage)))
    return merged[-limit:]


async def outbound(session: AsyncSession, outbound_id: int) -> OutboundMessage | None:
    return await session.get(OutboundMessage, outbound_id)


async def mark_resent(session: AsyncSession, row: OutboundMessage) -> None:
    row.status = OutboundStatus.RESENT
    session.add(row)
    await session.commit()
