"""A short TTL cache and a circuit breaker for calls to another system (the shop's, Redis)."""

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


class CircuitBreaker:
    """After `threshold` failed calls in a row, fail at once for `cooldown` seconds.

    A shop system that is down should not make every customer wait for timeouts and
    retries; after the cooldown one call is let through, and its success closes the circuit.
    """

    def __init__(self, threshold: int, cooldown: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_running = False

    @property
    def state(self) -> str:
        if self._opened_at is None:
            return "closed"
        return "half-open" if self._clock() - self._opened_at >= self.cooldown else "open"

    def allow(self) -> bool:
        state = self.state
        if state == "closed":
            return True
        if state == "half-open" and not self._trial_running:
            self._trial_running = True
            return True
        return False

    def succeeded(self) -> None:
        self._failures = 0
        self._opened_at = None
        self._trial_running = False

    def failed(self) -> None:
        self._trial_running = False
        self._failures += 1
        if self._failures >= self.threshold or self._opened_at is not None:
            self._opened_at = self._clock()
