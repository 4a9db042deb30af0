from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import FaqEntry


async def all_entries(session: AsyncSession) -> Sequence[FaqEntry]:
    return (await session.exec(select(FaqEntry).order_by(col(FaqEntry.id)))).all()
