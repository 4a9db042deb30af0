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

from db.core_rows import column_values
from db.models import InboundMessage, InboundStatus, LLMCall, LLMReply, OutboundMessage, OutboundStatus
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
    # Earlier means earlier in Telegram's order: a lower update id (Telegram numbers a bot's
    # updates in increasing order), whichever process or journal stored it first.
    earlier_id = (
        select(func.min(earlier.id))
        .where(
            col(earlier.bot_id) == bindparam("earlier_bot_id"),
            col(earlier.chat_id) == bindparam("earlier_chat_id"),
            col(earlier.update_id) < bindparam("earlier_update_id"),
            col(earlier.status) == InboundStatus.RECEIVED,
            col(earlier.created_at) >= bindparam("earlier_since", type_=UTCDateTime()),
        )
        .scalar_subquery()
    )
    return insert(inserted).returning(inserted.c.id, earlier_id)


_STORE_CHECKED = _store_checked_statement()


async def insert_checked(
    session: AsyncSession, values: Mapping[str, Any], *, since: datetime
) -> tuple[int, int | None]:
    """Insert the row's `values` in the caller's transaction, and learn in the same statement
    whether an earlier update of this chat (received since `since`) is still unanswered: the
    new row's id and that update's. A re-delivery raises IntegrityError (the unique update id).

    One round trip instead of two on every update: the check is a subquery in the
    INSERT's RETURNING clause (PostgreSQL and SQLite 3.35+ both allow it). It sees what
    `earlier_in_flight` would see right after the commit, except rows committed in
    between, which that check could miss just the same; an earlier update written in the
    same transaction (a group commit) it sees. A Core statement: no ORM object is built or
    flushed for it.
    """
    parameters = {
        **values,
        "earlier_bot_id": values["bot_id"],
        "earlier_chat_id": values["chat_id"],
        "earlier_update_id": values["update_id"],
        "earlier_since": since,
    }
    connection = await session.connection()
    inbound_id, earlier_in_flight = (await connection.execute(_STORE_CHECKED, parameters)).one()
    return int(inbound_id), earlier_in_flight


_INBOUND = InboundMessage.__table__  # type: ignore[attr-defined]
_RECORD_OUTCOME = (
    update(_INBOUND)
    .where(_INBOUND.c.id == bindparam("row_id"), _INBOUND.c.status == InboundStatus.RECEIVED)
    .execution_options(synchronize_session=False)
)
"""Built once: the values to set come as parameters (a Core statement, no ORM bookkeeping)."""
_RECORD_OUTCOME_REFUNDED = _RECORD_OUTCOME.values(attempts=_INBOUND.c.attempts - 1)
"""The same, giving back the try its claim counted (nothing was tried: a flood wait)."""


async def record_outcome(
    session: AsyncSession, inbound_id: int, values: Mapping[str, Any], *, refund_attempt: bool = False
) -> bool:
    """Fill in how handling ended, in the caller's transaction, without reading the row first;
    False when the row is no longer waiting (written already: a journal replay of a write
    that did land)."""
    connection = await session.connection()
    statement = _RECORD_OUTCOME_REFUNDED if refund_attempt else _RECORD_OUTCOME
    result = await connection.execute(statement, {**values, "row_id": inbound_id})
    return bool(result.rowcount == 1)


async def delivered_to(session: AsyncSession, inbound_id: int, chat_id: int | None) -> bool:
    """Whether the outbound log shows a message delivered to `chat_id` for this update."""
    statement = (
        select(OutboundMessage.id)
        .where(
            col(OutboundMessage.inbound_id) == inbound_id,
            col(OutboundMessage.chat_id) == chat_id,
            col(OutboundMessage.notice).is_(False),
            col(OutboundMessage.status) == OutboundStatus.SENT,
        )
        .limit(1)
    )
    return (await session.exec(statement)).first() is not None


async def owed_to(session: AsyncSession, inbound_id: int, chat_id: int | None) -> list[OutboundMessage]:
    """Messages of this update refused for now (their call kept to send again), oldest first."""
    statement = (
        select(OutboundMessage)
        .where(
            col(OutboundMessage.inbound_id) == inbound_id,
            col(OutboundMessage.chat_id) == chat_id,
            col(OutboundMessage.status) == OutboundStatus.FAILED,
            col(OutboundMessage.payload).is_not(None),
        )
        .order_by(col(OutboundMessage.id))
    )
    return list((await session.exec(statement)).all())


async def supersede(session: AsyncSession, outbound_id: int) -> None:
    """A refused message sent again: the new try has a row of its own. Commits."""
    await session.exec(  # type: ignore[call-overload]
        update(OutboundMessage)
        .where(col(OutboundMessage.id) == outbound_id)
        .values(status=OutboundStatus.RESENT, payload=None)
    )
    await session.commit()


async def retire_stale_update_id(
    session: AsyncSession, bot_id: int, update_id: int, *, stored_before: datetime
) -> bool:
    """Free an update id stored before `stored_before` for a new update that reuses it (Telegram
    picks ids anew after a week without updates): the old row keeps everything but the id.
    False when the stored row is recent, so the new one is a re-delivery. Commits."""
    result = await session.exec(  # type: ignore[call-overload]
        update(InboundMessage)
        .where(
            col(InboundMessage.bot_id) == bot_id,
            col(InboundMessage.update_id) == update_id,
            col(InboundMessage.created_at) < stored_before,
        )
        .values(update_id=None)
    )
    await session.commit()
    return bool(result.rowcount)


_ADD_OUTBOUND = insert(OutboundMessage.__table__)  # type: ignore[attr-defined]


async def add_outbound(session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert outbound rows in the caller's transaction: one executemany, no ORM objects."""
    if not rows:
        return
    connection = await session.connection()
    await connection.execute(_ADD_OUTBOUND, [column_values(OutboundMessage, row) for row in rows])


async def add_outbound_once(session: AsyncSession, row: Mapping[str, Any]) -> bool:
    """Insert one outbound row unless the same message of the same update is logged already (a
    journal replayed twice after a crash); whether it was inserted."""
    statement = (
        select(OutboundMessage.id)
        .where(
            col(OutboundMessage.inbound_id) == row["inbound_id"],
            col(OutboundMessage.chat_id) == row["chat_id"],
            col(OutboundMessage.method) == row["method"],
            col(OutboundMessage.status) == row["status"],
            col(OutboundMessage.text) == row["text"],
        )
        .limit(1)
    )
    if (await session.exec(statement)).first() is not None:
        return False
    await add_outbound(session, [row])
    return True


_LLM_REPLIES = LLMReply.__table__  # type: ignore[attr-defined]
_ADD_LLM_REPLY = insert(_LLM_REPLIES).returning(_LLM_REPLIES.c.id)


async def add_llm_reply(
    session: AsyncSession, reply: Mapping[str, Any], calls: Sequence[Mapping[str, Any]]
) -> int:
    """Insert an LLM reply and its calls in the caller's transaction; the reply's id."""
    connection = await session.connection()
    reply_id = int((await connection.execute(_ADD_LLM_REPLY, column_values(LLMReply, reply))).scalar_one())
    if calls:
        await connection.execute(
            insert(LLMCall.__table__),  # type: ignore[attr-defined]
            [column_values(LLMCall, {**call, "reply_id": reply_id}) for call in calls],
        )
    return reply_id


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
        .order_by(col(InboundMessage.update_id), col(InboundMessage.id))  # Telegram's order
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
    session: AsyncSession, bot_id: int, chat_id: int, update_id: int, *, since: datetime
) -> int | None:
    """The first update of the chat before `update_id` (Telegram's order) still unanswered."""
    statement = (
        select(InboundMessage.id)
        .where(
            col(InboundMessage.bot_id) == bot_id,
            col(InboundMessage.chat_id) == chat_id,
            col(InboundMessage.update_id) < update_id,
            col(InboundMessage.status) == InboundStatus.RECEIVED,
            col(InboundMessage.created_at) >= since,
        )
        .order_by(col(InboundMessage.update_id))
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
