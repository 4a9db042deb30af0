"""One contract for every conversation-state store and every per-chat lock, as aiogram tests its own.

The same tests run over the bounded in-memory store (the embedded default) and
Redis (CSBOT_REDIS_URL; skipped with the reason where no Redis answers), so
switching stores cannot change what a return form in progress remembers.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio
from aiogram.exceptions import DataNotDictLikeError
from aiogram.fsm.state import State
from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage, StorageKey
from redis.exceptions import RedisError

from bench.redis_proxy import RedisProxy
from bot.fsm_memory import BoundedEventIsolation, BoundedMemoryStorage
from bot.fsm_storage import ChatLocks, StateStore, open_state_store
from tests.test_state_store import REDIS_URL, redis_answers

KEY = StorageKey(bot_id=42, chat_id=-1, user_id=7)
OTHER = StorageKey(bot_id=42, chat_id=-2, user_id=8)


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[StateStore]:
    if request.param == "redis":
        if not redis_answers():
            pytest.skip("no Redis server at 127.0.0.1:6379")
        opened = await open_state_store(REDIS_URL, prefix=f"csbot-contract-{uuid.uuid4().hex}")
    else:
        opened = await open_state_store(None)
    yield opened
    await opened.close()


@pytest.fixture
def storage(store: StateStore) -> BaseStorage:
    return store.storage


@pytest.fixture
def isolation(store: StateStore) -> BaseEventIsolation:
    return store.isolation


class TestStorageContract:
    async def test_state_round_trip(self, storage: BaseStorage) -> None:
        assert await storage.get_state(KEY) is None
        await storage.set_state(KEY, State("step", group_name="Return"))
        assert await storage.get_state(KEY) == "Return:step"
        assert await storage.get_state(OTHER) is None
        await storage.set_state(KEY, None)
        assert await storage.get_state(KEY) is None

    async def test_data_round_trip_is_a_copy(self, storage: BaseStorage) -> None:
        assert await storage.get_data(KEY) == {}
        data = {"order": "20240115-001234", "items": [1, 2]}
        await storage.set_data(KEY, data)
        data["order"] = "changed"
        stored = await storage.get_data(KEY)
        assert stored == {"order": "20240115-001234", "items": [1, 2]}
        stored["order"] = "changed again"
        assert await storage.get_value(KEY, "order") == "20240115-001234"
        assert await storage.get_value(KEY, "missing", "fallback") == "fallback"
        await storage.set_data(KEY, {})
        assert await storage.get_data(KEY) == {}

    async def test_state_and_data_are_independent(self, storage: BaseStorage) -> None:
        await storage.set_data(KEY, {"a": 1})
        await storage.set_state(KEY, "S:one")
        await storage.set_state(KEY, None)
        assert await storage.get_data(KEY) == {"a": 1}
        await storage.set_state(KEY, "S:two")
        await storage.set_data(KEY, {})
        assert await storage.get_state(KEY) == "S:two"

    async def test_data_must_be_a_dict(self, storage: BaseStorage) -> None:
        with pytest.raises(DataNotDictLikeError):
            await storage.set_data(KEY, [("a", 1)])  # type: ignore[arg-type]


class TestIsolationContract:
    async def test_one_chat_at_a_time_other_chats_free(self, isolation: BaseEventIsolation) -> None:
        """Causal, not timed: the first chat keeps its lock until another chat got its own
        (so a lock that blocked every chat would time out here), and the same chat's second
        update only gets in after the first left, however slow the machine is."""
        order: list[str] = []
        inside = asyncio.Event()
        other_inside = asyncio.Event()

        async def first() -> None:
            async with isolation.lock(KEY):
                inside.set()
                await asyncio.wait_for(other_inside.wait(), 30)
                await asyncio.sleep(0.05)  # the same chat's update is queued on the lock by now
                order.append("first done")

        async def same_chat() -> None:
            await inside.wait()
            async with isolation.lock(KEY):
                order.append("same chat")

        async def other_chat() -> None:
            await inside.wait()
            async with isolation.lock(OTHER):
                order.append("other chat")
                other_inside.set()

        await asyncio.gather(first(), same_chat(), other_chat())
        assert order == ["other chat", "first done", "same chat"]


async def test_memory_store_forgets_empty_and_idle_records() -> None:
    now = [0.0]
    storage = BoundedMemoryStorage(idle_ttl=60, max_entries=3, clock=lambda: now[0])
    await storage.get_state(KEY)
    assert storage.size == 0, "reading never creates a record"
    await storage.set_state(KEY, "S:one")
    await storage.set_state(KEY, None)
    assert storage.size == 0, "a record with nothing in it is dropped"
    await storage.set_data(KEY, {"a": 1})
    now[0] = 61
    assert await storage.get_data(KEY) == {} and storage.size == 0, "idle past the TTL: gone"
    for chat in range(5):
        await storage.set_state(StorageKey(bot_id=42, chat_id=chat, user_id=chat), "S:x")
    assert storage.size == 3, "least recently used records go first past max_entries"
    assert await storage.get_state(StorageKey(bot_id=42, chat_id=0, user_id=0)) is None
    assert await storage.get_state(StorageKey(bot_id=42, chat_id=4, user_id=4)) == "S:x"


async def test_memory_locks_exist_only_while_needed() -> None:
    isolation = BoundedEventIsolation()
    async with isolation.lock(KEY):
        assert isolation.size == 1
    assert isolation.size == 0


async def test_a_chat_lock_taken_by_a_timed_out_call_is_released_when_redis_answers() -> None:
    """Redis freezes while a chat's lock is being taken: the call times out here but runs in Redis
    once it answers again. That lock is given back then, not held until its TTL (a minute)."""
    if not redis_answers():
        pytest.skip("no Redis server at 127.0.0.1:6379")
    proxy = RedisProxy("127.0.0.1", 6379)
    await proxy.start()
    prefix = f"csbot-lock-{uuid.uuid4().hex}"
    opened = await open_state_store(proxy.url, prefix=prefix, operation_timeout=0.3, handling_timeout=55)
    direct = redis.asyncio.Redis.from_url(REDIS_URL)
    locks = opened.isolation
    assert isinstance(locks, ChatLocks)
    try:
        proxy.freeze()
        with pytest.raises(RedisError):
            async with locks.lock(KEY):
                raise AssertionError("not reached: the lock was not taken")
        await proxy.restore()
        await asyncio.wait_for(locks.settled(), 30)
        assert await direct.keys(f"{prefix}:*lock*") == [], "no lock left behind"
        async with asyncio.timeout(30), locks.lock(KEY):  # free at once: held, it would wait 55 s
            pass
    finally:
        await opened.close()
        await direct.aclose()
        await proxy.close()
