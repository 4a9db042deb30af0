"""Tells every process of the bot when a cached row changed, over Redis pub/sub.

Each process caches who a Telegram user is and whether a person is talking to
them (services/inbox/read_cache.py) and forgets an entry when it writes the row
itself. Behind a load balancer the hand-off can be opened by one process and the
customer's next message reach another; this bus carries "forget this key" to all
of them within milliseconds of the commit. Pub/sub does not queue for a process
that is reconnecting: the caches' time to live bounds what such a gap leaves stale.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from services.inbox.read_cache import ReadCaches

logger = logging.getLogger(__name__)


class CacheBus:
    def __init__(self, redis: Any, *, channel: str, caches: ReadCaches) -> None:
        self._redis = redis
        self._channel = channel
        self._caches = caches
        self._origin = f"{os.getpid()}-{id(self):x}"
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[Any]] = set()
        self.received = 0

    async def start(self) -> None:
        self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self._channel)
        self._listener = asyncio.create_task(self._listen())
        self._caches.publish = self.publish

    def publish(self, name: str, key: int) -> None:
        """Called from the ORM's commit hook (synchronous): the send runs as a task."""
        try:
            task = asyncio.get_running_loop().create_task(
                self._redis.publish(self._channel, f"{self._origin}|{name}|{key}")
            )
        except RuntimeError:
            return  # no event loop (a synchronous script): no other process to tell
        self._sending.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[Any]) -> None:
        self._sending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.warning(
                "cache invalidation not published: other processes see the change when it expires",
                extra={"error": f"{task.exception()}"[:200]},
            )

    async def _listen(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # redis raises its own connection errors
                logger.warning("cache bus: Redis unreachable; retrying", extra={"error": f"{error}"[:200]})
                await asyncio.sleep(1.0)
                continue
            if message is None:
                continue
            data = message.get("data")
            text = data.decode() if isinstance(data, bytes) else str(data)
            origin, name, key = [*text.split("|"), "", "", ""][:3]
            if origin == self._origin or not key.lstrip("-").isdigit():
                continue
            self.received += 1
            self._caches.invalidate(name, int(key), announce=False)

    async def close(self) -> None:
        self._caches.publish = None
        if self._sending:
            await asyncio.wait(set(self._sending), timeout=1.0)
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        if self._pubsub is not None:
            await self._pubsub.aclose()
