"""Waiting that ends early when the process is asked to stop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def unless_stopped(awaitable: Awaitable[T], stop: asyncio.Event) -> T | None:
    """The awaitable's result, or None if `stop` was set first (the awaitable is cancelled)."""
    work = asyncio.ensure_future(awaitable)
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({work, stopped}, return_when=asyncio.FIRST_COMPLETED)
    if work.done():
        stopped.cancel()
        return work.result()
    work.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await work
    return None


async def sleep_unless_stopped(seconds: float, stop: asyncio.Event) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


async def finish_even_if_cancelled(write: Awaitable[None]) -> None:
    """Run a write that records what happened (an outcome, a delivery mark) to its end even when
    the task is cancelled meanwhile, then let the cancellation go on.

    Such a write is what tells the next run that the customer was answered: a shutdown's
    cancellation landing in it would leave the row unanswered after the reply had gone out,
    and the restarted process would answer again. The write has its own bounds: a database
    that does not answer makes an outcome go to the journal.
    """
    task = asyncio.ensure_future(write)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise
