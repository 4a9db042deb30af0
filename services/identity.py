"""Linking a Telegram account to a customer record through a shared phone contact."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer
from db.repositories import customers
from services.phone import normalize_phone


class LinkOutcome(StrEnum):
    LINKED = "linked"
    NOT_OWN_CONTACT = "not_own_contact"
    NO_CUSTOMER = "no_customer"
    TAKEN = "taken"


@dataclass(frozen=True)
class LinkResult:
    outcome: LinkOutcome
    customer: Customer | None = None


async def link_contact(
    session: AsyncSession,
    *,
    sender_user_id: int,
    contact_user_id: int | None,
    phone_number: str,
) -> LinkResult:
    """Link only the sender's own contact.

    Telegram lets anyone send any contact card; only a card whose user_id is the
    sender's came from the request_contact button, so anything else is refused.
    """
    if contact_user_id != sender_user_id:
        return LinkResult(LinkOutcome.NOT_OWN_CONTACT)
    customer = await customers.by_phone(session, normalize_phone(phone_number))
    if customer is None:
        return LinkResult(LinkOutcome.NO_CUSTOMER)
    if customer.telegram_user_id not in (None, sender_user_id):
        return LinkResult(LinkOutcome.TAKEN)
    previous = await customers.by_telegram_user(session, sender_user_id)
    if previous is not None and previous.id != customer.id:
        previous.telegram_user_id = None
        session.add(previous)
        await session.flush()
    customer.telegram_user_id = sender_user_id
    session.add(customer)
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        return LinkResult(LinkOutcome.TAKEN)
    return LinkResult(LinkOutcome.LINKED, customer)
