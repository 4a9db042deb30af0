"""One policy for calls to another system: how long to wait before trying again, when to stop
trying, and when to stop calling for a while.

Used by the LLM gateway, the shop API client, the Telegram retry middleware, polling, the
outgoing limiter's Redis windows and the journal's peer registry, so each retries the same way:

- `Backoff`: jittered exponential waits (each between half and all of base x 2^(n-1), capped);
- `retry_after_seconds`: a server's own word on the wait (`Retry-After`, `retry-after-ms`), which
  comes before the back-off;
- `OutOfTime`: a tenacity stop for a total budget or a deadline: no wait that would end past
  the time left (a wait that uses it all up leaves none for the call);
- `CircuitBreaker`: after repeated failures, fail at once for a cool-down, then let one trial
  call through.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from enum import StrEnum

from tenacity import RetryCallState
from tenacity.stop import stop_base

from db.types import utcnow

__all__ = ["Backoff", "BreakerState", "CircuitBreaker", "OutOfTime", "budget", "retry_after_seconds"]


class Backoff:
    """Waits that double per attempt up to `maximum`, each drawn between half and all of it
    (jitter: callers that failed together do not come back together)."""

    def __init__(self, base: float, maximum: float, *, rng: Callable[[float, float], float] = random.uniform):
        self.base = base
        self.maximum = maximum
        self._rng = rng

    def ceiling(self, attempt: int) -> float:
        """The longest wait after the `attempt`-th failure (1 for the first)."""
        return min(self.maximum, self.base * 2.0 ** (max(1, attempt) - 1))

    def delay(self, attempt: int) -> float:
        ceiling = self.ceiling(attempt)
        return self._rng(ceiling / 2, ceiling)

    def tenacity_wait(self, retry_state: RetryCallState) -> float:
        return self.delay(retry_state.attempt_number)


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait a server asked for: `retry-after-ms`, else `Retry-After` in seconds or as an HTTP
    date; None when it asked for none or wrote something unreadable. Header names in any case."""
    lowered = {name.lower(): value for name, value in headers.items()}
    if value := lowered.get("retry-after-ms"):
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            return None
    value = lowered.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        return None
    return max(0.0, (moment - utcnow()).total_seconds())


TimeLeft = Callable[[RetryCallState], float | None]
"""Seconds left for a retried call (None: no limit)."""


def budget(seconds: float) -> TimeLeft:
    """A total budget, counted from the first attempt."""
    return lambda retry_state: seconds - (retry_state.seconds_since_start or 0.0)


class OutOfTime(stop_base):
    """Stop retrying when the wait before the next attempt would use up the time left. An
    infinite wait is a caller's word for "not here" (an endpoint that must rest): stop at once."""

    def __init__(self, time_left: TimeLeft) -> None:
        self._time_left = time_left

    def __call__(self, retry_state: RetryCallState) -> bool:
        if retry_state.upcoming_sleep == float("inf"):
            return True
        left = self._time_left(retry_state)
        if left is None:
            return False
        return left <= 0 or retry_state.upcoming_sleep >= left


class BreakerState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half-open"


class CircuitBreaker:
    """After `threshold` failed calls in a row, fail at once for `cooldown` seconds.

    A system that is down should not make every customer wait for timeouts and retries;
    after the cool-down one call is let through, and its success closes the circuit.
    """

    def __init__(self, threshold: int, cooldown: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_running = False

    @property
    def state(self) -> BreakerState:
        if self._opened_at is None:
            return BreakerState.CLOSED
        if self._clock() - self._opened_at >= self.cooldown:
            return BreakerState.HALF_OPEN
        return BreakerState.OPEN

    def allow(self) -> bool:
        state = self.state
        if state is BreakerState.CLOSED:
            return True
        if state is BreakerState.HALF_OPEN and not self._trial_running:
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
