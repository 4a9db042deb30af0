"""Handling slots shared fairly between chats: a chat holds at most one, its later messages wait outside.

A process handles a bounded number of updates at once (the slots). Before this,
a customer who sent 100 messages in a row got 100 handling tasks, each holding a
slot while it waited for the chat's lock, so everyone else queued behind them.
Here a chat's next update is taken only when its previous one is done, and it
then queues for a slot behind the other chats' updates (round robin): per-chat
order stays, and one busy chat costs the others at most one slot.

Reservation is synchronous and comes first (`reserve`), so the caller knows
whether the update starts at once before it stores it: an update that waits is
stored unclaimed (no lease runs out while it waits; the caller's job claims it
when its turn comes), one that starts now is stored claimed. The job itself is
given once the update is stored (`Ticket.run`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

logger = logging.getLogger(__name__)

Job = Callable[[], Awaitable[Any]]


async def _nothing() -> None:
    return None


class Ticket:
    """A place in the queue of one chat; `run` gives the work to do when its turn comes."""

    def __init__(self, key: Hashable, *, starts_now: bool) -> None:
        self.key = key
        self.starts_now = starts_now
        self._job: asyncio.Future[Job] = asyncio.get_running_loop().create_future()

    def run(self, job: Job) -> None:
        if not self._job.done():
            self._job.set_result(job)

    def drop(self) -> None:
        """Nothing to do after all (storing failed): the chat's next update goes on."""
        self.run(_nothing)

    async def job(self) -> Job:
        return await self._job


class ChatScheduler:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._running = 0
        self._chats: dict[Hashable, deque[Ticket]] = {}
        """Chats with an update running or queued for a slot, and what waits behind it."""
        self._ready: deque[Ticket] = deque()
        """Chats' next updates waiting for a slot, oldest first."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._room = asyncio.Event()
        self._room.set()
        self.stopped = False

    @property
    def free_slots(self) -> int:
        return max(0, self.capacity - self._running - len(self._ready))

    @property
    def waiting(self) -> int:
        """Updates stored and waiting behind an earlier one of their chat."""
        return sum(len(backlog) for backlog in self._chats.values())

    def holds(self, key: Hashable) -> bool:
        """This chat has an update running or waiting here: its other updates are ours to take."""
        return key in self._chats

    def reserve(self, key: Hashable, *, queue: bool = True) -> Ticket | None:
        """A place for the chat's next update: at once when the chat is idle and a slot is free,
        else in line. `queue=False`: None instead of a place in line for a chat not held here
        (the caller leaves the update stored for whichever process is free)."""
        backlog = self._chats.get(key)
        if backlog is not None:
            ticket = Ticket(key, starts_now=False)
            backlog.append(ticket)
            return ticket
        starts_now = self._running < self.capacity and not self._ready and not self.stopped
        if not starts_now and not queue:
            return None
        self._chats[key] = deque()
        ticket = Ticket(key, starts_now=starts_now)
        if starts_now:
            self._start(ticket)
        else:
            self._ready.append(ticket)
        return ticket

    async def wait_for_room(self, *, backlog_limit: int) -> None:
        """Until a new chat's update could start at once and the backlog is below `backlog_limit`."""
        while (self.free_slots == 0 or self.waiting >= backlog_limit) and not self.stopped:
            self._room.clear()
            await self._room.wait()

    def _start(self, ticket: Ticket) -> None:
        self._running += 1
        task = asyncio.create_task(self._run(ticket))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, ticket: Ticket) -> None:
        try:
            job = await ticket.job()
            await job()
        except Exception:  # a job's own errors are its business; the queue must go on
            logger.exception("update handling crashed", extra={"chat": str(ticket.key)})
        finally:
            self._running -= 1
            self._finished(ticket.key)

    def _finished(self, key: Hashable) -> None:
        backlog = self._chats.get(key)
        if backlog:
            self._ready.append(backlog.popleft())  # behind the other chats: round robin
        else:
            self._chats.pop(key, None)
        while self._ready and self._running < self.capacity and not self.stopped:
            self._start(self._ready.popleft())
        self._room.set()

    def stop(self) -> list[Ticket]:
        """Start nothing more (a shutdown): what waits stays stored for the next start."""
        self.stopped = True
        left = [*self._ready, *(ticket for backlog in self._chats.values() for ticket in backlog)]
        self._ready.clear()
        for backlog in self._chats.values():  # chats with an update running stay held until it ends
            backlog.clear()
        for ticket in left:
            ticket.drop()
        self._room.set()
        return left

    async def idle(self) -> None:
        """Until every started job has ended."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))
