"""SQLite's writers take turns in order, except urgent ones (delivery marks), which go first."""

from __future__ import annotations

import asyncio

import pytest

from db.writer_turns import WriterTurns


async def _in_turn(turns: WriterTurns, name: str, order: list[str], *, urgent: bool = False) -> None:
    if urgent:
        async with turns.urgent():
            order.append(name)
    else:
        async with turns:
            order.append(name)


async def _queued(turns: WriterTurns, count: int) -> None:
    """Let the tasks run up to their wait: a few loop iterations, no clock."""
    for _ in range(100):
        if turns.waiting >= count:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{turns.waiting} waiting, expected {count}")


async def test_an_urgent_writer_goes_ahead_of_the_waiting_ones_and_the_rest_keep_their_order() -> None:
    turns, order = WriterTurns(), list[str]()
    await turns.acquire()  # a write under way
    tasks = [asyncio.create_task(_in_turn(turns, f"write {n}", order)) for n in range(3)]
    await _queued(turns, 3)
    tasks.append(asyncio.create_task(_in_turn(turns, "mark", order, urgent=True)))
    await _queued(turns, 4)
    turns.release()
    await asyncio.gather(*tasks)
    assert order == ["mark", "write 0", "write 1", "write 2"]
    async with turns:  # free again
        assert turns.waiting == 0


async def test_a_waiter_cancelled_as_its_turn_comes_passes_the_turn_on() -> None:
    turns, order = WriterTurns(), list[str]()
    await turns.acquire()
    first = asyncio.create_task(_in_turn(turns, "cancelled", order))
    second = asyncio.create_task(_in_turn(turns, "next", order))
    await _queued(turns, 2)
    turns.release()  # the turn is handed to `first`...
    first.cancel()  # ...which is cancelled before it runs
    with pytest.raises(asyncio.CancelledError):
        await first
    await second
    assert order == ["next"]


async def test_a_waiter_cancelled_while_waiting_leaves_the_line() -> None:
    turns, order = WriterTurns(), list[str]()
    await turns.acquire()
    gone = asyncio.create_task(_in_turn(turns, "gone", order))
    await _queued(turns, 1)
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert turns.waiting == 0
    turns.release()
    await _in_turn(turns, "after", order)
    assert order == ["after"]
