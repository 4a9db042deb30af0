from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, and_, not_, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, InboundStatus, OutboundMessage, OutboundStatus

NOT_ANSWERED = (InboundStatus.FAILED, InboundStatus.ABANDONED)

STAFF_ROUTE = "staff"
"""Route prefix of every update from the support chat (staff replies, /close, chatter).

They are stored like any update (nothing is lost) but they are not customer traffic:
customer logs and /stats leave them out through `customer_traffic`."""


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
    statement = select(OutboundMessage).where(
        or_(
            col(OutboundMessage.chat_id) == user_id,
            and_(col(OutboundMessage.telegram_user_id) == user_id, col(OutboundMessage.chat_id).is_(None)),
        )
    )
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


async def mark_resent(session: AsyncSession, row: OutboundMessage) -> None:
    row.status = OutboundStatus.RESENT
    session.add(row)
    await session.commit()


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
