"""One writer at a time on SQLite, in the order they came, except urgent ones, which go first.

A SQLite file takes one writer at a time; a process's writers queue here rather than in
SQLite's busy handler (see `services.inbox.durable.Inbox.holding_writes`). Most writes can wait
their turn. A delivery mark cannot: until it is written, a crash means the customer gets
that reply again. `urgent()` puts a writer ahead of every waiting ordinary one (behind the
write under way and the urgent ones before it), so a mark waits for one write, not a queue
of them.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType


class WriterTurns:
    def __init__(self) -> None:
        self._busy = False
        self._urgent: deque[asyncio.Future[None]] = deque()
        self._ordinary: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        return len(self._urgent) + len(self._ordinary)

    async def acquire(self, *, urgent: bool = False) -> None:
        if not self._busy and not self._urgent and not self._ordinary:
            self._busy = True
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._urgent if urgent else self._ordinary
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # handed the turn just as it was cancelled: pass it on
            else:
                queue.remove(turn)
            raise

    def release(self) -> None:
        """Hand the turn to the next waiter (urgent ones first), or free it."""
        for queue in (self._urgent, self._ordinary):
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    turn.set_result(None)  # still busy: the turn passes straight to it
                    return
        self._busy = False

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.release()

    @asynccontextmanager
    async def urgent(self) -> AsyncIterator[None]:
        await self.acquire(urgent=True)
        try:
            yield
        finally:
            self.release()
