"""Which processes of a bot hold journaled updates, shared in Redis (`services.inbox.durable.JournalPeers`).

Several webhook instances on one database each journal on their own disk while the
database is down. When it answers again, a chat's next message may reach an instance
whose journal is empty and be stored directly, while its earlier message still waits
in another instance's journal. Each instance therefore notes in a sorted set
(`<prefix>:journals`, member: the host and the journal's path, score: the time) that it
holds journaled updates, refreshes the note while they wait, and removes it once they
are replayed; an instance storing an update while another's note is fresh lets the
update wait in the inbox for as long as replayed updates settle (the inbox worker then
takes the chat's messages in order).

A note not refreshed for `stale_s` (its process died with its journal; it replays the
journal when it starts again) is ignored. Redis down: nothing waits (a message is never
held back by the helper store), and order across instances is then as good as the
settle time makes it; one warning when Redis stops answering, one line when it is back.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from redis.exceptions import RedisError

from services.resilience import CircuitBreaker

logger = logging.getLogger(__name__)

T = TypeVar("T")


class RedisJournalPeers:
    def __init__(
        self,
        redis: Any,
        *,
        prefix: str,
        journal: Path,
        timeout: float = 0.5,
        stale_s: float = 60.0,
        cooldown: float = 5.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._redis = redis
        self._key = f"{prefix}:journals"
        self.instance = f"{socket.gethostname()}:{journal.resolve()}"
        """Stable across restarts: a restarted process replaces its own note."""
        self._timeout = timeout
        self._stale_s = stale_s
        self._clock = clock
        self.breaker = CircuitBreaker(threshold=1, cooldown=cooldown, clock=time.monotonic)
        self._down = False

    async def holding(self) -> None:
        await self._call(lambda: self._redis.zadd(self._key, {self.instance: self._clock()}), None)

    async def released(self) -> None:
        await self._call(lambda: self._redis.zrem(self._key, self.instance), None)

    async def others_holding(self) -> bool:
        since = self._clock() - self._stale_s
        nobody: list[bytes | str] = []
        members = await self._call(lambda: self._redis.zrangebyscore(self._key, since, "+inf"), nobody)
        return any(_text(member) != self.instance for member in members)

    async def _call(self, call: Callable[[], Awaitable[T]], otherwise: T) -> T:
        if not self.breaker.allow():
            return otherwise
        try:
            async with asyncio.timeout(self._timeout):
                answer = await call()
        except (RedisError, OSError) as error:  # TimeoutError (ours or the socket's) is an OSError
            self.breaker.failed()
            if not self._down:
                self._down = True
                logger.warning(
                    "Redis does not answer: instances do not hear of each other's journals until it does",
                    extra={"error": f"{type(error).__name__}: {error}"[:200]},
                )
            return otherwise
        self.breaker.succeeded()
        if self._down:
            self._down = False
            logger.info("Redis answers again: instances hear of each other's journals")
        return answer


def _text(member: bytes | str) -> str:
    return member.decode() if isinstance(member, bytes) else member
