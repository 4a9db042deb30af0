"""Alembic, driven from code so `csbot db upgrade` needs no alembic.ini."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


MIGRATION_LOCK_KEY = 0x637362_6F74  # "csbot": one advisory lock id for every csbot on the server


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate; on PostgreSQL under an advisory lock, so instances starting together take turns
    (the later ones find nothing to do) instead of racing on the same CREATE TABLE."""
    async with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
        await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), revision))


async def recreate(engine: AsyncEngine) -> None:
    """An empty PostgreSQL schema at the latest revision: for tests and benches, never a shop."""
    async with engine.begin() as connection:
        await connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        await connection.execute(text("CREATE SCHEMA public"))
    await upgrade(engine)


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at; None when csbot never migrated it (no schema)."""
    from alembic.runtime.migration import MigrationContext

    async with engine.connect() as connection:
        return await connection.run_sync(lambda sync: MigrationContext.configure(sync).get_current_revision())


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()
