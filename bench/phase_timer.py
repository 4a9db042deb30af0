"""Where one update's time goes: wall time in each phase of csbot's handling, per update.

A profiler's per-call overhead inflates small functions; timing a handful of phases from the
outside does not. Used by `bench.bot_overhead --phases` on the sequential csbot run, where
phases never overlap, so each figure is that phase's share of an update.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterator
from typing import Any

import aiogram
from aiogram.client.session.base import BaseSession

import bot.durable_dispatcher
import handlers.inquiries
import handlers.streaming
import services.inbox.durable

PHASES: tuple[tuple[str, Any, str, bool], ...] = (
    ("one update in all", bot.durable_dispatcher.DurableDispatcher, "feed_update", True),
    ("storing the update", services.inbox.durable.Inbox, "receive_checked", True),
    ("handling (aiogram's dispatch and what follows)", aiogram.Dispatcher, "feed_update", True),
    ("  understanding", handlers.inquiries, "understand", False),
    ("  answering", handlers.inquiries, "answer_inquiry", True),
    ("  Bot API calls (streaming's too)", BaseSession, "__call__", True),
    ("  streaming", handlers.streaming.ReplyStreamer, "stream", True),
    ("writing the outcome", services.inbox.durable.Inbox, "close", True),
)
"""(label, owner, attribute, is a coroutine function). Indented labels are parts of handling; what
"one update in all" has beyond the three unindented phases is the durable dispatcher's own work."""


def _timed(original: Callable[..., Any], label: str, spent: dict[str, float], coroutine: bool) -> Any:
    if coroutine:

        @functools.wraps(original)
        async def timed_coroutine(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - started

        return timed_coroutine

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - started

    return timed


@contextlib.contextmanager
def timing_phases() -> Iterator[dict[str, float]]:
    """Seconds spent per phase while the block runs (the originals are put back after)."""
    spent: dict[str, float] = dict.fromkeys((label for label, *_ in PHASES), 0.0)
    originals = [(owner, name, getattr(owner, name)) for _, owner, name, _ in PHASES]
    try:
        for (label, owner, name, coroutine), (_, _, original) in zip(PHASES, originals, strict=True):
            setattr(owner, name, _timed(original, label, spent, coroutine))
        yield spent
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def render(spent: dict[str, float], updates: int) -> list[str]:
    return [f"{label}: {spent[label] * 1000 / updates:.3f} ms per update" for label, *_ in PHASES]
