"""SQLite's WAL checkpoints run beside the serving commits, and the log still stays bounded."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, LargeBinary, MetaData, Table, insert
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.app import build_app
from db.engine import create_engine
from db.wal_checkpoint import WalCheckpointer
from services.settings import Settings

BLOBS = Table("blobs", MetaData(), Column("id", Integer, primary_key=True), Column("data", LargeBinary))
PAGE = 4096


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(
        f"sqlite+aiosqlite:///{tmp_path / 'wal.db'}", background_checkpoints=True, lock_timeout_ms=60_000
    )
    async with engine.begin() as connection:
        await connection.run_sync(BLOBS.metadata.create_all)
    yield engine
    await engine.dispose()


async def write(engine: AsyncEngine, commits: int) -> None:
    """Each commit adds a page and a half of data: a few frames of log each."""
    for _ in range(commits):
        async with engine.begin() as connection:
            await connection.execute(insert(BLOBS).values(data=b"x" * (PAGE + PAGE // 2)))


async def test_no_commit_checkpoints_when_the_process_checkpoints_in_the_background(
    engine: AsyncEngine, tmp_path: Path
) -> None:
    async with engine.connect() as connection:
        assert (await connection.exec_driver_sql("PRAGMA wal_autocheckpoint")).scalar_one() == 0
    await write(engine, 400)  # far past the 1,000 frames at which a commit would checkpoint
    assert (tmp_path / "wal.db").stat().st_size < 100 * PAGE  # the data is still only in the log
    done = await WalCheckpointer(engine).checkpoint()
    assert done.log_frames >= 1_000 and done.checkpointed_frames == done.log_frames
    assert (tmp_path / "wal.db").stat().st_size > 400 * PAGE

    other = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'other.db'}")
    try:
        async with other.connect() as connection:  # a one-shot command keeps SQLite's own checkpoints
            assert (await connection.exec_driver_sql("PRAGMA wal_autocheckpoint")).scalar_one() == 1000
    finally:
        await other.dispose()


async def test_a_log_past_its_bound_starts_over_with_the_writes_held(
    engine: AsyncEngine, tmp_path: Path
) -> None:
    """A passive checkpoint that a reader overlapped copies everything back, yet the log goes on
    growing (under load one always does); past `restart_frames` a round holds the writes and
    restarts it, so the next write goes to the log's beginning. Below it, writes are never held."""
    held: list[str] = []

    @contextlib.asynccontextmanager
    async def exclusive() -> AsyncIterator[None]:
        held.append("held")
        yield

    checkpointer = WalCheckpointer(engine, exclusive=exclusive, restart_frames=400)
    await write(engine, 40)
    reader = sqlite3.connect(tmp_path / "wal.db", isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM blobs").fetchone()
        overlapped = await checkpointer.round()
        await write(engine, 1)
        reader.execute("COMMIT")
    finally:
        reader.close()
    await write(engine, 1)
    assert overlapped.checkpointed_frames == overlapped.log_frames < 400 and held == []
    grown = await checkpointer.round()
    assert grown.log_frames > overlapped.log_frames and held == []  # appended, not started over

    await write(engine, 120)
    restarted = await checkpointer.round()
    assert held == ["held"] and not restarted.busy
    assert restarted.checkpointed_frames == restarted.log_frames >= 400
    await write(engine, 1)
    assert (await checkpointer.checkpoint()).log_frames <= 5  # the one commit, from the top


async def test_a_restart_never_waits_for_a_reader(engine: AsyncEngine, tmp_path: Path) -> None:
    """A long read (an admin's export) must not hold the process's writes for the busy timeout
    (60 s here): the restart does what it can, says busy, and the next round tries again."""
    await write(engine, 40)
    reader = sqlite3.connect(tmp_path / "wal.db", isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM blobs").fetchone()  # a snapshot that needs the log
        held = asyncio.Lock()
        done = await asyncio.wait_for(
            WalCheckpointer(engine, exclusive=lambda: held, restart_frames=1).round(), timeout=30
        )
        assert done.busy
        assert not held.locked()
        reader.execute("COMMIT")
    finally:
        reader.close()
    assert not (await WalCheckpointer(engine, restart_frames=1).round()).busy


async def test_the_serving_app_checkpoints_in_the_background(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'app.db'}",
        journal_path=str(tmp_path / "journal.jsonl"),
        _env_file=None,  # type: ignore[call-arg]
    )
    app = await build_app(settings)
    try:
        async with app.engine.begin() as connection:
            await connection.run_sync(BLOBS.metadata.create_all)
        size = (tmp_path / "app.db").stat().st_size
        await write(app.engine, 100)
        for _ in range(200):  # the rounds copy the log into the database file
            if (tmp_path / "app.db").stat().st_size >= size + 100 * PAGE:
                break
            await asyncio.sleep(0.05)
        assert (tmp_path / "app.db").stat().st_size >= size + 100 * PAGE
    finally:
        await app.close()


async def test_a_checkpoint_cancelled_midway_ends_cancelled_and_leaves_the_pool_waiting(
    engine: AsyncEngine,
) -> None:
    """A shutdown cancels the checkpointer wherever it is; cancelled inside the restart, the
    connection's restore of its busy timeout failed (the cancelled statement spoilt its
    transaction) and that error, not the cancellation, escaped the shutdown."""
    checkpointer = WalCheckpointer(engine)
    for step in range(40):  # cancel at every point of the restart, a little later each time
        await write(engine, 5)
        task = asyncio.create_task(checkpointer.checkpoint("RESTART"))
        await asyncio.sleep(step * 0.0001)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    async with engine.connect() as connection:  # no connection went back to the pool at 0 ms
        assert (await connection.exec_driver_sql("PRAGMA busy_timeout")).scalar_one() == 60_000
