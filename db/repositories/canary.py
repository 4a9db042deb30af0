"""Canary weights as they stand, and the audit trail of every change."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import CanaryArmState, CanaryEvent, LLMReply
from db.types import utcnow


async def states(session: AsyncSession) -> dict[str, CanaryArmState]:
    return {row.arm: row for row in (await session.exec(select(CanaryArmState))).all()}


async def last_reply(session: AsyncSession) -> int:
    """The newest logged answer's id: a watermark that, unlike a clock, every instance agrees on."""
    return int((await session.exec(select(func.max(LLMReply.id)))).one() or 0)


async def save(session: AsyncSession, state: CanaryArmState, event: CanaryEvent | None) -> None:
    """The new state and its audit line, in one transaction: no change without its record."""
    state.updated_at = utcnow()
    session.add(state)
    if event is not None:
        session.add(event)
    await session.commit()


async def stop(session: AsyncSession, arm: str, *, status: str, at: datetime, event: CanaryEvent) -> bool:
    """Weight to 0 unless already 0: True for the one caller (of several processes) that stopped it."""
    result = await session.exec(  # type: ignore[call-overload]
        update(CanaryArmState)
        .where(col(CanaryArmState.arm) == arm, col(CanaryArmState.weight) > 0)
        .values(weight=0.0, status=status, step=None, step_since=None, updated_at=at)
    )
    if not result.rowcount:
        await session.rollback()
        return False
    session.add(event)
    await session.commit()
    return True


async def events(session: AsyncSession, *, limit: int = 20, arm: str | None = None) -> list[CanaryEvent]:
    """Newest first."""
    statement = select(CanaryEvent)
    if arm is not None:
        statement = statement.where(CanaryEvent.arm == arm)
    statement = statement.order_by(col(CanaryEvent.id).desc()).limit(limit)
    return list((await session.exec(statement)).all())


def event(
    arm: str,
    action: str,
    old: float | None,
    new: float,
    actor: str,
    reason: str = "",
    details: dict[str, Any] | None = None,
) -> CanaryEvent:
    return CanaryEvent(
        arm=arm,
        action=action,
        old_weight=old,
        new_weight=new,
        actor=actor,
        reason=reason,
        details=details or {},
    )
