"""Where conversation state (the return form in progress) lives.

In memory by default (one process, lost on restart). With CSBOT_REDIS_URL it
lives in Redis, so a restart keeps open forms and several bot processes (behind
a webhook) share state, with per-chat event isolation so two updates of one
chat are not handled at the same time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage, StorageKey
from aiogram.fsm.storage.redis import DefaultKeyBuilder, RedisEventIsolation, RedisStorage
from redis.asyncio.lock import Lock
from redis.exceptions import LockError, LockNotOwnedError, RedisError

from bot.fsm_memory import BoundedEventIsolation, BoundedMemoryStorage
from services.settings import ConfigError

logger = logging.getLogger(__name__)

RELEASE_RETRY_S = 1.0
"""How often a chat lock that may have landed while Redis was not answering is released again."""


class StateStoreUnreachable(ConfigError):
    """CSBOT_REDIS_URL is set but Redis does not answer."""


class ChatLocks(RedisEventIsolation):
    """Per-chat locks in Redis whose token is known before Redis is asked.

    A lock command sent to a frozen Redis times out on our side but may still run when
    Redis answers again, leaving the chat locked by a holder that gave up, until the
    lock's TTL (the update timeout plus 5 s) passes. Here the token is chosen first, so
    whatever happens to the acquire or the release, that token is released once Redis
    answers (compare-and-delete: never someone else's lock). A release that fails after
    handling finished is logged and retried in the background; it does not fail the update.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._releasing: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def lock(self, key: StorageKey) -> AsyncGenerator[None, None]:
        lock = self.redis.lock(name=self.key_builder.build(key, "lock"), **self.lock_kwargs, lock_class=Lock)
        token = uuid.uuid4().hex.encode()
        try:
            acquired = await lock.acquire(token=token)
        except RedisError:
            self._release_later(lock, token)
            raise
        if not acquired:
            raise LockError("Unable to acquire lock within the time specified", lock_name=str(lock.name))
        try:
            yield None
        finally:
            try:
                await lock.do_release(token)
            except LockNotOwnedError:
                pass  # expired meanwhile: nothing to give back
            except RedisError as error:
                logger.warning(
                    "chat lock not released: Redis did not answer; released when it does",
                    extra={"error": f"{type(error).__name__}: {error}"[:200]},
                )
                self._release_later(lock, token)

    def _release_later(self, lock: Lock, token: bytes) -> None:
        task = asyncio.create_task(self._release_when_answering(lock, token))
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    async def _release_when_answering(self, lock: Lock, token: bytes) -> None:
        """Until Redis has twice said the token holds nothing (the timed-out call may still be on
        its way when Redis first answers again), or the lock's TTL has passed."""
        not_held = 0
        for _ in range(int((lock.timeout or 60) / RELEASE_RETRY_S) + 1):
            try:
                await lock.do_release(token)
                logger.info("chat lock left by a timed-out call released", extra={"lock": str(lock.name)})
                return
            except LockNotOwnedError:
                not_held += 1
                if not_held == 2:
                    return  # the call never landed, or the lock expired
            except RedisError:
                not_held = 0
            await asyncio.sleep(RELEASE_RETRY_S)

    async def settled(self) -> None:
        """Wait for the background releases (tests, shutdown)."""
        while self._releasing:
            await asyncio.gather(*self._releasing, return_exceptions=True)

    async def close(self) -> None:
        for task in self._releasing:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._releasing, return_exceptions=True)


@dataclass
class StateStore:
    storage: BaseStorage
    isolation: BaseEventIsolation

    async def close(self) -> None:
        await self.storage.close()
        await self.isolation.close()


async def open_state_store(
    redis_url: str | None,
    *,
    prefix: str = "csbot",
    operation_timeout: float = 3.0,
    handling_timeout: float = 60.0,
) -> StateStore:
    """Every Redis operation is bounded by `operation_timeout`, and waiting for a chat's lock by
    `handling_timeout`: a frozen Redis fails an update fast
    (the customer is told to wait and the update is handled again), it never hangs it."""
    if redis_url is None:
        return StateStore(BoundedMemoryStorage(), BoundedEventIsolation())
    key_builder = DefaultKeyBuilder(prefix=prefix, with_destiny=True)
    storage = RedisStorage.from_url(
        redis_url,
        connection_kwargs={"socket_timeout": operation_timeout, "socket_connect_timeout": operation_timeout},
        key_builder=key_builder,
    )
    try:
        await storage.redis.ping()
    except Exception as error:  # redis raises its own connection/timeout/auth errors
        await storage.close()
        raise StateStoreUnreachable(f"CSBOT_REDIS_URL: cannot reach Redis ({error})") from error
    # A chat's lock outlives its holder by a little only: a holder that could not release it
    # (Redis froze mid-update) blocks that chat until the TTL passes, not for a minute.
    lock_kwargs = {"timeout": handling_timeout + 5, "blocking_timeout": handling_timeout}
    return StateStore(storage, ChatLocks(storage.redis, key_builder=key_builder, lock_kwargs=lock_kwargs))
