"""Client-side limits per endpoint: requests/tokens per minute and a failure cooldown."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


class WaitTooLong(RuntimeError):
    """A limit would hold the caller longer than it may wait."""


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

    async def acquire(self, amount: float, *, max_wait: float | None = None) -> float:
        """Take `amount`; returns the seconds spent waiting.

        With `max_wait`, a wait longer than that raises `WaitTooLong` at once,
        before sleeping and without taking anything: a reply whose deadline is
        nearer than the next free slot is better served by the fallback now.
        """
        waited = 0.0
        async with self._lock:
            needed = min(amount, self._capacity)
            self._refill()
            while self._level < needed:
                delay = (needed - self._level) / self._rate
                if max_wait is not None and waited + delay > max_wait:
                    raise WaitTooLong(f"the rate limit frees this in {waited + delay:.1f} s")
                await self._sleep(delay)
                waited += delay
                self._refill()
            self._level -= amount
        return waited

    def settle(self, amount: float) -> None:
        """Take `amount` more (give it back when negative) once the real count is known: the
        level may go below empty (down to one bucket's worth), so the next callers wait for it."""
        self._refill()
        self._level = max(-self._capacity, min(self._capacity, self._level - amount))


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

    def rest_for(self, seconds: float) -> None:
        """Rest now, for as long as the endpoint itself asked (a long Retry-After)."""
        self._until = max(self._until, self._clock() + seconds)
        self._failures = 0
