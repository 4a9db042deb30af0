"""Group commit: writes that arrive while one is being written go in together, with one commit.

Under load most of an inbox write is not its statements but what surrounds them: a
session, a connection checkout, the wait for the write lock, and the commit (on
PostgreSQL a round trip and a WAL flush). While one write runs, the ones that arrive
queue here; when it ends they are written in one transaction and committed once, and
each caller gets its own result when that commit is durable, never before. A lone
write (no load) runs at once in its caller's task, in the caller's session if it
passes one, exactly as it would without this class: batching costs nothing when
there is nothing to batch.

A write is an `async (session) -> result` that does not commit. When a batch fails on
one write's data (a unique key: Telegram delivering an update again), each write of
it is retried alone so only that one fails; when the database itself fails (down,
locked, timed out), every caller of the batch gets the error, as each would have
alone, without waiting a timeout per write.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

logger = logging.getLogger(__name__)

T = TypeVar("T")
Write = Callable[[AsyncSession], Awaitable[T]]

ONE_WRITE_S_DATA: tuple[type[BaseException], ...] = (IntegrityError, DataError)
"""Errors that belong to one write of a batch, not to the database: the others are retried alone."""


class GroupCommit:
    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        exclusive: Callable[[], AbstractAsyncContextManager[object]],
    ) -> None:
        """`exclusive`: what every write transaction holds (SQLite's one-writer lock in this process)."""
        self._session_factory = session_factory
        self._exclusive = exclusive
        self._busy = False
        self._queued: list[tuple[Write[Any], asyncio.Future[Any]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self.batches = 0
        """Transactions that carried more than one write (for the benchmarks and tests)."""

    async def write(self, write: Write[T], *, session: AsyncSession | None = None) -> T:
        """Run `write` and commit; the result once it is committed. `session`: the caller's own, used
        when the write goes alone (its pending work is the caller's to roll back first)."""
        if not self._busy:
            self._busy = True
            try:
                return await self._alone(write, session)
            finally:
                self._hand_over()
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queued.append((write, done))
        return await done  # cancelling the caller does not cancel the write: it is in the batch

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

    def _hand_over(self) -> None:
        """The lone write is done: whatever queued meanwhile goes in one batch, in a task of its own
        (the caller that ran alone is not held up by the others)."""
        if not self._queued:
            self._busy = False
            return
        self._flusher = asyncio.create_task(self._flush())

    async def _flush(self) -> None:
        try:
            while self._queued:
                batch, self._queued = self._queued, []
                await self._together(batch)
        finally:
            for _, done in self._queued:  # only when this task is cancelled (the loop is closing)
                if not done.done():
                    done.cancel()
            self._queued = []
            self._busy = False
            self._flusher = None

    async def _together(self, batch: list[tuple[Write[Any], asyncio.Future[Any]]]) -> None:
        try:
            async with self._exclusive(), self._session_factory() as session:
                results = [await write(session) for write, _ in batch]
                await session.commit()
        except BaseException as error:
            if isinstance(error, ONE_WRITE_S_DATA) and len(batch) > 1:
                logger.info(
                    "a grouped write failed on its own data: the batch is written one by one",
                    extra={"writes": len(batch), "error": type(error).__name__},
                )
                for item in batch:
                    await self._together([item])
                return
            cancelled = isinstance(error, asyncio.CancelledError)
            for _, done in batch:
                if not done.done():
                    done.cancel() if cancelled else done.set_exception(error)
            if cancelled:
                raise
            return
        if len(batch) > 1:
            self.batches += 1
        for (_, done), result in zip(batch, results, strict=True):
            if not done.done():
                done.set_result(result)
