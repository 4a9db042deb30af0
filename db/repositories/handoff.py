"""Queries of the hand-off tables."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import HandoffEvent, HandoffEventKind, HandoffLink, HandoffSession, SavedReply, StaffMember
from db.types import utcnow


async def open_session_for(session: AsyncSession, customer_user_id: int) -> HandoffSession | None:
    statement = (
        select(HandoffSession)
        .where(
            HandoffSession.customer_user_id == customer_user_id,
            col(HandoffSession.closed_at).is_(None),
        )
        .order_by(col(HandoffSession.id).desc())
    )
    return (await session.exec(statement)).first()


async def session_for_support_message(
    session: AsyncSession, support_chat_id: int, support_message_id: int
) -> HandoffSession | None:
    statement = (
        select(HandoffSession)
        .join(HandoffLink, col(HandoffLink.handoff_id) == HandoffSession.id)
        .where(
            HandoffLink.support_chat_id == support_chat_id,
            HandoffLink.support_message_id == support_message_id,
        )
    )
    return (await session.exec(statement)).first()


async def open_sessions(session: AsyncSession) -> list[HandoffSession]:
    """Every hand-off still waiting for a person, oldest first."""
    statement = (
        select(HandoffSession)
        .where(col(HandoffSession.closed_at).is_(None))
        .order_by(col(HandoffSession.opened_at), col(HandoffSession.id))
    )
    return list((await session.exec(statement)).all())


async def get(session: AsyncSession, handoff_id: int) -> HandoffSession | None:
    return await session.get(HandoffSession, handoff_id)


async def add_event(session: AsyncSession, event: HandoffEvent) -> None:
    session.add(event)


async def events(session: AsyncSession, handoff_id: int) -> list[HandoffEvent]:
    statement = (
        select(HandoffEvent).where(HandoffEvent.handoff_id == handoff_id).order_by(col(HandoffEvent.id))
    )
    return list((await session.exec(statement)).all())


async def recent_sessions(
    session: AsyncSession, *, closed_since: datetime, limit: int
) -> list[HandoffSession]:
    """Open hand-offs and those closed since `closed_since`, oldest open first, then newest closed."""
    statement = (
        select(HandoffSession)
        .where(or_(col(HandoffSession.closed_at).is_(None), col(HandoffSession.closed_at) >= closed_since))
        .order_by(col(HandoffSession.opened_at), col(HandoffSession.id))
        .limit(limit)
    )
    return list((await session.exec(statement)).all())


async def sessions_opened_since(session: AsyncSession, since: datetime) -> list[HandoffSession]:
    statement = select(HandoffSession).where(col(HandoffSession.opened_at) >= since)
    return list((await session.exec(statement)).all())


async def sessions_closed_since(session: AsyncSession, since: datetime) -> list[HandoffSession]:
    statement = select(HandoffSession).where(col(HandoffSession.closed_at) >= since)
    return list((await session.exec(statement)).all())


async def last_events(session: AsyncSession, handoff_ids: list[int]) -> dict[int, list[HandoffEvent]]:
    """Each hand-off's customer and staff lines, oldest first (for waiting times and previews)."""
    if not handoff_ids:
        return {}
    statement = (
        select(HandoffEvent)
        .where(
            col(HandoffEvent.handoff_id).in_(handoff_ids),
            col(HandoffEvent.kind).in_([HandoffEventKind.CUSTOMER, HandoffEventKind.STAFF]),
        )
        .order_by(col(HandoffEvent.id))
    )
    grouped: dict[int, list[HandoffEvent]] = {handoff_id: [] for handoff_id in handoff_ids}
    for event in (await session.exec(statement)).all():
        grouped[event.handoff_id].append(event)
    return grouped


async def change_mark(session: AsyncSession) -> tuple[int, int, str]:
    """Changes whenever the inbox does: a new hand-off or thread line, or a hand-off's state.

    Every state change also writes a thread line, so the newest ids tell all; the newest close
    is there for the customer's own /bot (the only change without a line). One round trip: the
    live queue asks this twice a second per open page."""
    statement = select(
        select(func.max(HandoffEvent.id)).scalar_subquery(),
        func.max(HandoffSession.id),
        func.max(HandoffSession.closed_at),
    )
    newest_event, newest_handoff, newest_close = (await session.exec(statement)).one()
    return (newest_event or 0, newest_handoff or 0, str(newest_close or ""))


async def first_link(session: AsyncSession, handoff_id: int) -> HandoffLink | None:
    """The brief staff got in the support chat: where the hand-off's thread there starts."""
    statement = (
        select(HandoffLink).where(HandoffLink.handoff_id == handoff_id).order_by(col(HandoffLink.id)).limit(1)
    )
    return (await session.exec(statement)).first()


async def staff_names(session: AsyncSession) -> dict[int, str]:
    return {row.user_id: row.name for row in (await session.exec(select(StaffMember))).all()}


async def remember_staff_name(session: AsyncSession, user_id: int, name: str) -> None:
    row = await session.get(StaffMember, user_id)
    if row is None:
        session.add(StaffMember(user_id=user_id, name=name))
    elif row.name != name:
        row.name = name
        row.updated_at = utcnow()
        session.add(row)


async def saved_replies(session: AsyncSession, language: str | None = None) -> list[SavedReply]:
    statement = select(SavedReply).order_by(col(SavedReply.language), col(SavedReply.title))
    if language is not None:
        statement = statement.where(SavedReply.language == language)
    return list((await session.exec(statement)).all())


async def saved_reply(session: AsyncSession, reply_id: int) -> SavedReply | None:
    return await session.get(SavedReply, reply_id)


async def saved_reply_titled(session: AsyncSession, title: str, language: str) -> SavedReply | None:
    statement = select(SavedReply).where(SavedReply.title == title, SavedReply.language == language)
    return (await session.exec(statement)).first()
