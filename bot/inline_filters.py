"""Run magic filters and FSM-state filters on the event loop instead of a worker thread.

aiogram calls any filter that is not a coroutine through `asyncio.to_thread`, to be
safe with blocking code. `F.text`, `F.chat.type == "private"` and a `State` used as a
filter are attribute reads and comparisons: the thread hop (about 50 us here, and
five of them per customer message) cost far more than the check. Other synchronous
filters keep aiogram's behaviour: nothing says they do not block.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from aiogram import Router
from aiogram.dispatcher.event.handler import FilterObject, HandlerObject
from aiogram.fsm.state import State


def _on_the_loop(function: Callable[..., Any]) -> Callable[..., Coroutine[Any, Any, Any]]:
    async def call(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    return call


def _inline(filter_object: FilterObject) -> None:
    if filter_object.awaitable:
        return
    if filter_object.magic is not None or isinstance(filter_object.callback, State):
        filter_object.callback = _on_the_loop(filter_object.callback)
        filter_object.awaitable = True


def inline_cheap_filters(root: Router) -> int:
    """Every magic or state filter of `root` and the routers under it; how many were changed."""
    changed = 0
    for router in root.chain_tail:
        for observer in router.observers.values():
            handlers: list[HandlerObject] = [observer._handler, *observer.handlers]
            for handler in handlers:
                for filter_object in handler.filters or ():
                    before = filter_object.awaitable
                    _inline(filter_object)
                    changed += filter_object.awaitable != before
    return changed
