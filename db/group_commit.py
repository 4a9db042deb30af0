"""Group commit: writes that arrive while others are being written go in together, with one commit.

Under load most of an inbox write is not its statements but what surrounds them: a
session, a connection checkout, the wait for the write lock, and the commit (on
PostgreSQL a round trip and a WAL flush). While the writers are busy, new writes
queue here; a writer that finishes takes up to MAX_BATCH of them into one
transaction and commits once, and each caller gets its own result when that commit
is durable, never before. A write that finds a writer free runs at once in its
caller's task, in the caller's session if it passes one, exactly as it would
without this class: batching costs nothing when there is nothing to batch.

A write is an `async (session) -> result` that does not commit. When a batch fails
because the database failed (down, locked, timed out: `DATABASE_FAILED`), every
caller of the batch and every write still queued gets that error at once (the inbox
journals them) instead of each batch waiting out its own timeout in turn; any other
error belongs to one write (a unique key when Telegram delivers an update again, a
bug), so the batch is written again one write at a time and only that one fails.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from db.sqlite_driver import statements_on_the_thread

logger = logging.getLogger(__name__)

T = TypeVar("T")
Write = Callable[[AsyncSession], Awaitable[T]]
Queued = tuple[Write[Any], "asyncio.Future[Any]"]

MAX_BATCH = 4
"""Writes per transaction at most. A caller waits for its whole batch: 500 updates arriving at once
written as one batch held every one of them back until the last was written (the streaming bench's
p95 moved from 17.3 s to 18.6 s, bound 17.55 s); batches of 32 gave 17.8 s, of 8 17.5 s, of 4 17.4 s,
while the 50-concurrent throughput did not differ measurably between 4 and 32."""
DATABASE_FAILED: tuple[type[BaseException], ...] = (OperationalError, InterfaceError, OSError, TimeoutError)
"""The database, not one write's data, failed: a connection lost or refused, a lock or statement
timeout, SQLite's "database is locked"."""


class GroupCommit:
    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        exclusive: Callable[[], AbstractAsyncContextManager[object]],
        *,
        writers: int = 1,
    ) -> None:
        """`exclusive`: what every write transaction holds (SQLite's one-writer lock in this process).
        `writers`: transactions at once (1 for SQLite, which takes one writer at a time; more on a
        server database, whose round trips several connections overlap)."""
        self._session_factory = session_factory
        self._exclusive = exclusive
        self._writers = writers
        self._active = 0
        self._queued: list[Queued] = []
        self._flushers: set[asyncio.Task[None]] = set()
        self.batches = 0
        """Transactions that carried more than one write (for the benchmarks and tests)."""

    async def write(self, write: Write[T], *, session: AsyncSession | None = None) -> T:
        """Run `write` and commit; the result once it is committed. `session`: the caller's own, used
        when the write goes alone (its pending work is the caller's to roll back first). A caller
        cancelled while its write waits in the queue takes the write with it."""
        if self._active < self._writers and not self._queued:
            self._active += 1
            try:
                return await self._alone(write, session)
            except DATABASE_FAILED as error:
                self._fail_queued(error)
                raise
            finally:
                self._active -= 1
                self._start_flushers()
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queued.append((write, done))
        self._start_flushers()
        return await done

    @property
    def writers(self) -> int:
        return self._writers

    async def drain(self) -> None:
        """Wait for the queued writes to be written (before the engine is disposed)."""
        while self._flushers:
            await asyncio.gather(*self._flushers, return_exceptions=True)

    async def _alone(self, write: Write[T], session: AsyncSession | None) -> T:
        async with self._exclusive():
            if session is not None:
                result = await write(session)
                await session.commit()
                return result
            async with self._session_factory() as fresh:
                result = await write(fresh)
                await fresh.commit()
                return result

    def _fail_queued(self, error: BaseException) -> None:
        """The database just failed: what waits would fail the same way, one timeout per batch. It goes
        back to its callers now (the inbox journals it)."""
        failed, self._queued = self._queued, []
        for _, done in failed:
            if not done.done():
                done.set_exception(error)

    def _start_flushers(self) -> None:
        while self._queued and self._active < self._writers:
            self._active += 1
            task = asyncio.create_task(self._flush())
            self._flushers.add(task)
            task.add_done_callback(self._flushers.discard)

    async def _flush(self) -> None:
        batch: list[Queued] = []
        try:
            while self._queued:
                batch, self._queued = self._queued[:MAX_BATCH], self._queued[MAX_BATCH:]
                await self._together(batch)
        except asyncio.CancelledError:
            # The loop is closing under it: nobody waits forever for a write that will not run.
            left = batch + (self._queued if self._active == 1 else [])
            for _, done in left:
                if not done.done():
                    done.cancel()
            if self._active == 1:
                self._queued = []
            raise
        finally:
            self._active -= 1

    async def _together(self, batch: list[Queued]) -> None:
        batch = [(write, done) for write, done in batch if not done.done()]  # callers gone: not written
        if not batch:
            return
        try:
            async with self._exclusive(), self._session_factory() as session:
                with statements_on_the_thread():  # a crowd's writes leave the loop to its handlers
                    results = [await write(session) for write, _ in batch]
                await session.commit()
        except asyncio.CancelledError:
            for _, done in batch:
                done.cancel()
            raise
        except DATABASE_FAILED as error:
            for _, done in batch:
                if not done.done():
                    done.set_exception(error)
            self._fail_queued(error)
            return
        except Exception as error:
            if len(batch) == 1:
                batch[0][1].set_exception(error)
                return
            logger.info(
                "a grouped write failed on its own: the batch is written one write at a time",
                extra={"writes": len(batch), "error": type(error).__name__},
            )
            for item in batch:
                await self._together([item])
            return
        if len(batch) > 1:
            self.batches += 1
        for (_, done), result in zip(batch, results, strict=True):
            if not done.done():
                done.set_result(result)
