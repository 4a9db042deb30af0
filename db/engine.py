"""Async engine and session factory for SQLite (embedded default) or PostgreSQL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

SQLITE_BUSY_TIMEOUT_MS = 5_000


def create_engine(database_url: str, **kwargs: Any) -> AsyncEngine:
    """Engine with the per-connection settings each backend needs.

    SQLite gets WAL (readers don't block the writer), a busy timeout (a second
    writer waits instead of failing) and enforced foreign keys.
    """
    if database_url.startswith("sqlite"):
        engine = create_async_engine(database_url, **kwargs)
        event.listen(engine.sync_engine, "connect", _configure_sqlite)
        return engine
    return create_async_engine(database_url, pool_pre_ping=True, **kwargs)


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    for pragma in (
        "PRAGMA journal_mode=WAL",
        f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}",
        "PRAGMA foreign_keys=ON",
        "PRAGMA synchronous=NORMAL",
    ):
        cursor.execute(pragma)
    cursor.close()


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)


class DatabaseUnreachable(RuntimeError):
    """The configured database did not answer; raised at start with the driver's reason."""


async def check_connection(engine: AsyncEngine) -> None:
    """Fail at start, not at the first customer, when the database is unreachable."""
    try:
        async with engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except (OSError, DBAPIError) as error:
        reason = getattr(error, "orig", None) or error
        raise DatabaseUnreachable(f"cannot reach the database at {engine.url!r}: {reason}") from error
