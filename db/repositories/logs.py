from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, CursorResult, and_, not_, or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import HandoffSession, InboundMessage, InboundStatus, OutboundMessage, OutboundStatus

NOT_ANSWERED = (InboundStatus.FAILED, InboundStatus.ABANDONED)

STAFF_ROUTE = "staff"
"""Route prefix of every update from the support chat (staff replies, /close, chatter).

They are stored like any update (nothing is lost) but they are not customer traffic:
customer logs and /stats leave them out through `customer_traffic`."""


HANDOFF_OPENED = ("human", "handoff")
"""(route, answer source) of the message that opened a hand-off to a person: one per hand-off,
whichever way it was asked for (`/human`, the button, a message handed over)."""
WITH_A_PERSON_ROUTES = ("human", "handoff-relay")
"""Routes of messages in a hand-off: the one that opened it and those relayed to staff."""


def opened_handoff(route: str | None, source: str | None) -> bool:
    return (route, source) == HANDOFF_OPENED


def with_a_person(route: str | None, source: str | None) -> bool:
    return route in WITH_A_PERSON_ROUTES or source == HANDOFF_OPENED[1]


def with_a_person_clause() -> ColumnElement[bool]:
    source = col(InboundMessage.answer_source)
    return or_(col(InboundMessage.route).in_(WITH_A_PERSON_ROUTES), source == HANDOFF_OPENED[1])


def to_customer_chat(user_id: int) -> ColumnElement[bool]:
    """Outbound rows sent to the customer's own chat (or to the customer, with no chat recorded)."""
    return or_(
        col(OutboundMessage.chat_id) == user_id,
        and_(col(OutboundMessage.telegram_user_id) == user_id, col(OutboundMessage.chat_id).is_(None)),
    )


def failed_clause() -> ColumnElement[bool]:
    """Messages that failed or were abandoned, and messages with a reply Telegram refused: what
    the logs and the console list as failed."""
    refused = select(OutboundMessage.inbound_id).where(OutboundMessage.status == OutboundStatus.FAILED)
    return or_(col(InboundMessage.status).in_(NOT_ANSWERED), col(InboundMessage.id).in_(refused))


def customer_traffic() -> ColumnElement[bool]:
    """Rows that are customer traffic: not routed to the staff side (unrouted rows count)."""
    route = col(InboundMessage.route)
    return or_(route.is_(None), not_(route.startswith(STAFF_ROUTE)))


async def inbound(
    session: AsyncSession,
    *,
    user_id: int | None = None,
    intent: str | None = None,
    since: datetime | None = None,
    limit: int = 20,
    exclude_users: Collection[int] = (),
    failed: bool = False,
    include_staff: bool = False,
    until: datetime | None = None,
) -> list[InboundMessage]:
    """Newest `limit` messages matching the filters, returned oldest first.

    `exclude_users` (the admins) keeps the admins' own commands out of a customer log,
    unless a user filter asks for them explicitly. `failed` keeps what needs an admin:
    messages that failed or were abandoned, and messages with a reply Telegram refused.
    Staff messages in the support chat are left out unless `include_staff` asks for them.
    """
    statement = select(InboundMessage)
    if not include_staff:
        statement = statement.where(customer_traffic())
    if failed:
        statement = statement.where(failed_clause())
    if user_id is not None:
        statement = statement.where(InboundMessage.telegram_user_id == user_id)
    elif exclude_users:
        statement = statement.where(col(InboundMessage.telegram_user_id).not_in(list(exclude_users)))
    if intent is not None:
        statement = statement.where(InboundMessage.intent == intent)
    if since is not None:
        statement = statement.where(InboundMessage.created_at >= since)
    if until is not None:
        statement = statement.where(col(InboundMessage.created_at) <= until)
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
    session: AsyncSession,
    user_id: int,
    *,
    limit: int = 50,
    delivered_only: bool = False,
    until: datetime | None = None,
) -> list[InboundMessage | OutboundMessage]:
    """Both directions for one customer, in the order they happened.

    `delivered_only` leaves out replies Telegram refused: the customer never read them,
    so a model must not take them for something it said. `until` (inclusive) gives the
    conversation as it stood at that moment (an offline replay of an old question).
    """
    received = await inbound(session, user_id=user_id, limit=limit, until=until)
    # What was sent to the customer's own chat: not the hand-off brief and forwards the
    # customer's updates caused in the support chat (a model would take them for its words).
    statement = select(OutboundMessage).where(to_customer_chat(user_id))
    if delivered_only:
        statement = statement.where(OutboundMessage.status == OutboundStatus.SENT)
    if until is not None:
        statement = statement.where(col(OutboundMessage.created_at) <= until)
    sent = (await session.exec(statement.order_by(col(OutboundMessage.id).desc()).limit(limit))).all()
    merged: list[InboundMessage | OutboundMessage] = [*received, *sent]
    merged.sort(key=lambda row: (row.created_at, isinstance(row, OutboundMessage)))
    return merged[-limit:]


async def outbound(session: AsyncSession, outbound_id: int) -> OutboundMessage | None:
    return await session.get(OutboundMessage, outbound_id)


async def outbound_in_status(
    session: AsyncSession, *, statuses: Collection[str], before: int | None = None, limit: int
) -> list[OutboundMessage]:
    """The newest `limit` outbound messages in one of `statuses` (older than `before`), newest first."""
    statement = select(OutboundMessage).where(col(OutboundMessage.status).in_(statuses))
    if before is not None:
        statement = statement.where(col(OutboundMessage.id) < before)
    statement = statement.order_by(col(OutboundMessage.id).desc()).limit(limit)
    return list((await session.exec(statement)).all())


async def claim_for_resend(session: AsyncSession, *, outbound_id: int) -> bool:
    """True when this call moved the failed message (one with a chat) to resending; not committed."""
    claimed: CursorResult[Any] = await session.exec(
        update(OutboundMessage)
        .where(
            col(OutboundMessage.id) == outbound_id,
            col(OutboundMessage.status) == OutboundStatus.FAILED,
            col(OutboundMessage.chat_id).is_not(None),
        )
        .values(status=OutboundStatus.RESENDING)
    )
    return claimed.rowcount == 1


async def last_message_from(session: AsyncSession, user_id: int, chat_id: int) -> InboundMessage | None:
    """The newest message (not a button press) a user sent in a chat, with its raw update."""
    statement = (
        select(InboundMessage)
        .where(
            InboundMessage.telegram_user_id == user_id,
            InboundMessage.chat_id == chat_id,
            InboundMessage.kind != "callback",
            col(InboundMessage.raw_update).is_not(None),
        )
        .order_by(col(InboundMessage.id).desc())
        .limit(1)
    )
    return (await session.exec(statement)).first()


async def recent_texts_from(session: AsyncSession, user_id: int, chat_id: int, *, limit: int) -> list[str]:
    """The texts of a user's newest messages in a chat (button presses and commands left out),
    newest first."""
    statement = (
        select(InboundMessage.text)
        .where(
            InboundMessage.telegram_user_id == user_id,
            InboundMessage.chat_id == chat_id,
            InboundMessage.kind == "text",
            not_(col(InboundMessage.text).startswith("/")),
        )
        .order_by(col(InboundMessage.id).desc())
        .limit(limit)
    )
    return list((await session.exec(statement)).all())


async def sent_texts(session: AsyncSession, inbound_ids: list[int]) -> dict[tuple[int, int | None], str]:
    """What each message's handling sent to a chat, by (message, chat), joined: the reply its
    customer read (failed sends left out)."""
    texts: dict[tuple[int, int | None], str] = defaultdict(str)
    for start in range(0, len(inbound_ids), 500):  # bounded IN lists on every database
        chunk = inbound_ids[start : start + 500]
        statement = (
            select(OutboundMessage.inbound_id, OutboundMessage.chat_id, OutboundMessage.text)
            .where(col(OutboundMessage.inbound_id).in_(chunk))
            .where(OutboundMessage.status != OutboundStatus.FAILED)
            .where(OutboundMessage.method == "sendMessage")
            .order_by(col(OutboundMessage.id))
        )
        for inbound_id, chat_id, text in (await session.exec(statement)).all():
            if inbound_id is not None:
                texts[(inbound_id, chat_id)] += text + "\n"
    return texts


async def sent_text(session: AsyncSession, *, inbound_id: int, chat_id: int | None) -> str:
    """What one message's handling sent to one chat, joined by newlines (failed sends left out)."""
    statement = (
        select(OutboundMessage.text)
        .where(
            OutboundMessage.inbound_id == inbound_id,
            OutboundMessage.chat_id == chat_id,
            OutboundMessage.method == "sendMessage",
            OutboundMessage.status != OutboundStatus.FAILED,
        )
        .order_by(col(OutboundMessage.id))
    )
    return "\n".join((await session.exec(statement)).all())


async def handoff_times(session: AsyncSession, since: datetime) -> dict[int, list[datetime]]:
    """When each customer's hand-offs since `since` opened, by Telegram user id, in order."""
    statement = select(HandoffSession.customer_user_id, HandoffSession.opened_at).where(
        col(HandoffSession.opened_at) >= since
    )
    opened: dict[int, list[datetime]] = defaultdict(list)
    for user_id, at in (await session.exec(statement)).all():
        opened[user_id].append(at)
    for times in opened.values():
        times.sort()
    return opened


async def texts_of(session: AsyncSession, inbound_ids: Sequence[int]) -> list[str]:
    """The customers' texts of these messages, newest first."""
    texts: list[tuple[int, str]] = []
    for start in range(0, len(inbound_ids), 500):
        chunk = list(inbound_ids[start : start + 500])
        statement = select(InboundMessage.id, InboundMessage.text).where(col(InboundMessage.id).in_(chunk))
        texts.extend((i or 0, text) for i, text in (await session.exec(statement)).all())
    return [text for _, text in sorted(texts, reverse=True)]


async def question_offered(
    session: AsyncSession, *, user_id: int, chat_id: int, slug: str, within: int = 5
) -> InboundMessage | None:
    """The newest of a user's last `within` messages in a chat that was offered the FAQ entry `slug`
    as a button (its log row lists what was offered)."""
    statement = (
        select(InboundMessage)
        .where(
            InboundMessage.telegram_user_id == user_id,
            InboundMessage.chat_id == chat_id,
            InboundMessage.kind == "text",
        )
        .order_by(col(InboundMessage.id).desc())
        .limit(within)
    )
    for message in (await session.exec(statement)).all():
        faq = (message.entities or {}).get("faq") or {}
        if slug in (faq.get("offered") or ()):
            return message
    return None
