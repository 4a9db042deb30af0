"""Handles what was stored but never answered: journal replays, restarts, retries after faults.

Runs beside polling (or a webhook server): it first writes the local journal
into the database when the database answers again (a record the database cannot
take, for a data reason, goes to the quarantine file beside it), then hands
every stored, unanswered update nobody holds back to the dispatcher. One chat's
updates are handled one after another, oldest first, so a recovered
conversation reads in order.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Hashable

from aiogram import Bot

from bot.durable_dispatcher import DurableDispatcher
from bot.stop_signal import sleep_unless_stopped
from db.models import InboundMessage
from services.inbox.durable import STORAGE_ERRORS

logger = logging.getLogger(__name__)


class InboxWorker:
    def __init__(self, dispatcher: DurableDispatcher, bot: Bot, *, interval: float = 2.0) -> None:
        self._dispatcher = dispatcher
        self._bot = bot
        self._interval = interval

    async def run_once(self, stop: asyncio.Event | None = None) -> int:
        """One pass; how many stored updates were handed back. A set `stop` ends it between updates."""
        inbox = self._dispatcher.inbox
        await inbox.write_unwritten()
        if inbox.journal.pending():
            await inbox.replay_journal()
        rows = await inbox.due(self._bot.id)
        by_chat: dict[Hashable, list[InboundMessage]] = defaultdict(list)
        for row in rows:
            key = (row.chat_id, row.telegram_user_id)
            if not self._dispatcher.scheduler.holds(key):  # queued here already: taken in its turn
                by_chat[key].append(row)
        # As many chats at once as the dispatcher has slots: a hundred recovered chats at once took
        # more database connections than the pool holds (PostgreSQL: "QueuePool limit reached").
        slots = asyncio.Semaphore(max(1, self._dispatcher.scheduler.capacity))

        async def in_turn(chat_rows: list[InboundMessage]) -> None:
            async with slots:
                await self._handle_in_order(chat_rows, stop)

        await asyncio.gather(*(in_turn(chat_rows) for chat_rows in by_chat.values()))
        return len(rows)

    async def _handle_in_order(self, rows: list[InboundMessage], stop: asyncio.Event | None) -> None:
        for row in rows:
            if stop is not None and stop.is_set():
                return  # shutting down: the row stays stored for the next start
            if not await self._dispatcher.handle_stored(self._bot, row):
                return  # someone else has this chat's earlier update: the rest waits for its turn

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.run_once(stop)
            except STORAGE_ERRORS as error:
                logger.warning("inbox recovery pass failed; retrying", extra={"error": f"{error}"[:300]})
            await sleep_unless_stopped(self._interval, stop)
