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
