from __future__ import annotations

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer


async def by_telegram_user(session: AsyncSession, telegram_user_id: int) -> Customer | None:
    result = await session.exec(select(Customer).where(Customer.telegram_user_id == telegram_user_id))
    return result.first()


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
