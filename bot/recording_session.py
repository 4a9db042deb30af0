"""A Telegram session that records API calls instead of sending them.

Used by `csbot chat` (the terminal is the customer's phone) and by the tests,
in the manner of aiogram's own tests/mocked_bot.py: every method object is
recorded, and queued responses, including errors, pass through aiogram's real
`check_response`, so a queued 429 raises the real TelegramRetryAfter.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, TypeVar

from aiogram import Bot
from aiogram.client.session.base import BaseSession
from aiogram.methods import (
    CopyMessage,
    EditMessageText,
    ForwardMessage,
    GetMe,
    GetUpdates,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType
from aiogram.types import Message, Update

LOCAL_BOT_TOKEN = "42:local-recording-session"
M = TypeVar("M", bound=TelegramMethod[Any])


@dataclass(frozen=True)
class QueuedResponse:
    method_type: type[TelegramMethod[Any]] | None
    status_code: int
    payload: dict[str, Any]


class RecordingSession(BaseSession):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[TelegramMethod[Any]] = []
        self._queued: list[QueuedResponse] = []
        self._message_ids = itertools.count(1000)
        self._undelivered: list[Update] = []
        self._incoming = asyncio.Event()
        self.confirmed_below = 0
        """Like Telegram: getUpdates with an offset confirms every update below it."""

    def deliver(self, *updates: Update) -> None:
        """Updates Telegram holds for the bot; returned by getUpdates until an offset confirms them."""
        self._undelivered.extend(updates)
        self._incoming.set()

    async def _get_updates(self, method: GetUpdates) -> list[dict[str, Any]]:
        if method.offset is not None:
            self.confirmed_below = max(self.confirmed_below, method.offset)
            self._undelivered = [u for u in self._undelivered if u.update_id >= method.offset]
        if not self._undelivered:
            self._incoming.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._incoming.wait(), min(float(method.timeout or 0), 1.0))
        batch = self._undelivered[: method.limit or 100]
        return [update.model_dump(mode="json", exclude_unset=True) for update in batch]

    def queue_error(
        self,
        method_type: type[TelegramMethod[Any]] | None,
        *,
        error_code: int,
        description: str,
        retry_after: int | None = None,
    ) -> None:
        """The next call of `method_type` (any call when None) fails like Telegram would."""
        payload: dict[str, Any] = {"ok": False, "error_code": error_code, "description": description}
        if retry_after is not None:
            payload["parameters"] = {"retry_after": retry_after}
        self._queued.append(QueuedResponse(method_type, error_code, payload))

    def sent(self, method_type: type[M]) -> list[M]:
        return [request for request in self.requests if isinstance(request, method_type)]

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        self.requests.append(method)
        queued = self.next_fault(method)
        if queued is not None:
            status_code, payload = queued.status_code, queued.payload
        elif isinstance(method, GetUpdates):
            status_code, payload = 200, {"ok": True, "result": await self._get_updates(method)}
        else:
            status_code, payload = 200, {"ok": True, "result": self._default_result(bot, method)}
        response = self.check_response(bot, method, status_code, json.dumps(payload, default=str))
        return response.result  # type: ignore[return-value]

    def next_fault(self, method: TelegramMethod[Any]) -> QueuedResponse | None:
        """The queued error for this call, if any; a subclass may add faults of its own."""
        for index, queued in enumerate(self._queued):
            if queued.method_type is None or isinstance(method, queued.method_type):
                return self._queued.pop(index)
        return None

    def _default_result(self, bot: Bot, method: TelegramMethod[Any]) -> Any:
        """A plausible success result, so a whole conversation can run without a script."""
        if isinstance(method, GetMe):
            return {"id": bot.id, "is_bot": True, "first_name": "csbot", "username": "csbot_local"}
        if isinstance(method, CopyMessage):
            return {"message_id": next(self._message_ids)}
        returning = method.__returning__
        if returning is bool:
            return True
        if isinstance(method, (EditMessageText, ForwardMessage)) or _returns_message(returning):
            chat_id = getattr(method, "chat_id", None) or 0
            return {
                "message_id": getattr(method, "message_id", None)
                if isinstance(method, EditMessageText)
                else next(self._message_ids),
                "date": int(time.time()),
                "chat": {"id": chat_id, "type": "private" if int(chat_id) > 0 else "supergroup"},
                "text": getattr(method, "text", None) or "",
            }
        raise NotImplementedError(f"RecordingSession has no default result for {type(method).__name__}")

    async def close(self) -> None:
        return None

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        yield b""


def _returns_message(returning: Any) -> bool:
    return returning is Message or Message in getattr(returning, "__args__", ())
