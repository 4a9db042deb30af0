"""Migrations on PostgreSQL when several instances start at once."""

from __future__ import annotations

import asyncio

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import text

from db import migrate
from db.engine import create_engine


async def test_concurrent_upgrades_take_turns_on_postgresql(database_url: str) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite is one process's file: nothing to race")
    engines = [create_engine(database_url) for _ in range(3)]
    try:
        async with engines[0].begin() as connection:
            await connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            await connection.execute(text("CREATE SCHEMA public"))
        await asyncio.gather(*(migrate.upgrade(engine) for engine in engines))  # no UniqueViolation
        async with engines[1].connect() as connection:
            version = (await connection.execute(text("SELECT version_num FROM alembic_version"))).scalar_one()
        assert version == migrate_head()
    finally:
        for engine in engines:
            await engine.dispose()


def migrate_head() -> str:
    head = ScriptDirectory.from_config(migrate.alembic_config()).get_current_head()
    assert head is not None
    return head
