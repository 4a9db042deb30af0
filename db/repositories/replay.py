"""Offline replay runs: the questions a run replays, its stored results, and the logged answers."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, LLMReply, ReplayItem, ReplayRun
from db.repositories.logs import customer_traffic


async def unfinished_run(session: AsyncSession, *, config_hash: str) -> ReplayRun | None:
    """The newest run of this configuration that has not finished, if any."""
    statement = (
        select(ReplayRun)
        .where(ReplayRun.config_hash == config_hash, col(ReplayRun.finished_at).is_(None))
        .order_by(col(ReplayRun.id).desc())
    )
    return (await session.exec(statement)).first()


async def replayed_questions(session: AsyncSession, *, run_id: int | None) -> set[int]:
    """The ids of the questions this run has a stored result for."""
    statement = select(ReplayItem.inbound_id).where(ReplayItem.run_id == run_id)
    return set((await session.exec(statement)).all())


async def answered_questions(
    session: AsyncSession, *, since: datetime, exclude_users: Collection[int] = (), limit: int | None = None
) -> list[int]:
    """Ids of the customers' text messages since `since` that have a logged answer, oldest first."""
    statement = (
        select(InboundMessage.id)
        .join(LLMReply, col(LLMReply.inbound_id) == col(InboundMessage.id))
        .where(col(InboundMessage.created_at) >= since, customer_traffic(), InboundMessage.kind == "text")
        .order_by(col(InboundMessage.id))
    )
    if exclude_users:
        statement = statement.where(col(InboundMessage.telegram_user_id).not_in(list(exclude_users)))
    if limit is not None:
        statement = statement.limit(limit)
    return [row for row in (await session.exec(statement)).all() if row is not None]


async def llm_reply_to(session: AsyncSession, *, inbound_id: int) -> LLMReply | None:
    """The logged answer to this message, if the answer service made one."""
    return (await session.exec(select(LLMReply).where(LLMReply.inbound_id == inbound_id))).first()


async def run_items(session: AsyncSession, *, run_id: int | None) -> list[ReplayItem]:
    """Every stored result of this run, unordered."""
    return list((await session.exec(select(ReplayItem).where(ReplayItem.run_id == run_id))).all())
