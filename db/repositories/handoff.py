"""Queries of the hand-off tables."""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import HandoffLink, HandoffSession


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
