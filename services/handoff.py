"""Hand-off bookkeeping: who is talking to a person, and which support message is whose.

Kept in the database so that a restart loses neither an open conversation nor
the way back from a staff reply to the customer.
"""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import HandoffLink, HandoffSession
from db.repositories import handoff
from db.types import utcnow


async def open_handoff(session: AsyncSession, *, user_id: int, chat_id: int, language: str) -> HandoffSession:
    existing = await handoff.open_session_for(session, user_id)
    if existing is not None:
        return existing
    opened = HandoffSession(customer_user_id=user_id, customer_chat_id=chat_id, language=language)
    session.add(opened)
    await session.commit()
    return opened


async def active_handoff(session: AsyncSession, user_id: int) -> HandoffSession | None:
    return await handoff.open_session_for(session, user_id)


async def close_handoff(session: AsyncSession, user_id: int) -> bool:
    existing = await handoff.open_session_for(session, user_id)
    if existing is None:
        return False
    existing.closed_at = utcnow()
    session.add(existing)
    await session.commit()
    return True


async def remember_forward(
    session: AsyncSession,
    opened: HandoffSession,
    *,
    support_chat_id: int,
    support_message_id: int,
) -> None:
    assert opened.id is not None
    session.add(
        HandoffLink(
            support_chat_id=support_chat_id,
            support_message_id=support_message_id,
            handoff_id=opened.id,
        )
    )
    await session.commit()


async def handoff_for_reply(
    session: AsyncSession, *, support_chat_id: int, replied_message_id: int
) -> HandoffSession | None:
    """The hand-off a staff reply belongs to, closed ones included (late replies still arrive)."""
    return await handoff.session_for_support_message(session, support_chat_id, replied_message_id)
