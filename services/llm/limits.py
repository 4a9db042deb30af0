"""Client-side limits per endpoint: requests/tokens per minute and a failure cooldown."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


class TokenBucket:
    """`per_minute` units refill continuously; a caller waits until its amount is there.

    An amount larger than the whole bucket is let through once the bucket is
    full, so a single huge prompt cannot wait forever.
    """

    def __init__(
        self, per_minute: int, *, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep
    ) -> None:
        self._capacity = float(per_minute)
        self._rate = per_minute / 60.0
        self._level = float(per_minute)
        self._clock = clock
        self._sleep = sleep
        self._updated = clock()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._level = min(self._capacity, self._level + (now - self._updated) * self._rate)
        self._updated = now

    async def acquire(self, amount: float = 1.0) -> float:
        """Take `amount`; returns the seconds spent waiting."""
        waited = 0.0
        async with self._lock:
            needed = min(amount, self._capacity)
            self._refill()
            while self._level < needed:
                delay = (needed - self._level) / self._rate
                await self._sleep(delay)
                waited += delay
                self._refill()
            self._level -= amount
        return waited


class Cooldown:
    """After `threshold` consecutive failures an endpoint rests for `seconds`."""

    def __init__(self, threshold: int, seconds: float, *, clock: Clock = time.monotonic) -> None:
        self._threshold = threshold
        self._seconds = seconds
        self._clock = clock
        self._failures = 0
        self._until = 0.0

    @property
    def resting(self) -> bool:
        return self._clock() < self._until

    def succeeded(self) -> None:
        self._failures = 0

    def failed(self) -> None:
        self._failures += 1
        if self._failures >= self._threshold:
            self._until = self._clock() + self._seconds
            self._failures = 0
