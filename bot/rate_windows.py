"""Sliding-window rate limits: at most `limit` events in any `seconds`-long window, per key.

One algorithm, two stores: in this process (`LocalWindows`) or in Redis
(`RedisWindows`), where several bot processes share one budget. The same rule
drives the bot's outgoing limiter and the fake Telegram that enforces the limits
in the benchmarks, so "the bot keeps the limit" and "Telegram would have
accepted it" are one statement. A sliding log rather than a token bucket: a
bucket of rate r and burst b lets r + b events into one window, which a
window-counting server refuses.

An event is admitted when it is about to be sent and counted again from when
its call came back (`settle`): the receiver counts it on arrival, somewhere
between the two, and the time between them (awaits, a loaded machine, the
network) varies per call. Counted from the later moment, no two events can
reach the receiver closer together than the windows allow, however late one
of them arrived.

`FailOpenWindows` puts the two together for a bot whose processes share Redis:
the shared windows while Redis answers, this process's own windows when it does
not, so an outage of Redis never stops a message from going out.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from redis.exceptions import RedisError

from services.resilience import CircuitBreaker

logger = logging.getLogger(__name__)

_T = TypeVar("_T")


@dataclass(frozen=True)
class Window:
    limit: int
    seconds: float

    def __str__(self) -> str:
        return f"{self.limit}/{self.seconds:g}s"


class RateWindows(Protocol):
    async def acquire(self, key: str, window: Window, *, headroom: int = 0, mark: str = "") -> float:
        """Take one event in `key`'s window when fewer than `limit - headroom` are in it (returns 0);
        otherwise take nothing and return the seconds until the oldest event leaves the window.
        `mark` names the event for `settle` (unique per admitted event of a key)."""
        ...

    async def settle(self, taken: Sequence[tuple[str, Window]], mark: str) -> None:
        """The event `mark` of each of these keys has reached the receiver: count it from now."""
        ...


class LocalWindows:
    """Windows in this process. Keys whose events all left their window are forgotten."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._events: dict[str, deque[tuple[float, str]]] = {}
        self._sweep_at = 1024

    def used(self, key: str, window: Window) -> int:
        events = self._events.get(key)
        if events is None:
            return 0
        self._expire(events, self._clock() - window.seconds)
        return len(events)

    async def acquire(self, key: str, window: Window, *, headroom: int = 0, mark: str = "") -> float:
        return self.acquire_now(key, window, headroom=headroom, mark=mark)

    async def settle(self, taken: Sequence[tuple[str, Window]], mark: str) -> None:
        self.settle_now(taken, mark)

    def note(self, key: str, window: Window, mark: str = "") -> None:
        """Count an event another store admitted, so these windows know of it if they take over."""
        now = self._clock()
        self._current(key, window, now).append((now, mark))

    def acquire_now(self, key: str, window: Window, *, headroom: int = 0, mark: str = "") -> float:
        now = self._clock()
        events = self._current(key, window, now)
        if len(events) < window.limit - headroom:
            events.append((now, mark))
            return 0.0
        # The event that must leave before one more fits under limit - headroom.
        index = len(events) - (window.limit - headroom)
        return max(1e-3, events[index][0] + window.seconds - now)

    def settle_now(self, taken: Sequence[tuple[str, Window]], mark: str) -> None:
        """Move each key's event `mark` to now; one that already left its window (a call slower
        than the window) comes back, since the receiver counts it from its arrival."""
        now = self._clock()
        for key, window in taken:
            events = self._current(key, window, now)
            for index, (_, event) in enumerate(events):
                if event == mark:
                    del events[index]
                    break
            events.append((now, mark))

    def _current(self, key: str, window: Window, now: float) -> deque[tuple[float, str]]:
        """`key`'s events still in the window."""
        events = self._events.get(key)
        if events is None:
            events = self._events[key] = deque()
            if len(self._events) > self._sweep_at:
                self._sweep(now, window)
        self._expire(events, now - window.seconds)
        return events

    @staticmethod
    def _expire(events: deque[tuple[float, str]], horizon: float) -> None:
        while events and events[0][0] <= horizon:
            events.popleft()

    def _sweep(self, now: float, window: Window) -> None:
        """Forget idle keys, so a bot that met a million chats does not keep a million deques."""
        horizon = now - max(window.seconds, 60.0)
        for key in [key for key, events in self._events.items() if not events or events[-1][0] <= horizon]:
            del self._events[key]
        self._sweep_at = max(1024, 2 * len(self._events))


# KEYS[1]: the window; ARGV: limit, window in microseconds, headroom, a unique member.
# Redis's own clock, so processes on several machines agree on what "the last second" is.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit = tonumber(ARGV[1])
local span = tonumber(ARGV[2])
local allowed = limit - tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - span)
local used = redis.call('ZCARD', KEYS[1])
if used < allowed then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], math.ceil(span / 1000) + 1000)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], used - allowed, used - allowed, 'WITHSCORES')
return math.max(1000, tonumber(oldest[2]) + span - now)
"""

# KEYS: the windows; ARGV: the member, then each window's span in microseconds.
_SETTLE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[1])
  redis.call('PEXPIRE', key, math.ceil(tonumber(ARGV[i + 1]) / 1000) + 1000)
end
return 0
"""


class RedisWindows:
    """Windows in Redis: every process of a bot counts against the same budget.

    One atomic script per event (remove what left the window, count, add), timed by
    Redis's clock. Keys carry the deployment's prefix and expire when idle.
    """

    def __init__(self, redis: Any, *, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix
        self._script = redis.register_script(_ACQUIRE)
        self._settle = redis.register_script(_SETTLE)
        self._members = itertools.count()
        self._origin = f"{os.getpid()}-{id(self):x}"

    def _member(self, mark: str) -> str:
        return f"{self._origin}-{mark or next(self._members)}"

    async def acquire(self, key: str, window: Window, *, headroom: int = 0, mark: str = "") -> float:
        wait_us = await self._script(
            keys=[self._key(key)],
            args=[window.limit, int(window.seconds * 1_000_000), headroom, self._member(mark)],
        )
        return int(wait_us) / 1_000_000

    async def settle(self, taken: Sequence[tuple[str, Window]], mark: str) -> None:
        await self._settle(
            keys=[self._key(key) for key, _ in taken],
            args=[self._member(mark), *(int(window.seconds * 1_000_000) for _, window in taken)],
        )

    def _key(self, key: str) -> str:
        return f"{self._prefix}:rate:{key}"


class FailOpenWindows:
    """Redis's shared windows while Redis answers; this process's own (`LocalWindows`) when not.

    Each call to Redis is bounded by `timeout` (short: a message waits for it). A call
    that fails or times out is decided by the local windows instead, and Redis is left
    alone for `cooldown` seconds (a circuit breaker): a frozen Redis costs one timeout
    per cooldown, not one per message. After the cooldown one call tries Redis again
    while the others stay local; its answer closes the circuit. The local windows
    count every event Redis admits too, so they are current when they take over.
    Leaving Redis logs one warning, coming back one info line.

    While local, each process keeps Telegram's limits for itself only: several
    processes together can exceed the bot's global limit and meet a 429, which the
    retry middleware waits out. That is the price of answering during the outage.
    """

    def __init__(
        self,
        shared: RateWindows,
        local: LocalWindows | None = None,
        *,
        timeout: float = 0.5,
        cooldown: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.shared = shared
        self.local = local or LocalWindows()
        self._timeout = timeout
        self.breaker = CircuitBreaker(threshold=1, cooldown=cooldown, clock=clock)
        self.shared_calls = 0
        """Calls that went to Redis (answered or not)."""
        self.local_calls = 0
        """Calls the local windows decided because Redis did not answer or was being left alone."""
        self._on_local = False

    @property
    def on_local(self) -> bool:
        """Whether Redis's last call failed (its windows are left alone for now)."""
        return self._on_local

    async def acquire(self, key: str, window: Window, *, headroom: int = 0, mark: str = "") -> float:
        if self.breaker.allow():
            self.shared_calls += 1
            wait = await self._on_shared(self.shared.acquire(key, window, headroom=headroom, mark=mark))
            if wait is not None:
                if not wait:
                    self.local.note(key, window, mark)
                return wait
        self.local_calls += 1
        return self.local.acquire_now(key, window, headroom=headroom, mark=mark)

    async def settle(self, taken: Sequence[tuple[str, Window]], mark: str) -> None:
        """Both stores: the local windows always (they may take over), Redis unless it is being
        left alone (a settle Redis does not answer opens the circuit like an acquire)."""
        self.local.settle_now(taken, mark)
        if self.breaker.allow():
            await self._on_shared(self.shared.settle(taken, mark))

    async def _on_shared(self, call: Coroutine[Any, Any, _T]) -> _T | None:
        """`call`'s answer from Redis, or None when Redis did not give one in time."""
        try:
            async with asyncio.timeout(self._timeout):
                answer = await call
        except (RedisError, OSError) as error:  # TimeoutError (ours or the socket's) is an OSError
            self.breaker.failed()
            self._fell_back(error)
            return None
        except asyncio.CancelledError:
            if self.breaker.state != "closed":
                self.breaker.failed()  # an interrupted trial: the next one after the cooldown
            raise
        self.breaker.succeeded()
        if self._on_local:
            self._on_local = False
            logger.info("outgoing limiter: Redis answers again; its shared windows are used")
        return answer

    def _fell_back(self, error: BaseException) -> None:
        if self._on_local:
            return
        self._on_local = True
        logger.warning(
            "outgoing limiter: Redis does not answer; this process keeps Telegram's limits by itself",
            extra={
                "error": f"{type(error).__name__}: {error or 'no answer in time'}"[:200],
                "retry_in_s": self.breaker.cooldown,
            },
        )
