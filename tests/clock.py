"""A clock the test moves: the code under test reads time through it, so no test waits."""

from __future__ import annotations


class ManualClock:
    """`clock()` is `clock.now`; set it to move time on."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
