"""SQLite's WAL checkpoints, moved off the path of the commits that answer customers.

In WAL mode SQLite copies the log back into the database file (a checkpoint) inside
whichever commit pushes the log past 1,000 pages: that commit writes the pages back and
fsyncs the database file while its customer waits. `python -m bench.bot_overhead --updates
1000` on one quiet machine, sequential: p99 6.03 ms with those checkpoints, 4.47 and 4.11 ms
with these instead. A serving process turns the automatic checkpoint off on its connections
(`create_engine(..., background_checkpoints=True)`) and runs this instead:

- every `interval` seconds a passive checkpoint on a pooled connection of its own. Passive
  waits for nobody, so no commit waits for it, and it copies back all but what was written
  while it ran;
- the log starts over from its beginning only after a checkpoint that nothing wrote beside.
  Under constant load every passive round has a write beside it, and the log would grow
  without end: once it holds `restart_frames`, one round runs while the process's writes are
  held (`exclusive`) and in RESTART mode, which leaves the next writer to start the log over.
  The passive round just before has copied nearly everything, so writes wait for little more
  than the database file's fsync. It does not wait for a reader or a writer of another
  connection (busy timeout 0): then it does what it can, and the next round tries again.

On PostgreSQL there is nothing to do (the server checkpoints on its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal, NamedTuple

from sqlalchemy.exc import DBAPIError, InvalidRequestError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

logger = logging.getLogger(__name__)

CHECKPOINT_INTERVAL_S = 0.25
"""At the rate one process writes (a few hundred commits a second, about eight pages each), a
quarter of a second of log is about 2,000 pages: each round copies a few ms' worth. Rounds of
0.1 to 0.5 s measured the same (p99 4.2-4.7 ms)."""
RESTART_FRAMES = 4_000
"""About 16 MB of log (4 KiB pages): past this the log is made to start over."""
TASK_NAME = "sqlite-wal-checkpoint"


class Checkpoint(NamedTuple):
    """What `PRAGMA wal_checkpoint` reports."""

    busy: bool
    log_frames: int
    """Frames in the log."""
    checkpointed_frames: int
    """Of those, copied back into the database file."""


def _checkpoint(row: Any) -> Checkpoint:
    busy, log_frames, checkpointed = row
    return Checkpoint(bool(busy), int(log_frames), int(checkpointed))


async def _restore_busy_timeout(connection: AsyncConnection, waits: int) -> None:
    """Give the connection its busy timeout back, or take it out of the pool.

    A checkpoint cancelled midway (a shutdown) leaves the connection unusable until rolled
    back, so the restore fails; that error must not replace the cancellation, and the
    connection must not go back to the pool waiting 0 ms for every lock.
    """
    try:
        await connection.exec_driver_sql(f"PRAGMA busy_timeout={int(waits)}")
    except (DBAPIError, InvalidRequestError):
        await connection.invalidate()


class WalCheckpointer:
    """Checkpoints one SQLite database in the background while the process serves."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        exclusive: Callable[[], AbstractAsyncContextManager[object]] = contextlib.nullcontext,
        interval: float = CHECKPOINT_INTERVAL_S,
        restart_frames: int = RESTART_FRAMES,
    ) -> None:
        self._engine = engine
        self._exclusive = exclusive
        self._interval = interval
        self._restart_frames = restart_frames
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None and self._engine.dialect.name == "sqlite":
            self._task = asyncio.create_task(self._run(), name=TASK_NAME)

    async def checkpoint(self, mode: Literal["PASSIVE", "RESTART"] = "PASSIVE") -> Checkpoint:
        async with self._engine.connect() as connection:
            if mode == "PASSIVE":
                result = await connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
                return _checkpoint(result.one())
            waits = (await connection.exec_driver_sql("PRAGMA busy_timeout")).scalar_one()
            await connection.exec_driver_sql("PRAGMA busy_timeout=0")
            try:
                result = await connection.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")
                return _checkpoint(result.one())
            finally:
                await _restore_busy_timeout(connection, waits)

    async def round(self) -> Checkpoint:
        """A passive checkpoint; a restart of the log too when it has grown past its bound."""
        done = await self.checkpoint()
        if done.log_frames < self._restart_frames:
            return done
        async with self._exclusive():
            return await self.checkpoint("RESTART")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            try:
                await self.round()
            except (DBAPIError, OSError) as error:
                # The next round tries again; meanwhile the log only grows, nothing is lost.
                logger.warning("SQLite WAL checkpoint failed", extra={"error": str(error)})

    async def close(self) -> None:
        """Stops the rounds; closing the last connection checkpoints the rest (SQLite does that)."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
