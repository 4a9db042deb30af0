"""The reply deadline: a monotonic budget that code deeper down reads from its context."""

from __future__ import annotations

import asyncio

from services.llm import deadline as deadlines
from services.llm.deadline import Deadline, within
from tests.clock import ManualClock


def test_remaining_counts_down_and_never_goes_negative() -> None:
    clock = ManualClock(100.0)
    budget = Deadline(20, clock=clock)
    assert budget.remaining() == 20 and not budget.expired
    clock.now += 15
    assert budget.remaining() == 5 and budget.cap(3600) == 5 and budget.cap(1) == 1
    clock.now += 5
    assert budget.remaining() == 0 and budget.expired, "at its very end, nothing is left"
    clock.now += 1
    assert budget.remaining() == 0 and budget.expired


async def test_the_current_deadline_reaches_tasks_started_within_it() -> None:
    assert deadlines.current() is None and deadlines.remaining(30) == 30
    clock = ManualClock(100.0)
    budget = Deadline(2, clock=clock)
    with within(budget):
        seen = await asyncio.create_task(_read_current())
        assert seen is budget and deadlines.remaining(3600) == 2
    assert deadlines.current() is None


async def _read_current() -> Deadline | None:
    return deadlines.current()
