"""Storing, claiming and re-claiming inbound updates."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, InboundStatus


async def store(session: AsyncSession, row: InboundMessage) -> InboundMessage | None:
    """Insert and commit; None when this bot already stored this update id (a re-delivery)."""
    session.add(row)
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        return None
    return row


def _unowned(now: datetime) -> ColumnElement[bool]:
    return or_(col(InboundMessage.lease_until).is_(None), col(InboundMessage.lease_until) < now)


async def claim(
    session: AsyncSession, inbound_id: int, *, now: datetime, until: datetime
) -> InboundMessage | None:
    """Take the row for handling if nobody holds it; one statement, so two processes never both win."""
    result = await session.exec(  # type: ignore[call-overload]  # sqlmodel types exec() for selects only
        update(InboundMessage)
        .where(
            col(InboundMessage.id) == inbound_id,
            col(InboundMessage.status) == InboundStatus.RECEIVED,
            _unowned(now),
        )
        .values(lease_until=until, attempts=col(InboundMessage.attempts) + 1)
    )
    await session.commit()
    if result.rowcount != 1:
        return None
    return await session.get(InboundMessage, inbound_id, populate_existing=True)


async def due(session: AsyncSession, bot_id: int, *, now: datetime, limit: int) -> list[InboundMessage]:
    """Received, unanswered and held by nobody: oldest first."""
    statement = (
        select(InboundMessage)
        .where(
            col(InboundMessage.bot_id) == bot_id,
            col(InboundMessage.status) == InboundStatus.RECEIVED,
            _unowned(now),
        )
        .order_by(col(InboundMessage.id))
        .limit(limit)
    )
    return list((await session.exec(statement)).all())


async def release(session: AsyncSession, inbound_ids: Sequence[int], *, reason: str) -> None:
    """Give rows back (handling was interrupted) so they are handled again at once."""
    if not inbound_ids:
        return
    await session.exec(  # type: ignore[call-overload]
        update(InboundMessage)
        .where(
            col(InboundMessage.id).in_(list(inbound_ids)),
            col(InboundMessage.status) == InboundStatus.RECEIVED,
        )
        .values(lease_until=None, status_reason=reason)
    )
    await session.commit()


async def abandon(session: AsyncSession, inbound_id: int, *, reason: str) -> None:
    await session.exec(  # type: ignore[call-overload]
        update(InboundMessage)
        .where(col(InboundMessage.id) == inbound_id)
        .values(status=InboundStatus.ABANDONED, status_reason=reason, lease_until=None)
    )
    await session.commit()


async def earlier_in_flight(
    session: AsyncSession, bot_id: int, chat_id: int, inbound_id: int, *, since: datetime
) -> int | None:
    statement = (
        select(InboundMessage.id)
        .where(
            col(InboundMessage.bot_id) == bot_id,
            col(InboundMessage.chat_id) == chat_id,
            col(InboundMessage.id) < inbound_id,
            col(InboundMessage.status) == InboundStatus.RECEIVED,
            col(InboundMessage.created_at) >= since,
        )
        .order_by(col(InboundMessage.id))
        .limit(1)
    )
    return (await session.exec(statement)).first()


async def defer(session: AsyncSession, inbound_id: int, *, until: datetime) -> None:
    """Back to waiting, without counting the try that did not happen."""
    await session.exec(  # type: ignore[call-overload]
        update(InboundMessage)
        .where(col(InboundMessage.id) == inbound_id, col(InboundMessage.status) == InboundStatus.RECEIVED)
        .values(lease_until=until, attempts=col(InboundMessage.attempts) - 1)
    )
    await session.commit()
