"""Opening the shop's database for a command that only reads what the bot recorded.

`csbot stats`, `logs` and `eval` never create or migrate anything: pointed at a
database that is not there, or that csbot never set up, they say so in one line
naming CSBOT_DATABASE_URL instead of creating an empty ./csbot.db and failing on
a missing table.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from services.settings import ENV_PREFIX, ConfigError, Settings

NAME = f"{ENV_PREFIX}DATABASE_URL"


def sqlite_file(database_url: str) -> Path | None:
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    return Path(url.database)


def missing_sqlite_file(database_url: str) -> Path | None:
    """The SQLite file the URL names when it does not exist (connecting would create it)."""
    path = sqlite_file(database_url)
    return None if path is None or path.exists() else path


async def open_recorded(settings: Settings) -> AsyncEngine:
    """An engine on a database csbot has set up at the current schema, or a ConfigError."""
    from db import migrate
    from db.engine import check_connection, create_engine

    missing = missing_sqlite_file(settings.database_url)
    if missing is not None:
        raise ConfigError(
            f"{NAME}: no database at {missing.resolve()} "
            "(nothing recorded yet; `csbot db upgrade` creates it)"
        )
    path = sqlite_file(settings.database_url)
    if path is not None and path.is_file() and path.stat().st_size == 0:
        # An empty file has no schema; connecting would turn it into a WAL database (a write).
        raise ConfigError(
            f"{NAME}: the database has no csbot schema ({path} is empty): run `csbot db upgrade`"
        )
    engine = create_engine(settings.database_url)
    try:
        await check_connection(engine)
        at, head = await migrate.current_revision(engine), migrate.head_revision()
    except BaseException:
        await engine.dispose()
        raise
    if at != head:
        await engine.dispose()
        state = "has no csbot schema" if at is None else f"is at schema {at}, csbot needs {head}"
        raise ConfigError(f"{NAME}: the database {state}: run `csbot db upgrade`")
    return engine
