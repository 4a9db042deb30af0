"""One retry policy for every Bot API call the bot makes.

Telegram answers 429 with `retry_after` (aiogram raises TelegramRetryAfter and
does not retry by itself) and sometimes 5xx or a dropped connection. Those are
retried here, for every method and every handler alike: exactly `retry_after`
on 429, jittered exponential back-off otherwise, within a total time budget so a
customer's reply never waits longer than that. Any other 4xx is a bad request
that would fail the same way again: never retried. A flood wait longer than the
budget is not waited out here: the 429 goes up (the inbox schedules the update's
next try after it), and until it ends, messages to that chat are refused here
without calling Telegram, which lengthens the wait of a bot that keeps calling. Streaming previews and
typing indicators are not retried: a stale preview is worthless, and the
streamer falls back to the final message on its own.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.exceptions import TelegramNetworkError, TelegramRetryAfter, TelegramServerError
from aiogram.methods import GetUpdates, Response, SendChatAction, SendMessageDraft, TelegramMethod
from aiogram.methods.base import TelegramType
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from services.resilience import Backoff, OutOfTime
from services.resilience import budget as time_left

logger = logging.getLogger(__name__)

NOT_RETRIED: tuple[type[TelegramMethod[Any]], ...] = (SendMessageDraft, SendChatAction, GetUpdates)
RETRIED_ERRORS = (TelegramRetryAfter, TelegramServerError, TelegramNetworkError)


class FloodWaits:
    """Chats Telegram asked to leave alone (429 `retry_after`), until when (monotonic seconds)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._until: dict[int | str, float] = {}

    def remaining(self, chat_id: int | str) -> float:
        until = self._until.get(chat_id)
        if until is None:
            return 0.0
        left = until - self._clock()
        if left <= 0:
            del self._until[chat_id]
            return 0.0
        return left

    def start(self, chat_id: int | str, seconds: float) -> None:
        self._until[chat_id] = max(self._until.get(chat_id, 0.0), self._clock() + seconds)
        if len(self._until) > 4096:  # forget the ended ones
            now = self._clock()
            self._until = {chat: until for chat, until in self._until.items() if until > now}


class TelegramRetryMiddleware(BaseRequestMiddleware):
    def __init__(
        self,
        *,
        budget: float = 30.0,
        max_attempts: int = 8,
        base_delay: float = 0.5,
        max_delay: float = 8.0,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self._budget = budget
        self._max_attempts = max_attempts
        self._backoff = Backoff(base_delay, max_delay)
        self._sleep = sleep
        self.flood_waits = FloodWaits()

    def _wait(self, retry_state: RetryCallState) -> float:
        error = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(error, TelegramRetryAfter):
            return float(error.retry_after)
        return self._backoff.tenacity_wait(retry_state)

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        chat_id = getattr(method, "chat_id", None)
        if chat_id is not None and (left := self.flood_waits.remaining(chat_id)):
            raise TelegramRetryAfter(
                method=method, message="Flood wait still running (not sent)", retry_after=max(1, round(left))
            )
        if isinstance(method, NOT_RETRIED):
            return await make_request(bot, method)
        try:
            return await self._with_retries(make_request, bot, method)
        except TelegramRetryAfter as error:
            if chat_id is not None:
                self.flood_waits.start(chat_id, float(error.retry_after))
            raise

    async def _with_retries(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        # Most calls succeed the first time: try once before building tenacity's machinery (its
        # retrying object, stop and wait strategies and call state cost more than a recorded call).
        started = time.monotonic()
        try:
            return await make_request(bot, method)
        except RETRIED_ERRORS as error:
            first_failure = error
        budget = self._budget - (time.monotonic() - started)
        options = {"sleep": self._sleep} if self._sleep is not None else {}
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(RETRIED_ERRORS),
            wait=self._wait,
            stop=stop_after_attempt(self._max_attempts) | OutOfTime(time_left(budget)),
            before_sleep=_log_retry,
            reraise=True,
            **options,  # type: ignore[arg-type]  # tenacity types sleep loosely
        )
        replayed = False

        async def attempt(bot: Bot, method: TelegramMethod[TelegramType]) -> Response[TelegramType]:
            # A coroutine function for tenacity: the next middleware may be a callable object,
            # which tenacity would take for a synchronous function and never await.
            # Its first attempt is the failure above, so waits, stops and logs count it as before.
            nonlocal replayed
            if not replayed:
                replayed = True
                raise first_failure
            return await make_request(bot, method)

        return await retrying(attempt, bot, method)


def _log_retry(retry_state: RetryCallState) -> None:
    method = retry_state.args[1] if len(retry_state.args) > 1 else None
    error = retry_state.outcome.exception() if retry_state.outcome else None
    logger.warning(
        "telegram call failed, retrying",
        extra={
            "method": getattr(method, "__api_method__", "?"),
            "attempt": retry_state.attempt_number,
            "wait_s": round(retry_state.upcoming_sleep, 2),
            "error": f"{type(error).__name__}: {error}"[:200],
        },
    )
