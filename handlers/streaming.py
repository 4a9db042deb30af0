"""Showing a verified answer while it is produced, within Telegram's limits.

Customers talk to the bot in private chats only (the customer router filters
on it), so there is one way to stream: sendMessageDraft at most about once a
second (slower after each 429), then the final text committed with
sendMessage. Only text a model writes is previewed: the shop's FAQ text is
sent as written, whole, with no preview before it; and nothing is previewed
while a crowd streams at once (`GenerationRegistry.preview_crowd`). Text past 4096 characters is
committed in parts cut at paragraph or sentence boundaries. Text goes out as HTML with everything the
model or the FAQ wrote escaped, so it can never become markup; should Telegram
still refuse to parse it, the same text is sent plain. The customer's stop
button cancels the generation; what was shown is kept.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramRetryAfter
from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.chat_action import ChatActionSender

from services.llm.speculative import VerifiedAnswer
from services.text.html import HTML, labelled_html
from services.text.split import TELEGRAM_LIMIT, split_text

logger = logging.getLogger(__name__)

T = TypeVar("T")
MIN_INTERVAL = 1.0
MAX_INTERVAL = 8.0


class PreviewDropped(Exception):
    """A preview the outgoing limiter did not send, to keep Telegram's limits; the final message
    still goes out (bot/middlewares/telegram_limits.py raises it)."""

    def __init__(self, chat_id: int | str, wait: float) -> None:
        super().__init__(f"preview to chat {chat_id} dropped: the limit frees in {wait:.2f} s")
        self.wait = wait


class GenerationRegistry:
    """Running generations by (chat, draft id), so a stop button press can cancel one.

    `preview_crowd`: with more answers than this streaming in the process at once, none is
    previewed. Previews and final messages share one budget (Telegram's messages a second
    overall): at 500 chats asking at once the first second's previews (13-15, sent before any
    answer was ready) took as many places from the final messages, whose p95
    (`bench.streaming_load`) went 0.45 s later; a crowd that size could never be previewed once a
    second anyway. The dispatcher gives half the overall budget, leaving the rest for final
    messages."""

    def __init__(self, *, preview_crowd: int) -> None:
        self._running: dict[tuple[int, int], asyncio.Task[Any]] = {}
        self.preview_crowd = preview_crowd

    def add(self, chat_id: int, draft_id: int, task: asyncio.Task[Any]) -> None:
        self._running[(chat_id, draft_id)] = task

    def discard(self, chat_id: int, draft_id: int) -> None:
        self._running.pop((chat_id, draft_id), None)

    def __len__(self) -> int:
        return len(self._running)

    def stop(self, chat_id: int, draft_id: int) -> bool:
        task = self._running.pop((chat_id, draft_id), None)
        if task is None or task.done():
            return False
        task.cancel()
        return True


class ReplyStreamer:
    def __init__(
        self,
        bot: Bot,
        chat_id: int,
        *,
        registry: GenerationRegistry,
        min_interval: float = MIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._bot = bot
        self._chat_id = chat_id
        self._registry = registry
        self._interval = min_interval
        self._clock = clock
        self._next_update = 0.0
        self._draft_id = secrets.randbelow(2**31 - 2) + 1
        self._shown = ""
        self._committed_upto = 0
        """How much of `_shown` is already in committed messages."""
        self._previews = True
        """Off once a preview failed for a reason other than a 429: the final message still goes out."""
        self.stopped = False

    async def stream(
        self, answer: VerifiedAnswer, *, reply_markup: InlineKeyboardMarkup | None = None, label: str = ""
    ) -> str:
        """Stream `answer`; returns the text committed to the chat ('' when there was none)."""
        consumer = asyncio.create_task(self._consume(answer))
        self._registry.add(self._chat_id, self._draft_id, consumer)
        try:
            async with ChatActionSender.typing(bot=self._bot, chat_id=self._chat_id):
                await consumer
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # we are being cancelled ourselves, not stopped by the customer
            self.stopped = True
        finally:
            self._registry.discard(self._chat_id, self._draft_id)
        final = self._shown if self.stopped else answer.final_text
        generated = answer.replacement is None and answer.report.generated
        await self._commit(final, reply_markup, label if generated and final.strip() else "")
        return final

    async def _consume(self, answer: VerifiedAnswer) -> None:
        async for chunk in answer:
            self._shown += chunk
            if not answer.report.mode.as_written:
                await self._show()
            # else the shop's FAQ text, as written: it arrives whole, at once, and a preview
            # of it would only cost a call (and a place in Telegram's limits) before the
            # final message with the same words.

    async def _show(self) -> None:
        pending = self._shown[self._committed_upto :].lstrip()
        if len(pending) > TELEGRAM_LIMIT:
            # A full message's worth is final already: commit it and stream the rest.
            first = split_text(pending)[0]
            await self._send_final(first, None)
            self._committed_upto = self._shown.index(first, self._committed_upto) + len(first)
            pending = self._shown[self._committed_upto :].lstrip()
        now = self._clock()
        if not self._previews or now < self._next_update or not pending.strip():
            return
        if len(self._registry) > self._registry.preview_crowd:
            return  # the final messages of a crowd need every place in Telegram's limits
        try:
            await self._with_fallback(
                lambda text, mode: self._bot.send_message_draft(
                    chat_id=self._chat_id,
                    draft_id=self._draft_id,
                    text=text,
                    parse_mode=mode,
                    can_stop=True,
                ),
                pending,
            )
            self._next_update = now + self._interval
        except PreviewDropped as error:
            # The bot is near Telegram's limits: show less often rather than delay anyone's answer.
            self._interval = min(MAX_INTERVAL, self._interval * 1.5)
            self._next_update = now + max(error.wait, self._interval)
        except TelegramRetryAfter as error:
            self._interval = min(MAX_INTERVAL, self._interval * 2)
            self._next_update = now + max(float(error.retry_after), self._interval)
            logger.info(
                "telegram asked to slow down",
                extra={"retry_after": error.retry_after, "chat_id": self._chat_id},
            )
        except TelegramAPIError as error:
            self._previews = False  # a preview is only a preview: the answer still goes out in full
            logger.warning(
                "streaming preview failed; the final answer will be sent without it",
                extra={"chat_id": self._chat_id, "error": f"{type(error).__name__}: {error}"[:200]},
            )

    async def _with_fallback(
        self, send: Callable[[str, str | None], Awaitable[T]], text: str, label: str = ""
    ) -> T:
        """Send as escaped HTML; if Telegram cannot parse it even so, the same words as plain text."""
        try:
            return await send(labelled_html(text, label), HTML)
        except TelegramBadRequest as error:
            if "can't parse entities" not in error.message.lower():
                raise
            logger.warning(
                "telegram could not parse a reply's HTML; sent as plain text",
                extra={"chat_id": self._chat_id, "error": error.message},
            )
            return await send(label + text, None)

    async def _commit(self, final: str, reply_markup: InlineKeyboardMarkup | None, label: str = "") -> None:
        committed = self._shown[: self._committed_upto]
        remaining = (final[len(committed) :] if final.startswith(committed) else final).strip()
        label = label if label and remaining and not committed else ""
        parts = [part for part in split_text(label + remaining) if part.strip()] if remaining else []
        for index, part in enumerate(parts):
            first_label = label if index == 0 else ""
            await self._send_final(
                part[len(first_label) :], reply_markup if index == len(parts) - 1 else None, first_label
            )

    async def _send_final(
        self, text: str, reply_markup: InlineKeyboardMarkup | None, label: str = ""
    ) -> None:
        """Retries (429, 5xx) are the bot session's business: one policy for every call."""
        await self._with_fallback(
            lambda body, mode: self._bot.send_message(
                self._chat_id, body, parse_mode=mode, reply_markup=reply_markup
            ),
            text,
            label,
        )
