"""Storing, claiming and re-claiming inbound updates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, bindparam, func, insert, or_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, InboundStatus
from db.types import UTCDateTime


async def store(session: AsyncSession, row: InboundMessage) -> InboundMessage | None:
    """Insert and commit; None when this bot already stored this update id (a re-delivery)."""
    session.add(row)
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        return None
    return row


def _store_checked_statement() -> Any:
    """Built once (an aliased subquery costs more to build than to run): bound per call."""
    earlier = aliased(InboundMessage, name="earlier")
    inserted = InboundMessage.__table__  # type: ignore[attr-defined]
    # Every row this statement can see is older than the one it inserts (SQLite writes one at a
    # time; a PostgreSQL row committed before the statement began took its id before it): the
    # new row itself is left out by its update id, which is unique per bot.
    earlier_id = (
        select(func.min(earlier.id))
        .where(
            col(earlier.bot_id) == bindparam("earlier_bot_id"),
            col(earlier.chat_id) == bindparam("earlier_chat_id"),
            col(earlier.update_id) != bindparam("earlier_update_id"),
            col(earlier.status) == InboundStatus.RECEIVED,
            col(earlier.created_at) >= bindparam("earlier_since", type_=UTCDateTime()),
        )
        .scalar_subquery()
    )
    return insert(InboundMessage).returning(inserted.c.id, earlier_id)


_STORE_CHECKED = _store_checked_statement()
_COLUMNS = [column.key for column in InboundMessage.__table__.c if column.key != "id"]  # type: ignore[attr-defined]


async def store_checked(
    session: AsyncSession, row: InboundMessage, *, since: datetime
) -> tuple[InboundMessage, int | None] | None:
    """Insert and commit, and learn in the same statement whether an earlier update of this
    chat (received since `since`) is still unanswered; None for a re-delivery.

    One round trip instead of two on every update: the check is a subquery in the
    INSERT's RETURNING clause (PostgreSQL and SQLite 3.35+ both allow it). It sees what
    `earlier_in_flight` would see right after the commit, except rows committed in
    between, which that check could miss just the same.
    """
    parameters = {name: getattr(row, name) for name in _COLUMNS}
    parameters.update(
        earlier_bot_id=row.bot_id,
        earlier_chat_id=row.chat_id,
        earlier_update_id=row.update_id,
        earlier_since=since,
    )
    try:
        result = await session.exec(_STORE_CHECKED, params=parameters)  # type: ignore[call-overload]
        inbound_id, earlier_in_flight = result.one()
        await session.commit()
    except IntegrityError:
        await session.rollback()
        return None
    row.id = inbound_id
    return row, earlier_in_flight


async def record_outcome(session: AsyncSession, inbound_id: int, values: Mapping[str, Any]) -> bool:
    """Fill in how handling ended, in the caller's transaction, without reading the row first;
    False when the row is no longer waiting (written already: a journal replay of a write
    that did land)."""
    result = await session.exec(  # type: ignore[call-overload]
        update(InboundMessage)
        .where(col(InboundMessage.id) == inbound_id, col(InboundMessage.status) == InboundStatus.RECEIVED)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount == 1)


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
