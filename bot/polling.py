"""Long polling that stores every update before Telegram is told it was received.

`getUpdates` confirms every update below the offset it is called with. aiogram's
own polling calls it again while the previous batch is still being handled, so
a crash or a deploy loses whatever was not stored yet. Here each batch is
admitted to the inbox first, and only then does the next call confirm it. The
batch size follows the free handling slots; updates that wait behind an earlier
one of their chat take no slot (bot/chat_scheduler.py) and are stored unclaimed,
so no lease runs out while they wait.

An update neither the database nor the local journal takes (the database down and
the journal's disk full) is not confirmed: the batch stops there, the poller backs
off, and the next getUpdates asks from that update again (Telegram delivers the
ones stored before it again too; the inbox de-duplicates them).
"""

from __future__ import annotations

import asyncio
import logging

from aiogram import Bot
from aiogram.exceptions import (
    TelegramConflictError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)

from bot.durable_dispatcher import DurableDispatcher
from bot.stop_signal import sleep_unless_stopped, unless_stopped
from services.inbox.durable import NotStored
from services.resilience import Backoff

logger = logging.getLogger(__name__)

POLLING_TIMEOUT_S = 30
MAX_BACKOFF_S = 30.0
BACKOFF = Backoff(2.0, MAX_BACKOFF_S)
"""Waits after failed polls in a row: about 1-2 s after the first, doubling up to MAX_BACKOFF_S."""
BACKLOG_PER_SLOT = 8
"""Stored updates allowed to wait behind their chats' earlier ones, per slot, before polling pauses."""


class PollingConflict(RuntimeError):
    """Another process polls with this token (Telegram answered 409)."""


class DurablePoller:
    def __init__(
        self, dispatcher: DurableDispatcher, bot: Bot, *, concurrency: int, allowed_updates: list[str]
    ) -> None:
        self._dispatcher = dispatcher
        self._bot = bot
        self._scheduler = dispatcher.scheduler
        self._scheduler.capacity = concurrency  # the process's slots, whoever feeds them
        self._allowed_updates = allowed_updates

    async def run(self, stop: asyncio.Event) -> None:
        offset: int | None = None
        failures = 0
        while not stop.is_set():
            await unless_stopped(
                self._scheduler.wait_for_room(backlog_limit=BACKLOG_PER_SLOT * self._scheduler.capacity),
                stop,
            )
            if stop.is_set():
                return
            try:
                updates = await unless_stopped(
                    self._bot.get_updates(
                        offset=offset,
                        timeout=POLLING_TIMEOUT_S,
                        limit=min(100, max(1, self._scheduler.free_slots)),
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
                failures += 1
                wait = (
                    float(error.retry_after)
                    if isinstance(error, TelegramRetryAfter)
                    else BACKOFF.delay(failures)
                )
                logger.warning(
                    "getUpdates failed; retrying", extra={"error": str(error)[:200], "wait_s": round(wait, 2)}
                )
                await sleep_unless_stopped(wait, stop)
                continue
            if updates is None:
                return  # stopped while waiting for Telegram: nothing was received
            for update in updates:
                # Stored before the next getUpdates confirms it; handled in the background.
                try:
                    await self._dispatcher.dispatch(self._bot, update)
                except NotStored as error:
                    failures += 1
                    wait = BACKOFF.delay(failures)
                    logger.error(
                        "update not stored, so not confirmed to Telegram; retrying",
                        extra={
                            "update_id": update.update_id,
                            "error": str(error)[:300],
                            "wait_s": round(wait, 2),
                        },
                    )
                    await sleep_unless_stopped(wait, stop)
                    break
                offset = update.update_id + 1
            else:
                failures = 0
