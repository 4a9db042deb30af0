"""Long polling that stores every update before Telegram is told it was received.

`getUpdates` confirms every update below the offset it is called with. aiogram's
own polling calls it again while the previous batch is still being handled, so
a crash or a deploy loses whatever was not stored yet. Here each batch is
admitted to the inbox first, and only then does the next call confirm it. The
batch size follows the free handling slots, so a stored update never waits for
a slot while its lease runs out.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiogram import Bot
from aiogram.exceptions import (
    TelegramConflictError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)

from bot.durable_dispatcher import DurableDispatcher
from bot.stop_signal import sleep_unless_stopped, unless_stopped

logger = logging.getLogger(__name__)

POLLING_TIMEOUT_S = 30
MAX_BACKOFF_S = 30.0


class PollingConflict(RuntimeError):
    """Another process polls with this token (Telegram answered 409)."""


class DurablePoller:
    def __init__(
        self, dispatcher: DurableDispatcher, bot: Bot, *, concurrency: int, allowed_updates: list[str]
    ) -> None:
        self._dispatcher = dispatcher
        self._bot = bot
        self._capacity = concurrency
        self._allowed_updates = allowed_updates
        self._tasks: set[asyncio.Task[Any]] = set()
        self._slot_free = asyncio.Event()
        self._slot_free.set()

    async def run(self, stop: asyncio.Event) -> None:
        offset: int | None = None
        backoff = 1.0
        while not stop.is_set():
            await self._wait_for_slot(stop)
            if stop.is_set():
                return
            try:
                updates = await unless_stopped(
                    self._bot.get_updates(
                        offset=offset,
                        timeout=POLLING_TIMEOUT_S,
                        limit=min(100, self._capacity - len(self._tasks)),
                        allowed_updates=self._allowed_updates,
                        request_timeout=POLLING_TIMEOUT_S + 10,
                    ),
                    stop,
                )
            except TelegramConflictError as error:
                raise PollingConflict(
                    "another process is polling with this bot token (Telegram: 409 Conflict); "
                    "stop it, or run one instance per token (webhooks for several)"
                ) from error
            except (TelegramNetworkError, TelegramServerError, TelegramRetryAfter) as error:
                wait = float(error.retry_after) if isinstance(error, TelegramRetryAfter) else backoff
                logger.warning(
                    "getUpdates failed; retrying", extra={"error": str(error)[:200], "wait_s": wait}
                )
                backoff = min(MAX_BACKOFF_S, backoff * 2)
                await sleep_unless_stopped(wait, stop)
                continue
            if updates is None:
                return  # stopped while waiting for Telegram: nothing was received
            backoff = 1.0
            for update in updates:
                # Stored before the next getUpdates confirms it; handled in the background.
                admission = await self._dispatcher.admit(self._bot, update)
                self._spawn(self._dispatcher.feed_update(self._bot, update, admission=admission))
                offset = update.update_id + 1

    def _spawn(self, handling: Any) -> None:
        task = asyncio.create_task(handling)
        self._tasks.add(task)
        if len(self._tasks) >= self._capacity:
            self._slot_free.clear()
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        self._slot_free.set()
        if not task.cancelled() and task.exception() is not None:
            logger.error("update task crashed", exc_info=task.exception())

    async def _wait_for_slot(self, stop: asyncio.Event) -> None:
        while len(self._tasks) >= self._capacity and not stop.is_set():
            self._slot_free.clear()
            await unless_stopped(self._slot_free.wait(), stop)
