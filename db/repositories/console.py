"""Storage for the admin console: login links, sessions and the audit trail."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import CursorResult, delete, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import AdminAudit, ConsoleLoginLink, ConsoleSession


async def add_login_link(session: AsyncSession, token_hash: str, admin_id: int, expires_at: datetime) -> None:
    session.add(ConsoleLoginLink(token_hash=token_hash, admin_user_id=admin_id, expires_at=expires_at))
    await session.flush()


async def use_login_link(session: AsyncSession, token_hash: str, now: datetime) -> int | None:
    """Mark an unused, unexpired link used and return its admin; None for anything else.

    One conditional UPDATE: of two requests racing with the same link, one wins."""
    link = (
        await session.exec(select(ConsoleLoginLink).where(ConsoleLoginLink.token_hash == token_hash))
    ).first()
    if link is None or link.used_at is not None or link.expires_at <= now:
        return None
    result: CursorResult[Any] = await session.exec(  # type: ignore[call-overload]
        update(ConsoleLoginLink)
        .where(col(ConsoleLoginLink.id) == link.id, col(ConsoleLoginLink.used_at).is_(None))
        .values(used_at=now)
    )
    return link.admin_user_id if result.rowcount == 1 else None


async def add_session(
    session: AsyncSession, session_hash: str, admin_id: int, csrf_token: str, expires_at: datetime
) -> None:
    session.add(
        ConsoleSession(
            session_hash=session_hash, admin_user_id=admin_id, csrf_token=csrf_token, expires_at=expires_at
        )
    )
    await session.flush()


async def live_session(session: AsyncSession, session_hash: str, now: datetime) -> ConsoleSession | None:
    row = (
        await session.exec(select(ConsoleSession).where(ConsoleSession.session_hash == session_hash))
    ).first()
    return row if row is not None and row.expires_at > now else None


async def drop_session(session: AsyncSession, session_hash: str) -> None:
    await session.exec(  # type: ignore[call-overload]
        delete(ConsoleSession).where(col(ConsoleSession.session_hash) == session_hash)
    )


async def drop_expired(session: AsyncSession, now: datetime) -> None:
    """Expired links and sessions are worth nothing; the audit trail keeps what happened."""
    await session.exec(  # type: ignore[call-overload]
        delete(ConsoleLoginLink).where(col(ConsoleLoginLink.expires_at) < now)
    )
    await session.exec(  # type: ignore[call-overload]
        delete(ConsoleSession).where(col(ConsoleSession.expires_at) < now)
    )


async def add_audit(
    session: AsyncSession, admin_id: int | None, action: str, target: str, detail: dict[str, Any]
) -> None:
    session.add(AdminAudit(admin_user_id=admin_id, action=action, target=target, detail=detail))
    await session.flush()


async def recent_audit(session: AsyncSession, *, limit: int = 100) -> list[AdminAudit]:
    statement = select(AdminAudit).order_by(col(AdminAudit.id).desc()).limit(limit)
    return list((await session.exec(statement)).all())
