"""Real database faults for tests and the fault bench: a held lock, a database that refuses connections.

Nothing here patches csbot: another connection takes a lock the way a long
migration or a stuck admin query would, or PostgreSQL itself is told to refuse
connections and drop the ones it has, the way a restart or failover looks.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
from sqlalchemy.engine import make_url


def _asyncpg_dsn(database_url: str, *, database: str | None = None) -> str:
    url = make_url(database_url).set(drivername="postgresql")
    if database is not None:
        url = url.set(database=database)
    return url.render_as_string(hide_password=False)


@asynccontextmanager
async def held_lock(database_url: str, table: str = "inbound_messages") -> AsyncIterator[None]:
    """Hold an exclusive lock until the block ends: on SQLite the whole database's write lock,
    on PostgreSQL an ACCESS EXCLUSIVE lock on `table` (reads and writes of it wait)."""
    if database_url.startswith("sqlite"):
        path = make_url(database_url).database
        assert path is not None
        # In a thread: waiting for the lock must not stop the event loop that would release it.
        connection = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
        try:
            await asyncio.to_thread(connection.execute, "BEGIN EXCLUSIVE")
            yield
            connection.execute("ROLLBACK")
        finally:
            connection.close()
        return
    connection = await asyncpg.connect(_asyncpg_dsn(database_url))
    try:
        transaction = connection.transaction()
        await transaction.start()
        await connection.execute(f'LOCK TABLE "{table}" IN ACCESS EXCLUSIVE MODE')
        yield
        await transaction.rollback()
    finally:
        await connection.close()


@asynccontextmanager
async def postgres_outage(database_url: str) -> AsyncIterator[None]:
    """The database refuses new connections and drops the open ones until the block ends."""
    name = make_url(database_url).database
    admin = await asyncpg.connect(_asyncpg_dsn(database_url, database="postgres"))
    try:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            name,
        )
        yield
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await admin.close()


@asynccontextmanager
async def database_outage(database_url: str) -> AsyncIterator[None]:
    """The strongest outage each backend allows here: PostgreSQL goes away; an embedded SQLite file
    cannot, so its write lock is held (every insert fails once the busy timeout passes)."""
    if database_url.startswith("sqlite"):
        async with held_lock(database_url):
            yield
        return
    async with postgres_outage(database_url):
        yield
