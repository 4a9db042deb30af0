"""Working a hand-off: claiming it, writing to the customer, notes, tags, status, the rating.

Both fronts staff use call these: the support chat in Telegram (handlers/handoff.py) and the
web console's inbox (bot/console). Every change writes a line to the hand-off's thread
(`HandoffEvent`), so each front shows what was done in the other, and the console's live
queue notices a change by the newest line alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import (
    HandoffEvent,
    HandoffEventKind,
    HandoffSession,
    HandoffStatus,
    HandoffVia,
    OutboundMessage,
    OutboundStatus,
)
from db.repositories import customers
from db.repositories import handoff as rows
from db.types import utcnow

MAX_TAGS = 10
MAX_TAG_CHARS = 32
MAX_NOTE_CHARS = 4000
RATINGS = (1, 2, 3, 4, 5)
SKIPPED = 0
"""The rating of a customer who chose not to rate: asked, and answered, but no score."""
RESOLVED_SHOWN = timedelta(days=7)
"""How long a resolved hand-off stays in the console's queue (under its own tab)."""
QUEUE_LIMIT = 500


async def _line(
    session: AsyncSession,
    opened: HandoffSession,
    kind: HandoffEventKind,
    author: int | None,
    via: HandoffVia,
    text: str = "",
) -> None:
    assert opened.id is not None
    await rows.add_event(
        session, HandoffEvent(handoff_id=opened.id, kind=kind, author_id=author, via=via, text=text)
    )


async def record_brief(session: AsyncSession, opened: HandoffSession, brief: str) -> None:
    """What staff were told when the hand-off opened: the first line of its thread."""
    await _line(session, opened, HandoffEventKind.BRIEF, None, HandoffVia.TELEGRAM, brief)
    await session.commit()


async def record_customer(session: AsyncSession, opened: HandoffSession, text: str) -> None:
    """The customer wrote to whoever has the conversation; a pending one is open again."""
    await _line(session, opened, HandoffEventKind.CUSTOMER, None, HandoffVia.TELEGRAM, text)
    if opened.status == HandoffStatus.PENDING:
        opened.status = HandoffStatus.OPEN
        session.add(opened)
    await session.commit()


async def claim(session: AsyncSession, opened: HandoffSession, staff_id: int, via: HandoffVia) -> bool:
    """`staff_id` has it now; False when they had it already (nobody is told twice)."""
    if opened.assignee_id == staff_id:
        return False
    opened.assignee_id = staff_id
    session.add(opened)
    await _line(session, opened, HandoffEventKind.CLAIMED, staff_id, via)
    await session.commit()
    return True


async def record_staff_reply(
    session: AsyncSession,
    opened: HandoffSession,
    staff_id: int,
    text: str,
    via: HandoffVia,
    *,
    delivered: Sequence[str] = (),
) -> None:
    """Staff wrote to the customer (after it was delivered). The first reply is the first response,
    and a hand-off nobody had claimed is theirs from then on.

    `delivered`: the messages the customer got, when no update's log records them (the console's)."""
    await _line(session, opened, HandoffEventKind.STAFF, staff_id, via, text)
    for part in delivered:
        session.add(
            OutboundMessage(
                chat_id=opened.customer_chat_id,
                telegram_user_id=opened.customer_user_id,
                text=part,
                status=OutboundStatus.SENT,
                staff_id=staff_id,
            )
        )
    if opened.first_response_at is None:
        opened.first_response_at = utcnow()
    if opened.assignee_id is None:
        opened.assignee_id = staff_id
        await _line(session, opened, HandoffEventKind.CLAIMED, staff_id, via)
    session.add(opened)
    await session.commit()


async def add_note(
    session: AsyncSession, opened: HandoffSession, staff_id: int, text: str, via: HandoffVia
) -> bool:
    """An internal note; False for an empty one."""
    text = text.strip()[:MAX_NOTE_CHARS]
    if not text:
        return False
    await _line(session, opened, HandoffEventKind.NOTE, staff_id, via, text)
    await session.commit()
    return True


def parse_tags(value: str) -> list[str]:
    """`"refund, size"` -> ["refund", "size"]: lower case, no duplicates, `|` never inside one."""
    tags: list[str] = []
    for part in value.replace("|", ",").split(","):
        tag = " ".join(part.split()).lower()[:MAX_TAG_CHARS]
        if tag and tag not in tags:
            tags.append(tag)
    return tags[:MAX_TAGS]


async def set_tags(
    session: AsyncSession, opened: HandoffSession, staff_id: int, tags: list[str], via: HandoffVia
) -> bool:
    joined = "|".join(tags)
    if joined == opened.tags:
        return False
    opened.tags = joined
    session.add(opened)
    await _line(session, opened, HandoffEventKind.TAGS, staff_id, via, ", ".join(tags))
    await session.commit()
    return True


async def set_status(
    session: AsyncSession, opened: HandoffSession, staff_id: int, status: HandoffStatus, via: HandoffVia
) -> bool:
    """Open or pending; resolving is `resolve` (it also ends the conversation with a person)."""
    assert status != HandoffStatus.RESOLVED, "resolve() ends a hand-off"
    if opened.closed_at is not None or opened.status == status:
        return False
    opened.status = status
    session.add(opened)
    await _line(session, opened, HandoffEventKind.STATUS, staff_id, via, status.value)
    await session.commit()
    return True


async def resolve(
    session: AsyncSession, opened: HandoffSession, staff_id: int | None, via: HandoffVia
) -> bool:
    """End the hand-off; the customer is back with the bot. False when it had ended already.

    `staff_id` None: the customer ended it themselves (`/bot`); they are not asked for a rating."""
    if opened.closed_at is not None:
        return False
    now = utcnow()
    opened.closed_at = now
    opened.status = HandoffStatus.RESOLVED
    opened.resolved_by = staff_id
    if staff_id is not None:
        opened.rating_asked_at = now
    session.add(opened)
    await _line(session, opened, HandoffEventKind.STATUS, staff_id, via, HandoffStatus.RESOLVED.value)
    await session.commit()
    return True


class Rated(StrEnum):
    RECORDED = "recorded"
    ALREADY = "already"
    """Answered before: the first answer counts."""
    NOT_ASKED = "not_asked"
    """Not this customer's hand-off, or nobody asked them (a forged or stale button)."""


async def record_rating(session: AsyncSession, handoff_id: int, user_id: int, rating: int) -> Rated:
    opened = await rows.get(session, handoff_id)
    if (
        opened is None
        or opened.customer_user_id != user_id
        or opened.rating_asked_at is None
        or (rating not in RATINGS and rating != SKIPPED)
    ):
        return Rated.NOT_ASKED
    if opened.rated_at is not None:
        return Rated.ALREADY
    opened.rating = rating
    opened.rated_at = utcnow()
    session.add(opened)
    await session.commit()
    return Rated.RECORDED


async def remember_staff_name(session: AsyncSession, user_id: int, name: str) -> None:
    """What the inbox calls a staff member: their name as Telegram last showed it."""
    await rows.remember_staff_name(session, user_id, name.strip()[:80])
    await session.commit()


async def staff_names(session: AsyncSession) -> dict[int, str]:
    return await rows.staff_names(session)


def name_of(user_id: int | None, names: dict[int, str]) -> str:
    if user_id is None:
        return "nobody"
    name = names.get(user_id)
    return f"{name} ({user_id})" if name else f"staff {user_id}"


@dataclass(frozen=True)
class QueueItem:
    handoff: HandoffSession
    customer: str
    """The linked customer's name, or "Telegram user <id>"."""
    waiting_since: datetime | None
    """The customer's oldest message staff have not answered yet; None: nothing unanswered."""
    last_text: str
    """The newest line from the customer or staff, for a preview."""
    assignee: str | None

    @property
    def id(self) -> int:
        return self.handoff.id or 0


def _waiting_since(lines: list[HandoffEvent]) -> datetime | None:
    since: datetime | None = None
    for line in lines:
        if line.kind == HandoffEventKind.STAFF:
            since = None
        elif since is None:
            since = line.created_at
    return since


async def queue(session: AsyncSession) -> list[QueueItem]:
    """Hand-offs not resolved (oldest first), then those resolved within `RESOLVED_SHOWN`."""
    handoffs = await rows.recent_sessions(session, closed_since=utcnow() - RESOLVED_SHOWN, limit=QUEUE_LIMIT)
    lines = await rows.last_events(session, [h.id for h in handoffs if h.id is not None])
    names = await rows.staff_names(session)
    linked = await customers.by_telegram_users(session, [h.customer_user_id for h in handoffs])
    items: list[QueueItem] = []
    for opened in handoffs:
        customer = linked.get(opened.customer_user_id)
        own = lines.get(opened.id or 0, [])
        items.append(
            QueueItem(
                handoff=opened,
                customer=customer.name
                if customer is not None
                else f"Telegram user {opened.customer_user_id}",
                waiting_since=_waiting_since(own) if opened.closed_at is None else None,
                last_text=own[-1].text if own else "",
                assignee=name_of(opened.assignee_id, names) if opened.assignee_id is not None else None,
            )
        )
    return items


@dataclass(frozen=True)
class Thread:
    handoff: HandoffSession
    customer: str
    lines: list[HandoffEvent]
    names: dict[int, str]


async def thread(session: AsyncSession, handoff_id: int) -> Thread | None:
    opened = await rows.get(session, handoff_id)
    if opened is None:
        return None
    customer = await customers.by_telegram_user(session, opened.customer_user_id)
    return Thread(
        handoff=opened,
        customer=customer.name if customer is not None else f"Telegram user {opened.customer_user_id}",
        lines=await rows.events(session, handoff_id),
        names=await rows.staff_names(session),
    )


async def get(session: AsyncSession, handoff_id: int) -> HandoffSession | None:
    return await rows.get(session, handoff_id)


async def change_mark(session: AsyncSession) -> str:
    """A value that changes whenever the inbox does (the console's live queue polls it)."""
    event, handoff, closed = await rows.change_mark(session)
    return f"{event}.{handoff}.{closed}"


async def support_thread_start(session: AsyncSession, handoff_id: int) -> int | None:
    """The support chat's message the hand-off started with (its brief), to reply under."""
    link = await rows.first_link(session, handoff_id)
    return link.support_message_id if link is not None else None
