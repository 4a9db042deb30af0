"""Linking a Telegram account to a customer record through a shared phone contact."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer
from db.repositories import customers
from services.shop.phone import normalize_phone
from services.shop.sources.base import ShopCustomer, ShopData, ShopDataUnavailable
from services.shop.sources.local import LocalShopData, customer_id_of


class LinkOutcome(StrEnum):
    LINKED = "linked"
    UNAVAILABLE = "unavailable"
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
    shop: ShopData | None = None,
) -> LinkResult:
    """Link only the sender's own contact.

    Telegram lets anyone send any contact card; only a card whose user_id is the
    sender's came from the request_contact button, so anything else is refused.
    The customer is looked up in the shop's data (csbot's tables by default); the link
    itself always lives in csbot's customers table.
    """
    if contact_user_id != sender_user_id:
        return LinkResult(LinkOutcome.NOT_OWN_CONTACT)
    phone = normalize_phone(phone_number)
    try:
        found = await (shop or LocalShopData(session)).customer_by_phone(phone)
    except ShopDataUnavailable:
        return LinkResult(LinkOutcome.UNAVAILABLE)
    if found is None:
        return LinkResult(LinkOutcome.NO_CUSTOMER)
    customer = await _local_record(session, found)
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


async def _local_record(session: AsyncSession, found: ShopCustomer) -> Customer:
    """The csbot row that holds the Telegram link: the imported one, or a mirror of the
    shop system's customer (created or refreshed here) when orders are read live."""
    customer = await customers.by_key(session, found.customer_id) or await customers.by_phone(
        session, found.phone
    )
    if customer is None:
        customer = Customer(
            external_id=found.customer_id, name=found.name, phone=found.phone, email=found.email
        )
    elif customer_id_of(customer) != found.customer_id or customer.phone != found.phone:
        if customer.phone != found.phone:
            customer.telegram_user_id = None  # the number changed: the old link proved the old one
        customer.external_id, customer.phone, customer.name = found.customer_id, found.phone, found.name
    session.add(customer)
    await session.flush()
    return customer
