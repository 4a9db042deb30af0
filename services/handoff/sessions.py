"""Hand-off bookkeeping: who is talking to a person, and which support message is whose.

Kept in the database so that a restart loses neither an open conversation nor
the way back from a staff reply to the customer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import HandoffLink, HandoffSession, HandoffVia
from db.repositories import handoff, logs
from db.types import utcnow
from services.handoff import inbox
from services.inbox import read_cache
from services.shop.local_time import local_minute
from services.text.sentences import Language


async def open_handoff(
    session: AsyncSession, *, user_id: int, chat_id: int, language: Language
) -> HandoffSession:
    existing = await handoff.open_session_for(session, user_id)
    if existing is not None:
        return existing
    opened = HandoffSession(customer_user_id=user_id, customer_chat_id=chat_id, language=language)
    session.add(opened)
    await session.commit()
    return opened


async def active_handoff(session: AsyncSession, user_id: int) -> HandoffSession | None:
    """Asked on every customer message: served from the read cache (services/inbox/read_cache.py)."""
    return await read_cache.open_handoff(session, user_id)


async def in_handoff(session: AsyncSession, user_id: int) -> bool:
    return await read_cache.has_open_handoff(session, user_id)


async def close_handoff(session: AsyncSession, user_id: int) -> bool:
    """The customer's own end of a hand-off (`/bot`), or one that could not start."""
    existing = await handoff.open_session_for(session, user_id)
    if existing is None:
        return False
    return await close_session(session, existing)


async def close_session(
    session: AsyncSession,
    opened: HandoffSession,
    *,
    staff_id: int | None = None,
    via: HandoffVia = HandoffVia.TELEGRAM,
) -> bool:
    """Close this hand-off; False when it was closed already (so nobody is told twice).

    Staff close the hand-off their reply points at, not "whatever is open for that
    customer": a /close on a forward of last week must not end today's conversation.
    """
    return await inbox.resolve(session, opened, staff_id, via)


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
    """The hand-off a staff reply belongs to, closed ones included: the caller tells staff
    that a closed one is closed instead of writing to a customer who is back with the bot."""
    return await handoff.session_for_support_message(session, support_chat_id, replied_message_id)


async def question_message_id(session: AsyncSession, *, user_id: int, chat_id: int) -> int | None:
    """The customer's own last message in the chat, to forward when they press "Talk to a person".

    The button sits on the bot's answer; forwarding that would show staff the bot's
    "Sorry, I don't have a reliable answer" instead of what the customer asked.
    """
    row = await logs.last_message_from(session, user_id, chat_id)
    if row is None or row.raw_update is None:
        return None
    message = json.loads(row.raw_update).get("message") or {}
    message_id = message.get("message_id")
    return message_id if isinstance(message_id, int) else None


async def question_text(session: AsyncSession, *, user_id: int, chat_id: int) -> str:
    """The text of the message `question_message_id` names, for the hand-off's thread."""
    row = await logs.last_message_from(session, user_id, chat_id)
    return row.text if row is not None and row.text else ""


@dataclass(frozen=True)
class OpenHandoff:
    handoff_id: int
    user_id: int
    chat_id: int
    language: str
    opened_at: datetime
    age: timedelta


async def open_handoffs(session: AsyncSession, *, now: datetime | None = None) -> list[OpenHandoff]:
    """Hand-offs waiting for a person, oldest first, with how long they have waited."""
    now = now or utcnow()
    return [
        OpenHandoff(
            row.id or 0,
            row.customer_user_id,
            row.customer_chat_id,
            row.language,
            row.opened_at,
            now - row.opened_at,
        )
        for row in await handoff.open_sessions(session)
    ]


def format_age(age: timedelta) -> str:
    """`3d 4h`, `2h 05m`, `7m`: enough to see who has waited longest."""
    minutes = max(0, int(age.total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m"


def render_open_handoffs(rows: list[OpenHandoff], zone: tzinfo) -> str:
    """`zone`: the shop's, for when each was opened."""
    if not rows:
        return "No open hand-offs."
    lines = [f"Open hand-offs: {len(rows)}"]
    lines.extend(
        f"#{row.handoff_id} user {row.user_id} ({row.language}), waiting {format_age(row.age)}, "
        f"since {local_minute(row.opened_at, zone)}"
        for row in rows
    )
    return "\n".join(lines)
