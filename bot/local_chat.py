"""`csbot chat`: the real dispatcher and handlers, with the terminal as the customer's phone.

Updates are built the way Telegram would send them and outgoing API calls are
recorded by RecordingSession instead of reaching Telegram, so what you see
here is exactly what a customer would get.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiogram.methods import EditMessageText, SendMessage, TelegramMethod
from aiogram.types import InlineKeyboardMarkup, ReplyKeyboardMarkup, Update

from bot.app import App
from bot.cli_output import emit_line
from bot.dispatcher import create_bot
from bot.fake_updates import UpdateFactory
from bot.recording_session import LOCAL_BOT_TOKEN, RecordingSession
from db.models import InboundMessage
from db.repositories import customers
from db.seed import DEMO_PHONE
from services.inbox.durable import NotStored
from services.text.html import to_plain

BANNER = (
    "csbot local chat - the demo shop (its own database: your shop's database holds no data yet; "
    "`csbot import` your files to chat with your own). You are the demo customer (orders "
    "20240115-001234, 20231202-000458, 20240120-000871). Type a message; a number presses a button "
    "of the last reply; /quit leaves."
)
SHOP_BANNER = (
    "csbot local chat - your shop's data. Type a message; a number presses a button of the last "
    "reply; /quit leaves. `--phone NUMBER` talks as the customer with that phone."
)


logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Button:
    label: str
    press: Callable[[], Update]


class LocalChat:
    def __init__(self, app: App, *, user_id: int, phone: str = DEMO_PHONE) -> None:
        """`phone`: what the share-phone button sends (digits, with the country code)."""
        self._app = app
        self._user_id = user_id
        self._phone = phone
        self.session = RecordingSession()
        self.bot = create_bot(LOCAL_BOT_TOKEN, session=self.session)
        # Fresh ids each run: the log drops update ids it has seen before.
        now_ms = int(time.time() * 1000)
        self._updates = UpdateFactory(first_update_id=now_ms, first_message_id=now_ms % 1_000_000_000)
        self._buttons: list[Button] = []
        self._seen = 0
        self.turn = 0
        """The number of customer messages sent so far (a button press is one too)."""

    async def send(self, line: str) -> list[str]:
        """Feed one line as the customer and return what the bot answered."""
        return [
            text + "".join(f"\n  [{n}] {label}" for n, label in enumerate(labels, 1))
            for text, labels, _ in await self._feed(line)
        ]

    async def send_json(self, line: str) -> list[dict[str, Any]]:
        """Feed one line; one record per bot reply with what the bot made of the message (the log row)."""
        replies = await self._feed(line)
        row = await self._logged(replies[0][2]) if replies else None
        entities = (row.entities if row else None) or {}
        faq = entities.get("faq") if isinstance(entities.get("faq"), dict) else None
        return [
            {
                "turn": self.turn,
                "text": text,
                "intent": row.intent if row else None,
                "confidence": row.confidence if row else None,
                "route": row.route if row else None,
                "source": row.answer_source if row else None,
                "faq": faq["slug"] if faq and faq.get("answered") else None,
                "faq_confidence": faq.get("confidence") if faq else None,
                "offered": list(faq.get("offered", ())) if faq else [],
                "buttons": labels,
            }
            for text, labels, _ in replies
        ]

    async def _feed(self, line: str) -> list[tuple[str, list[str], int]]:
        """The bot's replies (text, button labels) and the id of the update that caused them."""
        choice = line.strip()
        if choice.isdigit() and 1 <= int(choice) <= len(self._buttons):
            update = self._buttons[int(choice) - 1].press()
        else:
            update = self._updates.text(self._user_id, line)
        self.turn += 1
        return await self._deliver(update)

    async def _deliver(self, update: Update) -> list[tuple[str, list[str], int]]:
        try:
            await self._app.dispatcher.feed_update(self.bot, update)
        except NotStored as error:  # the database down and the journal's disk refusing too
            logger.error(
                "message not stored: neither the database nor the journal took it; say it again later",
                extra={"update_id": update.update_id, "error": str(error)[:300]},
            )
            return []
        return [(text, labels, update.update_id) for text, labels in self._render_new()]

    async def _logged(self, update_id: int) -> InboundMessage | None:
        from sqlmodel import select

        async with self._app.session_factory() as session:
            result = await session.exec(select(InboundMessage).where(InboundMessage.update_id == update_id))
            return result.first()

    def _render_new(self) -> list[tuple[str, list[str]]]:
        new: list[TelegramMethod[Any]] = self.session.requests[self._seen :]
        self._seen = len(self.session.requests)
        if any(isinstance(m, (SendMessage, EditMessageText)) and m.chat_id == self._user_id for m in new):
            # A number answers the latest reply: after a reply without buttons (or a form edited to
            # none) "2" is text, not a press of a button two replies up.
            self._buttons = []
        shown: list[tuple[str, list[str]]] = []
        for method in new:
            if not isinstance(method, (SendMessage, EditMessageText)):
                continue
            if getattr(method, "chat_id", None) != self._user_id:
                continue
            prefix = "(edited) " if isinstance(method, EditMessageText) else ""
            text = to_plain(method.text or "", method.parse_mode)
            shown.append((prefix + text, self._remember_buttons(method.reply_markup)))
        return shown

    def _remember_buttons(self, markup: Any) -> list[str]:
        """Buttons a number can press from now on; their labels."""
        if isinstance(markup, InlineKeyboardMarkup):
            self._buttons = [
                Button(button.text, self._callback_press(button.callback_data or ""))
                for row in markup.inline_keyboard
                for button in row
            ]
        elif isinstance(markup, ReplyKeyboardMarkup):
            self._buttons = [
                Button(
                    button.text,
                    self._contact_press if button.request_contact else self._text_press(button.text),
                )
                for row in markup.keyboard
                for button in row
            ]
        else:
            return []
        return [button.label for button in self._buttons]

    def _callback_press(self, data: str) -> Callable[[], Update]:
        return lambda: self._updates.callback(self._user_id, data)

    def _text_press(self, text: str) -> Callable[[], Update]:
        return lambda: self._updates.text(self._user_id, text)

    def _contact_press(self) -> Update:
        return self._updates.contact(self._user_id, "+" + self._phone, contact_user_id=self._user_id)

    async def share_phone(self) -> list[str]:
        """As if the customer had pressed the share-phone button: the bot's replies (not a turn)."""
        return [text for text, _, _ in await self._deliver(self._contact_press())]


class UnknownPhone(Exception):
    """`csbot chat --phone` names no customer of the shop."""


async def run_local_chat(
    app: App, *, user_id: int, as_json: bool = False, phone: str | None = None, banner: str = BANNER
) -> None:
    """Stdin to the bot, replies to stdout; with `as_json` one JSON object per reply, nothing else.
    `phone`: act as the shop's customer with that phone, as if they had shared it first."""
    # One "update handled" line per message would drown the conversation.
    logging.getLogger("aiogram.event").setLevel(logging.WARNING)
    chat = LocalChat(app, user_id=user_id, phone=phone or DEMO_PHONE)
    if phone is not None:
        await chat.share_phone()
        async with app.session_factory() as session:
            linked = await customers.by_telegram_user(session, user_id)
        if linked is None or linked.phone != phone:  # not an earlier run's link to someone else
            raise UnknownPhone(phone)
    interactive = sys.stdin.isatty() and not as_json
    if interactive:
        emit_line(banner)
    while True:
        if interactive:
            try:
                line = await asyncio.to_thread(input, "you> ")
            except EOFError:
                break
        else:
            line = await asyncio.to_thread(sys.stdin.readline)
            if not line:
                break
            line = line.rstrip("\n")
        if line.strip() in {"/quit", "/exit"}:
            break
        if as_json:
            for record in await chat.send_json(line):
                emit_line(json.dumps(record, ensure_ascii=False))
            continue
        for reply in await chat.send(line):
            emit_line(f"bot> {reply}" if interactive else reply)
        if not interactive:
            emit_line("")
