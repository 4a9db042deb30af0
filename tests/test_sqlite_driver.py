"""The one-hop SQLite adapter: same results as SQLAlchemy's, fewer trips to the connection's thread."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from sqlalchemy import Column, Integer, MetaData, Table, Text, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine

from db.engine import create_engine
from db.sqlite_driver import OneHopConnection, statements_on_the_thread

ITEMS = Table("items", MetaData(), Column("id", Integer, primary_key=True), Column("name", Text))


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'driver.db'}")
    async with engine.begin() as connection:
        await connection.run_sync(ITEMS.metadata.create_all)
    yield engine
    await engine.dispose()


@pytest.fixture
async def serving(tmp_path: Path) -> AsyncIterator[tuple[AsyncEngine, Path]]:
    """A serving process's engine (background checkpoints, so inline commits) on a new file."""
    path = tmp_path / "serving.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}", background_checkpoints=True)
    async with engine.begin() as connection:
        await connection.run_sync(ITEMS.metadata.create_all)
    yield engine, path
    await engine.dispose()


async def test_results_can_be_read_in_batches(engine: AsyncEngine) -> None:
    """fetchmany and partitions read the cursor's arraysize, which the buffered cursor keeps itself."""
    async with engine.begin() as connection:
        await connection.execute(insert(ITEMS), [{"name": name} for name in "abcde"])
        result = await connection.execute(select(ITEMS.c.name).order_by(ITEMS.c.id))
        assert [row.name for row in result.fetchmany(2)] == ["a", "b"]
        assert [[row.name for row in part] for part in result.partitions(2)] == [["c", "d"], ["e"]]
        assert [row.name for row in (await connection.execute(select(ITEMS.c.name))).fetchmany()] == ["a"]


class HopCounter:
    """Calls queued to aiosqlite's connection threads while installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.hops = 0
        original = aiosqlite.Connection._execute

        async def counted(connection: aiosqlite.Connection, fn: Any, *args: Any, **kwargs: Any) -> Any:
            self.hops += 1
            return await original(connection, fn, *args, **kwargs)

        monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)


async def test_statements_return_what_sqlalchemy_expects(engine: AsyncEngine) -> None:
    async with engine.begin() as connection:
        inserted = await connection.execute(insert(ITEMS).returning(ITEMS.c.id), {"name": "a"})
        first = inserted.scalar_one()
        many = await connection.execute(insert(ITEMS), [{"name": "b"}, {"name": "c"}])
        assert many.rowcount == 2
        changed = await connection.execute(update(ITEMS).where(ITEMS.c.name != "a").values(name="z"))
        assert changed.rowcount == 2
        single = await connection.execute(insert(ITEMS).values(name="d"))
        assert single.inserted_primary_key == (first + 3,)
    async with engine.connect() as connection:
        rows = (await connection.execute(select(ITEMS.c.name).order_by(ITEMS.c.id))).scalars().all()
    assert rows == ["a", "z", "z", "d"]


async def test_a_statement_is_one_trip_and_an_idle_commit_none(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with engine.connect() as connection:
        await connection.execute(text("SELECT 1"))  # the pool's first checkout is not counted
        await connection.commit()
        counter = HopCounter(monkeypatch)
        await connection.execute(insert(ITEMS), {"name": "a"})
        await connection.commit()
        assert counter.hops == 2, "the insert and its commit"
        await connection.execute(select(ITEMS))
        await connection.commit()  # a read opens no SQLite transaction: nothing to commit
        await connection.rollback()
    assert counter.hops == 3


async def test_a_serving_engine_commits_without_a_trip(
    serving: tuple[AsyncEngine, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no commit checkpoints (a serving process), a commit with nothing queued runs on the
    caller's thread; what it committed is durable and seen by every other connection."""
    engine, path = serving
    async with engine.connect() as connection:
        await connection.execute(text("SELECT 1"))
        counter = HopCounter(monkeypatch)
        await connection.execute(insert(ITEMS), {"name": "kept"})
        await connection.commit()
        assert counter.hops == 1, "the insert only"
        await connection.execute(insert(ITEMS), {"name": "dropped"})
        await connection.rollback()
        assert counter.hops == 2, "the second insert only"
    with contextlib.closing(sqlite3.connect(path)) as other:
        assert other.execute("SELECT name FROM items").fetchall() == [("kept",)]


async def test_a_serving_transaction_runs_inline_once_it_holds_the_write_lock(
    serving: tuple[AsyncEngine, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first write of a transaction goes to the thread (it may wait for the lock); the
    statements after it, reads included, and the commit run inline, with the same results."""
    engine, path = serving
    async with engine.connect() as connection:
        await connection.execute(text("SELECT 1"))
        counter = HopCounter(monkeypatch)
        await connection.execute(select(ITEMS))
        assert counter.hops == 1, "a read outside a write goes to the thread"
        changed = await connection.execute(update(ITEMS).values(name="none yet"))
        assert changed.rowcount == 0
        assert counter.hops == 2, "the transaction's first write goes to the thread"
        first = (await connection.execute(insert(ITEMS).returning(ITEMS.c.id), {"name": "a"})).scalar_one()
        await connection.execute(insert(ITEMS), [{"name": "b"}, {"name": "c"}])
        names = (await connection.execute(select(ITEMS.c.name).order_by(ITEMS.c.id))).scalars().all()
        await connection.commit()
        assert counter.hops == 2, "inserts, read and commit inline"
        assert names == ["a", "b", "c"]
        await connection.execute(insert(ITEMS), {"name": "d"})
        assert counter.hops == 3, "a new transaction's first write: the thread again"
        with statements_on_the_thread():  # a group commit's batch
            await connection.execute(insert(ITEMS), {"name": "e"})
        assert counter.hops == 4, "a batch's statements keep their trips"
        await connection.rollback()
    with contextlib.closing(sqlite3.connect(path)) as other:
        assert other.execute("SELECT id, name FROM items ORDER BY id").fetchall() == [
            (first, "a"),
            (first + 1, "b"),
            (first + 2, "c"),
        ]


async def test_a_first_write_waiting_for_the_lock_does_not_hold_up_the_event_loop(
    serving: tuple[AsyncEngine, Path],
) -> None:
    """Another connection holds SQLite's write lock: the write waits on its thread while the
    loop goes on, and lands once the lock is released."""
    engine, path = serving
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as other:
        other.execute("BEGIN IMMEDIATE")
        async with engine.connect() as connection:
            write = asyncio.ensure_future(connection.execute(insert(ITEMS), {"name": "waited"}))
            for _ in range(20):  # the loop goes on: a write run inline would hold it for the busy timeout
                await asyncio.sleep(0.005)
            assert not write.done(), "the write waits for the lock"
            other.execute("COMMIT")
            await write
            await connection.execute(insert(ITEMS), {"name": "after"})
            await connection.commit()
        assert other.execute("SELECT name FROM items ORDER BY id").fetchall() == [("waited",), ("after",)]


@pytest.mark.parametrize("serving", [False, True], ids=["thread-commits", "inline-commits"])
async def test_a_cancelled_write_is_rolled_back_not_left_open(tmp_path: Path, serving: bool) -> None:
    """A caller that stops waiting (a timeout, a shutdown) leaves its statement queued on the
    connection's thread; whatever follows (a rollback, SQLAlchemy invalidating the connection)
    must still reach SQLite after it, so the write is never committed by a later user."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'cancel.db'}", background_checkpoints=serving)
    async with engine.begin() as connection:
        await connection.run_sync(ITEMS.metadata.create_all)
    try:
        await _cancel_a_write(engine)
    finally:
        await engine.dispose()


async def _cancel_a_write(engine: AsyncEngine) -> None:
    release = threading.Event()
    async with engine.connect() as connection:
        await connection.execute(select(ITEMS))
        adapted = (await connection.get_raw_connection()).dbapi_connection
        assert isinstance(adapted, OneHopConnection)
        driver = adapted._connection
        busy = asyncio.ensure_future(driver._execute(release.wait, 5))  # holds the thread
        write = asyncio.ensure_future(connection.execute(insert(ITEMS), {"name": "cancelled"}))
        await asyncio.sleep(0.05)
        write.cancel()
        with pytest.raises(asyncio.CancelledError):
            await write
        rollback = asyncio.ensure_future(connection.rollback())
        await asyncio.sleep(0.05)
        release.set()
        await busy
        await rollback
    async with engine.connect() as connection:
        assert (await connection.execute(select(ITEMS))).all() == []
