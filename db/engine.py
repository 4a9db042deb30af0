"""Async engine and session factory for SQLite (embedded default) or PostgreSQL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

from db.sqlite_driver import one_hop_dbapi

SQLITE_BUSY_TIMEOUT_MS = 5_000
CONNECT_TIMEOUT_S = 5.0


def create_engine(
    database_url: str,
    *,
    lock_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS,
    statement_timeout_ms: int = 10_000,
    pool_size: int = 16,
    background_checkpoints: bool = False,
    overflow: int | None = None,
    **kwargs: Any,
) -> AsyncEngine:
    """Engine with the per-connection settings each backend needs, and bounded waits.

    SQLite gets WAL (readers don't block the writer), a busy timeout (a second
    writer waits that long, then fails: a fault the inbox retries) and enforced
    foreign keys; with `background_checkpoints` no commit checkpoints the log, a
    `db.wal_checkpoint.WalCheckpointer` must run instead (serving processes).
    PostgreSQL gets statement and lock timeouts on every connection, a connect
    timeout, and a pool sized to the handler concurrency, so a locked table or a
    dead server fails an update in seconds instead of blocking every handler
    behind it. `overflow` bounds the connections beyond `pool_size` (on SQLite too, whose
    pool otherwise keeps SQLAlchemy's default).
    """
    if database_url.startswith("sqlite"):
        if overflow is not None:
            kwargs.update(pool_size=pool_size, max_overflow=overflow)
        if database_url.startswith("sqlite+aiosqlite") and "module" not in kwargs:
            # One thread hop per statement; with background checkpoints, none for a commit.
            kwargs["module"] = one_hop_dbapi(inline_commits=background_checkpoints)
        engine = create_async_engine(database_url, **kwargs)
        event.listen(
            engine.sync_engine,
            "connect",
            lambda connection, _record: _configure_sqlite(
                connection, lock_timeout_ms, autocheckpoint=not background_checkpoints
            ),
        )
        return engine
    server_settings = {
        "statement_timeout": str(statement_timeout_ms),
        "lock_timeout": str(lock_timeout_ms),
    }
    return create_async_engine(
        database_url,
        pool_pre_ping=True,
        pool_size=pool_size,
        max_overflow=max(4, pool_size // 4) if overflow is None else overflow,
        pool_timeout=CONNECT_TIMEOUT_S,
        connect_args={"server_settings": server_settings, "timeout": CONNECT_TIMEOUT_S},
        **kwargs,
    )


def _configure_sqlite(dbapi_connection: Any, busy_timeout_ms: int, *, autocheckpoint: bool) -> None:
    cursor = dbapi_connection.cursor()
    pragmas = [
        "PRAGMA journal_mode=WAL",
        f"PRAGMA busy_timeout={busy_timeout_ms}",
        "PRAGMA foreign_keys=ON",
        "PRAGMA synchronous=NORMAL",
    ]
    if not autocheckpoint:
        pragmas.append("PRAGMA wal_autocheckpoint=0")
    for pragma in pragmas:
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
