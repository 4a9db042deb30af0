"""In-memory conversation state and per-chat locks that do not grow with every chat ever seen.

aiogram's MemoryStorage creates a record on every read and SimpleEventIsolation
keeps one lock per chat forever: about 490 bytes per chat for the life of the
process, however briefly the chat lasted. Here a record exists only while it
holds state or data, idle records expire (least recently used first), and a
chat's lock lives only while somebody holds or waits for it.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import asynccontextmanager
from copy import copy
from dataclasses import dataclass, field
from typing import Any

from aiogram.exceptions import DataNotDictLikeError
from aiogram.fsm.state import State
from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage, StateType, StorageKey

DEFAULT_IDLE_TTL = 24 * 3600.0
DEFAULT_MAX_ENTRIES = 100_000


@dataclass
class _Record:
    touched: float
    state: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


class BoundedMemoryStorage(BaseStorage):
    def __init__(
        self,
        *,
        idle_ttl: float = DEFAULT_IDLE_TTL,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._records: OrderedDict[StorageKey, _Record] = OrderedDict()
        self._idle_ttl = idle_ttl
        self._max_entries = max_entries
        self._clock = clock

    @property
    def size(self) -> int:
        """Records held. (Not __len__: aiogram tests `storage or default`, and an empty store is falsy.)"""
        return len(self._records)

    def _get(self, key: StorageKey) -> _Record | None:
        record = self._records.get(key)
        if record is None:
            return None
        now = self._clock()
        if now - record.touched > self._idle_ttl:
            del self._records[key]
            return None
        record.touched = now
        self._records.move_to_end(key)
        return record

    def _put(self, key: StorageKey, state: str | None, data: dict[str, Any]) -> None:
        if state is None and not data:
            self._records.pop(key, None)  # nothing to remember: no entry
            return
        now = self._clock()
        self._records[key] = _Record(now, state, data)
        self._records.move_to_end(key)
        self._evict(now)

    def _evict(self, now: float) -> None:
        while self._records:
            oldest_key, oldest = next(iter(self._records.items()))
            if len(self._records) <= self._max_entries and now - oldest.touched <= self._idle_ttl:
                return
            del self._records[oldest_key]

    async def set_state(self, key: StorageKey, state: StateType = None) -> None:
        record = self._get(key)
        self._put(key, state.state if isinstance(state, State) else state, record.data if record else {})

    async def get_state(self, key: StorageKey) -> str | None:
        record = self._get(key)
        return record.state if record else None

    async def set_data(self, key: StorageKey, data: Mapping[str, Any]) -> None:
        if not isinstance(data, dict):
            raise DataNotDictLikeError(f"Data must be a dict or dict-like object, got {type(data).__name__}")
        record = self._get(key)
        self._put(key, record.state if record else None, data.copy())

    async def get_data(self, key: StorageKey) -> dict[str, Any]:
        record = self._get(key)
        return record.data.copy() if record else {}

    async def get_value(
        self, storage_key: StorageKey, dict_key: str, default: Any | None = None
    ) -> Any | None:
        record = self._get(storage_key)
        return copy(record.data.get(dict_key, default)) if record else default

    async def close(self) -> None:
        self._records.clear()


class BoundedEventIsolation(BaseEventIsolation):
    """One lock per chat while it is held or awaited; gone as soon as nobody needs it."""

    def __init__(self) -> None:
        self._locks: dict[StorageKey, tuple[asyncio.Lock, list[int]]] = {}

    @property
    def size(self) -> int:
        """Locks held or awaited. (Not __len__: `isolation or Disabled...` would drop an empty one.)"""
        return len(self._locks)

    @asynccontextmanager
    async def lock(self, key: StorageKey) -> AsyncGenerator[None, None]:
        entry = self._locks.get(key)
        if entry is None:
            entry = self._locks[key] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                self._locks.pop(key, None)

    async def close(self) -> None:
        self._locks.clear()
