"""The database a benchmark runs on: a fresh SQLite file by default, or the given server's
schema dropped and migrated again, so every run starts from the same empty shop."""

from __future__ import annotations

from pathlib import Path

from db import migrate
from db.engine import create_engine
from services.settings import Settings


async def fresh_database(url: str | None, workdir: Path, *, name: str) -> str:
    """The URL to run on: `workdir/<name>.db` without a URL, else the server's, migrated anew."""
    if url is None:
        return f"sqlite+aiosqlite:///{workdir / f'{name}.db'}"
    url = Settings(database_url=url, _env_file=None).database_url  # type: ignore[call-arg]
    engine = create_engine(url)
    try:
        await migrate.recreate(engine)
    finally:
        await engine.dispose()
    return url
