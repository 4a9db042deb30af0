"""The console's conversation pages: customer messages by filter, and one customer's chat."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Literal

from sqlalchemy import ColumnElement, func, or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import (
    Customer,
    InboundMessage,
    LLMCall,
    LLMReply,
    Order,
    OutboundMessage,
    OutboundStatus,
    ReturnRequest,
)
from db.repositories.logs import (
    customer_traffic,
    failed_clause,
    to_customer_chat,
    with_a_person_clause,
)

ListedField = Literal["intent", "route", "answer_source"]


async def order_owner(session: AsyncSession, *, number: str) -> int | None:
    """The Telegram user id of the customer who placed the order with this number, if known."""
    statement = (
        select(Customer.telegram_user_id)
        .join(Order, col(Order.customer_id) == col(Customer.id))
        .where(col(Order.number) == number)
    )
    return (await session.exec(statement)).first()


async def customer_users(
    session: AsyncSession, *, phone: str | None, name: str | None, rma_number: str | None
) -> list[int]:
    """The Telegram user ids of linked customers with this phone (digits with the country code),
    a name containing `name` (any case), or the return request `rma_number`."""
    clauses: list[ColumnElement[bool]] = []
    if phone:
        clauses.append(col(Customer.phone) == phone)
    if name:
        escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        clauses.append(col(Customer.name).ilike(f"%{escaped}%", escape="\\"))
    if rma_number:
        owner = select(ReturnRequest.customer_id).where(func.upper(ReturnRequest.rma_number) == rma_number)
        clauses.append(col(Customer.id).in_(owner))
    if not clauses:
        return []
    statement = select(Customer.telegram_user_id).where(
        col(Customer.telegram_user_id).is_not(None), or_(*clauses)
    )
    return [user for user in (await session.exec(statement)).all() if user is not None]


def _search_clause(text: str, user_ids: Sequence[int]) -> ColumnElement[bool]:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    clauses: list[ColumnElement[bool]] = [col(InboundMessage.text).ilike(f"%{escaped}%", escape="\\")]
    clauses.extend(col(InboundMessage.telegram_user_id) == user_id for user_id in user_ids)
    return or_(*clauses)


async def customer_messages_page(
    session: AsyncSession,
    *,
    search: str | None = None,
    search_users: Sequence[int] = (),
    exclude_users: Sequence[int] = (),
    intent: str | None = None,
    route: str | None = None,
    source: str | None = None,
    language: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    with_a_person: bool = False,
    failed: bool = False,
    before: int | None = None,
    limit: int,
) -> list[InboundMessage]:
    """The newest `limit` customer messages matching every filter (ids below `before`), newest first."""
    statement = select(InboundMessage).where(customer_traffic())
    if exclude_users:
        statement = statement.where(col(InboundMessage.telegram_user_id).not_in(list(exclude_users)))
    if search is not None:
        statement = statement.where(_search_clause(search, search_users))
    if intent:
        statement = statement.where(col(InboundMessage.intent) == intent)
    if route:
        statement = statement.where(col(InboundMessage.route) == route)
    if source:
        statement = statement.where(col(InboundMessage.answer_source) == source)
    if language:
        statement = statement.where(col(InboundMessage.entities)["language"].as_string() == language)
    if since is not None:
        statement = statement.where(col(InboundMessage.created_at) >= since)
    if until is not None:
        statement = statement.where(col(InboundMessage.created_at) < until)
    if with_a_person:
        statement = statement.where(with_a_person_clause())
    if failed:
        statement = statement.where(failed_clause())
    if before is not None:
        statement = statement.where(col(InboundMessage.id) < before)
    statement = statement.order_by(col(InboundMessage.id).desc()).limit(limit)
    return list((await session.exec(statement)).all())


async def with_refused_replies(session: AsyncSession, *, inbound_ids: Sequence[int]) -> set[int]:
    """Those of these messages with a reply Telegram refused."""
    if not inbound_ids:
        return set()
    statement = select(OutboundMessage.inbound_id).where(
        col(OutboundMessage.inbound_id).in_(list(inbound_ids)),
        OutboundMessage.status == OutboundStatus.FAILED,
    )
    return {inbound_id for inbound_id in (await session.exec(statement)).all() if inbound_id is not None}


async def recent_values(session: AsyncSession, *, field: ListedField, within: int) -> list[str | None]:
    """The distinct values of `field` among the newest `within` messages, unordered."""
    recent = select(InboundMessage.id).order_by(col(InboundMessage.id).desc()).limit(within).subquery()
    column = {
        "intent": InboundMessage.intent,
        "route": InboundMessage.route,
        "answer_source": InboundMessage.answer_source,
    }[field]
    statement = select(column).where(col(InboundMessage.id).in_(select(recent.c.id))).distinct()
    return list((await session.exec(statement)).all())


async def customer_messages_of(
    session: AsyncSession, *, user_id: int, before: int | None = None, limit: int
) -> list[InboundMessage]:
    """The newest `limit` customer messages of one user (ids below `before`), newest first."""
    statement = select(InboundMessage).where(InboundMessage.telegram_user_id == user_id, customer_traffic())
    if before is not None:
        statement = statement.where(col(InboundMessage.id) < before)
    return list((await session.exec(statement.order_by(col(InboundMessage.id).desc()).limit(limit))).all())


async def sent_to_customer(
    session: AsyncSession,
    *,
    user_id: int,
    since: datetime | None = None,
    earlier_than: datetime | None = None,
) -> list[OutboundMessage]:
    """What went to the customer's own chat from `since` and before `earlier_than`, oldest first."""
    statement = select(OutboundMessage).where(to_customer_chat(user_id))
    if since is not None:
        statement = statement.where(col(OutboundMessage.created_at) >= since)
    if earlier_than is not None:
        statement = statement.where(col(OutboundMessage.created_at) < earlier_than)
    return list((await session.exec(statement.order_by(col(OutboundMessage.id)))).all())


async def messages_by_id(session: AsyncSession, *, ids: Collection[int]) -> list[InboundMessage]:
    """The inbound messages with these ids, unordered."""
    if not ids:
        return []
    statement = select(InboundMessage).where(col(InboundMessage.id).in_(list(ids)))
    return list((await session.exec(statement)).all())


async def llm_replies_to(session: AsyncSession, *, inbound_ids: Collection[int]) -> list[LLMReply]:
    """The logged answers to these messages, oldest first."""
    if not inbound_ids:
        return []
    statement = (
        select(LLMReply).where(col(LLMReply.inbound_id).in_(list(inbound_ids))).order_by(col(LLMReply.id))
    )
    return list((await session.exec(statement)).all())


async def llm_calls_of(session: AsyncSession, *, reply_ids: Collection[int]) -> list[LLMCall]:
    """The API calls behind these answers, oldest first."""
    if not reply_ids:
        return []
    statement = select(LLMCall).where(col(LLMCall.reply_id).in_(list(reply_ids))).order_by(col(LLMCall.id))
    return list((await session.exec(statement)).all())
