"""Where conversation state (the return form in progress) lives.

In memory by default (one process, lost on restart). With CSBOT_REDIS_URL it
lives in Redis, so a restart keeps open forms and several bot processes (behind
a webhook) share state, with per-chat event isolation so two updates of one
chat are not handled at the same time.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage
from aiogram.fsm.storage.redis import DefaultKeyBuilder, RedisEventIsolation, RedisStorage

from bot.config import ConfigError
from bot.fsm_memory import BoundedEventIsolation, BoundedMemoryStorage


class StateStoreUnreachable(ConfigError):
    """CSBOT_REDIS_URL is set but Redis does not answer."""


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
    return StateStore(
        storage, RedisEventIsolation(storage.redis, key_builder=key_builder, lock_kwargs=lock_kwargs)
    )
