from __future__ import annotations

from collections.abc import Collection

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer


async def by_telegram_user(session: AsyncSession, telegram_user_id: int) -> Customer | None:
    result = await session.exec(select(Customer).where(Customer.telegram_user_id == telegram_user_id))
    return result.first()


async def by_telegram_users(session: AsyncSession, telegram_user_ids: Collection[int]) -> dict[int, Customer]:
    """The linked customers of these Telegram users, by user id (one query per 500)."""
    ids, found = sorted(set(telegram_user_ids)), {}
    for start in range(0, len(ids), 500):  # bounded IN lists on every database
        statement = select(Customer).where(col(Customer.telegram_user_id).in_(ids[start : start + 500]))
        for customer in (await session.exec(statement)).all():
            if customer.telegram_user_id is not None:
                found[customer.telegram_user_id] = customer
    return found


async def by_phone(session: AsyncSession, phone_digits: str) -> Customer | None:
    result = await session.exec(select(Customer).where(Customer.phone == phone_digits))
    return result.first()


async def by_key(session: AsyncSession, customer_id: str) -> Customer | None:
    """By the shop's customer id; a customer without one goes by csbot's row number."""
    found = (await session.exec(select(Customer).where(Customer.external_id == customer_id))).first()
    if found is None and customer_id.isdigit():
        row = await session.get(Customer, int(customer_id))
        if row is not None and row.external_id is None:
            found = row
    return found
