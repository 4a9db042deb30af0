"""One outgoing limiter per bot: Telegram's message limits kept by the bot, before Telegram has to say 429.

Telegram allows a bot about 30 messages a second overall, about one a second per
chat (short bursts tolerated) and 20 a minute per group; past them it answers
429 with a retry_after of up to tens of seconds, which during streaming stalls a
chat for far longer than waiting its turn would have. Every message-sending call
(replies, streaming drafts and edits, hand-off forwards, apologies) passes here,
whichever handler or error path makes it, so the limits hold for all of them at
once.

Two priorities:

- **final** messages (everything but previews) wait for their turn, first come
  first served within this process;
- **previews** (`sendMessageDraft`, and the streaming edits the streamer marks
  with `as_preview`) never wait: when the chat or the bot is near its limit, or a
  final message is waiting, the preview is dropped (`PreviewDropped`) and the
  streamer shows the next one later, coarser. Streaming degrades gracefully
  instead of delaying answers.

Previews leave headroom: one slot of each chat's window and a fifth of the
global one stay for final messages. A message takes its slots before it is sent
and holds them from when its call comes back, so however long one call took on
a loaded machine or a slow network, the next cannot reach Telegram too close
behind it. With Redis the global and per-chat windows are shared by every
process of the bot; when Redis does not answer, each process keeps them by
itself until it does (`FailOpenWindows`, bot/rate_windows.py), so sending never
waits on Redis for longer than one short timeout per cool-down.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.methods import Response, SendMessageDraft, TelegramMethod
from aiogram.methods.base import TelegramType

from bot.rate_windows import FailOpenWindows, LocalWindows, RateWindows, RedisWindows, Window
from handlers.streaming import PreviewDropped

logger = logging.getLogger(__name__)

Taken = tuple[tuple[str, Window], tuple[str, Window]]
"""A message's two windows: its chat's, then the bot's."""

_preview: ContextVar[bool] = ContextVar("telegram_preview_call", default=False)


@contextmanager
def as_preview() -> Iterator[None]:
    """Calls made inside are streaming previews: dropped rather than delayed near a limit."""
    token = _preview.set(True)
    try:
        yield
    finally:
        _preview.reset(token)


@dataclass(frozen=True)
class TelegramLimits:
    """Telegram's published limits (Bot FAQ), as sliding windows."""

    overall: Window = field(default_factory=lambda: Window(30, 1.0))
    private_chat: Window = field(default_factory=lambda: Window(3, 3.0))
    """About one a second, a short burst tolerated (a preview, the answer and its buttons)."""
    group_chat: Window = field(default_factory=lambda: Window(20, 60.0))

    def widened(self, seconds: float) -> TelegramLimits:
        """The same limits over windows `seconds` longer: a margin for the clocks that count
        them (ours, Redis's, Telegram's). The time a call spends on its way is not in it: each
        message is counted again from when its call came back (`RateWindows.settle`)."""

        def wider(window: Window) -> Window:
            return Window(window.limit, window.seconds + seconds)

        return TelegramLimits(wider(self.overall), wider(self.private_chat), wider(self.group_chat))

    def for_chat(self, chat_id: int | str) -> Window:
        """Groups and channels have negative ids (or an @username)."""
        if isinstance(chat_id, str) and not chat_id.lstrip("-").isdigit():
            return self.group_chat
        return self.group_chat if int(chat_id) < 0 else self.private_chat


def counts_as_message(method: TelegramMethod[Any]) -> bool:
    """Calls that put something in a chat: what Telegram's message limits count."""
    name = method.__api_method__
    if name == "sendChatAction":
        return False  # a typing indicator is not a message
    return name.startswith(("send", "editMessage", "forwardMessage", "copyMessage"))


def is_preview(method: TelegramMethod[Any]) -> bool:
    return isinstance(method, SendMessageDraft) or _preview.get()


class OutgoingLimiter(BaseRequestMiddleware):
    def __init__(
        self,
        windows: RateWindows | None = None,
        limits: TelegramLimits | None = None,
        *,
        margin: float = 0.05,
        scope: str = "bot",
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.windows: RateWindows = windows or LocalWindows()
        self.limits = (limits or TelegramLimits()).widened(margin)
        self._scope = scope
        self._sleep = sleep
        self._turn = asyncio.Lock()
        """Final messages take the global budget one after another, in the order they came."""
        self._finals_waiting = 0
        self._marks = itertools.count()
        self.sent: Counter[str] = Counter()
        self.dropped: Counter[str] = Counter()
        self.waited_s = 0.0

    @property
    def preview_headroom(self) -> int:
        return max(1, self.limits.overall.limit // 5)

    def _keys(self, bot: Bot, chat_id: int | str) -> tuple[str, str]:
        return f"{self._scope}:{bot.id}:all", f"{self._scope}:{bot.id}:chat:{chat_id}"

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        chat_id = getattr(method, "chat_id", None)
        if chat_id is None or not counts_as_message(method):
            return await make_request(bot, method)
        overall, chat = self._keys(bot, chat_id)
        taken = ((chat, self.limits.for_chat(chat_id)), (overall, self.limits.overall))
        mark = str(next(self._marks))
        if is_preview(method):
            await self._preview_turn(taken, mark, chat_id, method)
        else:
            await self._final_turn(taken, mark)
        self.sent[method.__api_method__] += 1
        try:
            return await make_request(bot, method)
        finally:
            # Counted again from its answer: Telegram counted it on arrival, which was no later.
            await self.windows.settle(taken, mark)

    async def _preview_turn(
        self, taken: Taken, mark: str, chat_id: int | str, method: TelegramMethod[Any]
    ) -> None:
        (chat, chat_window), (overall, overall_window) = taken
        wait = 1.0 if self._finals_waiting else 0.0
        if not wait:
            wait = await self.windows.acquire(chat, chat_window, headroom=1, mark=mark)
        if not wait:
            wait = await self.windows.acquire(
                overall, overall_window, headroom=self.preview_headroom, mark=mark
            )
            # The chat's slot stays taken: erring on the safe side costs one preview, not a 429.
        if wait:
            self.dropped[method.__api_method__] += 1
            raise PreviewDropped(chat_id, wait)

    async def _final_turn(self, taken: Taken, mark: str) -> None:
        (chat, chat_window), (overall, overall_window) = taken
        await self._wait_for(chat, chat_window, mark)
        self._finals_waiting += 1  # from here on it competes with previews for the global budget
        try:
            async with self._turn:
                await self._wait_for(overall, overall_window, mark)
        finally:
            self._finals_waiting -= 1

    async def _wait_for(self, key: str, window: Window, mark: str) -> None:
        while wait := await self.windows.acquire(key, window, mark=mark):
            self.waited_s += wait
            await self._sleep(wait)


REDIS_CALL_TIMEOUT_S = 0.5
"""The longest one message waits on Redis's windows before this process's own decide."""


def limiter_for(redis: Any | None, *, prefix: str, redis_timeout: float = 3.0) -> OutgoingLimiter:
    """The serving process's limiter: its windows in Redis when the bot's processes share one,
    this process's own whenever Redis does not answer within min(`redis_timeout`, 0.5 s)."""
    if redis is None:
        return OutgoingLimiter()
    shared = RedisWindows(redis, prefix=prefix)
    return OutgoingLimiter(FailOpenWindows(shared, timeout=min(redis_timeout, REDIS_CALL_TIMEOUT_S)))
