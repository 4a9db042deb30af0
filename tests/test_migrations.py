"""The Alembic migrations build exactly the schema the models describe, on every backend."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from db.engine import create_engine


async def test_migrated_schema_matches_the_models(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            differences = await connection.run_sync(
                lambda sync: compare_metadata(MigrationContext.configure(sync), SQLModel.metadata)
            )
    finally:
        await engine.dispose()
    assert differences == []
