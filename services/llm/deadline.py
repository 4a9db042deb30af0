"""A reply's time budget, shared by everything that waits on its behalf.

A reply must end within `reply_deadline` however the endpoints behave: a hung
verdict call, a `Retry-After: 3600` or a stalled stream must not hold the
customer. The answerer opens one `Deadline` per reply and makes it current
(`within`); the gateway caps each of its own waits (backoff, Retry-After,
request timeouts, stream reads) by `current().remaining()` rather than being
handed the budget through every call. A contextvar, because tasks started
while a reply is produced (parallel judge calls) copy it with their context.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar

Clock = Callable[[], float]


class Deadline:
    """A point on a monotonic clock after which the work it bounds must stop."""

    def __init__(self, seconds: float, *, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self.seconds = seconds
        self.expires_at = clock() + seconds

    def remaining(self) -> float:
        """Seconds left, never negative."""
        return max(0.0, self.expires_at - self._clock())

    @property
    def expired(self) -> bool:
        return self._clock() >= self.expires_at

    def cap(self, seconds: float) -> float:
        """`seconds`, or the time left if that is shorter: the longest a wait may last."""
        return min(seconds, self.remaining())

    def __repr__(self) -> str:
        return f"Deadline({self.seconds:g}s, {self.remaining():.3f}s left)"


_current: ContextVar[Deadline | None] = ContextVar("csbot_reply_deadline", default=None)


def current() -> Deadline | None:
    """The deadline of the reply being produced in this context, if any."""
    return _current.get()


def remaining(default: float) -> float:
    """`default` capped by the current deadline (just `default` outside a reply)."""
    deadline = _current.get()
    return default if deadline is None else deadline.cap(default)


@contextmanager
def within(deadline: Deadline | None) -> Iterator[Deadline | None]:
    """Make `deadline` current for the code in the block (and tasks it starts)."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        # Closed from another context (an abandoned generator): there is nothing to restore.
        with suppress(ValueError):
            _current.reset(token)
