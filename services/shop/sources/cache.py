"""A short TTL cache for the shop API's answers."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any


class TTLCache:
    """Answers younger than `ttl` seconds are reused: a customer asking twice in a row, or
    ten customers asking about one product, cost the shop's system one call."""

    def __init__(
        self, ttl: float, max_entries: int = 2048, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, Any]] = OrderedDict()

    def get(self, key: str) -> tuple[bool, Any]:
        entry = self._entries.get(key)
        if entry is None:
            return False, None
        expires, value = entry
        if self._clock() >= expires:
            del self._entries[key]
            return False, None
        return True, value

    def put(self, key: str, value: Any) -> None:
        if self.ttl <= 0:
            return
        self._entries[key] = (self._clock() + self.ttl, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
