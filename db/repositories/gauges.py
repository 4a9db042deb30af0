"""Counts an operator watches, read when /metrics is scraped."""

from __future__ import annotations

from sqlmodel import col, func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import HandoffSession, InboundMessage, InboundStatus


async def inbox_backlog(session: AsyncSession) -> int:
    """Updates stored and not answered yet: being handled, or waiting for another try."""
    statement = (
        select(func.count())
        .select_from(InboundMessage)
        .where(InboundMessage.status == InboundStatus.RECEIVED)
    )
    return int((await session.exec(statement)).one())


async def open_handoffs(session: AsyncSession) -> int:
    statement = (
        select(func.count()).select_from(HandoffSession).where(col(HandoffSession.closed_at).is_(None))
    )
    return int((await session.exec(statement)).one())
