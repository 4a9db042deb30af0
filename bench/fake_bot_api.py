"""A Bot API server on loopback that behaves like Telegram where csbot can tell.

Serves `/bot<token>/<method>` over real HTTP (point `CSBOT_TELEGRAM_API_URL` at it):
`getUpdates` long-polls and, like Telegram, keeps returning an update until a
later call's offset confirms it (only updates it has returned: Telegram's ids grow in
the order updates arrive, and a test may deliver an update made earlier, with a
lower id, after later ones); `sendMessage` is recorded as delivered only once
its response has been written to the bot (a bot that hangs up first did not get
it through); chats in `slow_chats` get their answer late, to keep a reply in
flight. Used by the process-level tests of `csbot run`.

For the fault bench it also refuses sends the way Telegram does: a share of
`sendMessage` calls answered 429 (retry after 1 s) or 500, a share of
`sendMessageDraft` previews failing, and flood windows (one chat's, or every
chat's) during which every send is answered 429 with `parameters.retry_after`
set to the seconds left in the window. `listen()` opens further ports on the
same server, so a send records which port (which process) it came through.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import random
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
    at: float = 0.0
    """time.monotonic() when the response was written."""
    via: int = 0
    """The server port the send came through (see `FakeBotAPI.listen`)."""

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
    call_ports: list[int] = field(default_factory=list)
    """For each of `calls`, the server port it came through."""
    confirmed_below: int = 0
    revoked_tokens: set[str] = field(default_factory=set)
    """Tokens answered 401 Unauthorized, as Telegram answers a revoked one."""
    send_fault_rate: float = 0.0
    """Share of sendMessage calls refused: half 429 (retry after 1 s), half 500."""
    draft_fault_rate: float = 0.0
    """Share of sendMessageDraft calls answered 500."""
    flood_chats: dict[int, float] = field(default_factory=dict)
    """chat id -> time.monotonic() until which every send to it is answered 429."""
    flood_all_until: float = 0.0
    """Until then (time.monotonic()) every send to any chat is answered 429."""
    refused: dict[str, int] = field(default_factory=dict)
    """How many sends were refused, by reason (429, 500, flood_chat, flood_all, draft)."""
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    _pending: list[dict[str, Any]] = field(default_factory=list)
    _unreturned: set[int] = field(default_factory=set)
    """The pending updates (by object) no getUpdates has returned yet: no offset confirms them."""
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _closing: asyncio.Event = field(default_factory=asyncio.Event)
    _message_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _released: asyncio.Event = field(default_factory=asyncio.Event)
    _runner: web.AppRunner | None = None
    url: str = ""

    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        self.url = await self.listen()
        return self.url

    async def listen(self) -> str:
        """Another port on the same server (same updates, same records): give each process its own
        and `Sent.via` tells which process a send came from."""
        assert self._runner is not None, "start() first"
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return f"http://127.0.0.1:{port}"

    def release_slow(self) -> None:
        """Slow chats are quick again, and the answers held so far are written now."""
        self.slow_chats.clear()
        self._released.set()

    async def close(self) -> None:
        self._closing.set()  # slow answers and long polls end now
        self._released.set()
        self._arrived.set()
        if self._runner is not None:
            await self._runner.cleanup()

    def deliver(self, *updates: dict[str, Any]) -> None:
        self._pending.extend(updates)
        self._unreturned.update(id(update) for update in updates)
        self._arrived.set()

    def texts_to(self, chat_id: int) -> list[str]:
        return [sent.text for sent in self.delivered if sent.chat_id == chat_id]

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        method = request.match_info["method"].lower()
        params = {key: str(value) for key, value in (await request.post()).items()}
        self.calls.append((method, params))
        self.call_ports.append(_port(request))
        if request.match_info["token"] in self.revoked_tokens:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        if method == "getme":
            token_id = int(request.match_info["token"].split(":", 1)[0])
            return _ok({"id": token_id, "is_bot": True, "first_name": "csbot", "username": "csbot_fake"})
        if method == "getupdates":
            return _ok(await self._get_updates(params))
        if method in ("sendmessage", "editmessagetext", "sendmessagedraft"):
            refusal = self._refusal(method, int(params.get("chat_id") or 0))
            if refusal is not None:
                return refusal
        if method in ("sendmessage", "editmessagetext"):
            return await self._send_message(request, params)
        if method in ("forwardmessage", "copymessage"):
            copy = f"[{method[:-7]} of message {params.get('message_id')} from chat {params.get('from_chat_id')}]"
            return await self._send_message(request, {**params, "text": copy})
        return _ok(True)

    def _refusal(self, method: str, chat_id: int) -> web.Response | None:
        now = time.monotonic()
        until = max(self.flood_all_until, self.flood_chats.get(chat_id, 0.0))
        if until > now:
            reason = "flood_all" if self.flood_all_until > now else "flood_chat"
            return self._refuse(
                reason,
                429,
                f"Too Many Requests: retry after {math.ceil(until - now)}",
                retry_after=math.ceil(until - now),
            )
        if method == "sendmessagedraft":
            if self.rng.random() < self.draft_fault_rate:
                return self._refuse("draft", 500, "Internal Server Error")
            return None
        if method == "sendmessage" and self.rng.random() < self.send_fault_rate:
            if self.rng.random() < 0.5:
                return self._refuse("429", 429, "Too Many Requests: retry after 1", retry_after=1)
            return self._refuse("500", 500, "Internal Server Error")
        return None

    def _refuse(
        self, reason: str, code: int, description: str, retry_after: int | None = None
    ) -> web.Response:
        self.refused[reason] = self.refused.get(reason, 0) + 1
        payload: dict[str, Any] = {"ok": False, "error_code": code, "description": description}
        if retry_after is not None:
            payload["parameters"] = {"retry_after": retry_after}
        return web.json_response(payload, status=code)

    async def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        if offset:
            self.confirmed_below = max(self.confirmed_below, offset)
            self._pending = [
                update
                for update in self._pending
                if update["update_id"] >= offset or id(update) in self._unreturned
            ]
        if not self._pending and not self._closing.is_set():
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), float(params.get("timeout") or 0))
            except TimeoutError:
                return []
        batch = self._pending[: int(params.get("limit") or 100)]
        self._unreturned.difference_update(id(update) for update in batch)
        return batch

    async def _send_message(self, request: web.Request, params: dict[str, Any]) -> web.StreamResponse:
        chat_id, text = int(params["chat_id"]), str(params.get("text", ""))
        port = _port(request)
        if chat_id in self.slow_chats:
            self._released.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._released.wait(), self.slow_seconds)
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
        self.delivered.append(Sent(chat_id, text, params.get("reply_markup"), time.monotonic(), port))
        return response


def _ok(result: Any) -> web.Response:
    return web.Response(text=json.dumps({"ok": True, "result": result}), content_type="application/json")


def _port(request: web.Request) -> int:
    sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
    return int(sockname[1]) if sockname else 0
