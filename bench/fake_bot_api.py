"""A Bot API server on loopback that behaves like Telegram where csbot can tell.

Serves `/bot<token>/<method>` over real HTTP (point `CSBOT_TELEGRAM_API_URL` at it):
`getUpdates` long-polls and, like Telegram, keeps returning an update until a
later call's offset confirms it; `sendMessage` is recorded as delivered only once
its response has been written to the bot (a bot that hangs up first did not get
it through); chats in `slow_chats` get their answer late, to keep a reply in
flight. Used by the process-level tests of `csbot run`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Sent:
    chat_id: int
    text: str
    reply_markup: str | None = None
    """As sent: JSON of the keyboard, if any."""

    def buttons(self) -> list[tuple[str, str]]:
        """(text, callback data) of an inline keyboard."""
        rows = json.loads(self.reply_markup).get("inline_keyboard", []) if self.reply_markup else []
        return [(button["text"], button.get("callback_data", "")) for row in rows for button in row]


@dataclass
class FakeBotAPI:
    slow_chats: set[int] = field(default_factory=set)
    slow_seconds: float = 30.0
    delivered: list[Sent] = field(default_factory=list)
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    """Every call: the method (lower case) and its parameters as sent."""
    confirmed_below: int = 0
    revoked_tokens: set[str] = field(default_factory=set)
    """Tokens answered 401 Unauthorized, as Telegram answers a revoked one."""
    _pending: list[dict[str, Any]] = field(default_factory=list)
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _closing: asyncio.Event = field(default_factory=asyncio.Event)
    _message_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _runner: web.AppRunner | None = None
    url: str = ""

    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def close(self) -> None:
        self._closing.set()  # slow answers and long polls end now
        self._arrived.set()
        if self._runner is not None:
            await self._runner.cleanup()

    def deliver(self, *updates: dict[str, Any]) -> None:
        self._pending.extend(updates)
        self._arrived.set()

    def texts_to(self, chat_id: int) -> list[str]:
        return [sent.text for sent in self.delivered if sent.chat_id == chat_id]

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        method = request.match_info["method"].lower()
        params = {key: str(value) for key, value in (await request.post()).items()}
        self.calls.append((method, params))
        if request.match_info["token"] in self.revoked_tokens:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        if method == "getme":
            token_id = int(request.match_info["token"].split(":", 1)[0])
            return _ok({"id": token_id, "is_bot": True, "first_name": "csbot", "username": "csbot_fake"})
        if method == "getupdates":
            return _ok(await self._get_updates(params))
        if method in ("sendmessage", "editmessagetext"):
            return await self._send_message(request, params)
        return _ok(True)

    async def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        if offset:
            self.confirmed_below = max(self.confirmed_below, offset)
            self._pending = [update for update in self._pending if update["update_id"] >= offset]
        if not self._pending and not self._closing.is_set():
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), float(params.get("timeout") or 0))
            except TimeoutError:
                return []
        return self._pending[: int(params.get("limit") or 100)]

    async def _send_message(self, request: web.Request, params: dict[str, Any]) -> web.StreamResponse:
        chat_id, text = int(params["chat_id"]), str(params.get("text", ""))
        if chat_id in self.slow_chats:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), self.slow_seconds)
        message = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private"},
            "text": text,
        }
        response = web.Response(
            text=json.dumps({"ok": True, "result": message}), content_type="application/json"
        )
        try:
            await response.prepare(request)
            await response.write_eof()
        except ConnectionError:
            return response  # the bot hung up before it heard back: not delivered
        self.delivered.append(Sent(chat_id, text, params.get("reply_markup")))
        return response


def _ok(result: Any) -> web.Response:
    return web.Response(text=json.dumps({"ok": True, "result": result}), content_type="application/json")
