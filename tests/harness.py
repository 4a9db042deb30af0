"""Drives the real dispatcher with fake updates and reads what it sent and stored."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from aiogram.methods import SendMessage, TelegramMethod
from aiogram.types import Update
from sqlmodel import SQLModel, select

from bot.app import App, build_app
from bot.dispatcher import create_bot
from bot.fake_updates import UpdateFactory
from bot.middlewares.telegram_retry import TelegramRetryMiddleware
from bot.recording_session import LOCAL_BOT_TOKEN, RecordingSession
from services.llm.config import LLMEndpoint, LLMRoles
from services.settings import LOCAL_CHAT_USER_ID, Settings
from services.text.html import to_plain
from services.text.sentences import Language, order_like, t

DEMO_USER_ID = LOCAL_CHAT_USER_ID
"""Linked to the demo customer who owns 20240115-001234 and friends."""
OTHER_USER_ID = 555_000_111
"""A stranger: no customer record linked."""
ADMIN_ID = 900_000_001
SUPPORT_CHAT_ID = -100_777_000_1

T = TypeVar("T", bound=SQLModel)


class Harness:
    def said(self, key: str, language: Language, **values: Any) -> str:
        """A sentence as this shop's bot says it: one about an order number carries the shop's
        own made-up example (services.orders.codes), learned from the orders in this database."""
        assert self.app.classifier is not None
        example = self.app.classifier.order_codes.example()
        return t(key, language, like=order_like(example, language), **values)

    def __init__(self, app: App, updates: UpdateFactory | None = None) -> None:
        self.app = app
        self.session = RecordingSession()
        self.waits: list[float] = []
        """Retry waits the bot's retry policy asked for (recorded, not slept: tests stay fast)."""
        self.retry = TelegramRetryMiddleware(sleep=self._record_wait)
        self.bot = create_bot(
            LOCAL_BOT_TOKEN,
            session=self.session,
            retry=self.retry,
            metrics=app.metrics,
        )
        # Pass the old factory after a "restart": Telegram's update ids keep increasing.
        self.updates = updates or UpdateFactory()
        self._seen = 0

    async def _record_wait(self, seconds: float) -> None:
        self.waits.append(seconds)

    async def feed(self, update: Update) -> list[TelegramMethod[Any]]:
        """Dispatch one update; return the API calls it caused."""
        await self.app.dispatcher.feed_update(self.bot, update)
        new = self.session.requests[self._seen :]
        self._seen = len(self.session.requests)
        return new

    async def say(self, user_id: int, text: str, **kwargs: Any) -> list[str]:
        """Send text as a customer; return the texts sent back to that chat."""
        calls = await self.feed(self.updates.text(user_id, text, **kwargs))
        return texts_to(calls, kwargs.get("chat_id", user_id))

    async def rows(self, model: type[T]) -> list[T]:
        async with self.app.session_factory() as session:
            return list((await session.exec(select(model))).all())


def texts_to(calls: list[TelegramMethod[Any]], chat_id: int) -> list[str]:
    return [
        to_plain(call.text, call.parse_mode)
        for call in calls
        if isinstance(call, SendMessage) and call.chat_id == chat_id
    ]


def buttons(call: TelegramMethod[Any]) -> list[tuple[str, str]]:
    markup = getattr(call, "reply_markup", None)
    rows = getattr(markup, "inline_keyboard", None) or []
    return [(button.text, button.callback_data) for row in rows for button in row]


@asynccontextmanager
async def judged_bot(settings: Settings, base_url: str) -> AsyncIterator[Harness]:
    """The demo shop's bot with one target model at `base_url`, verified in judge mode, no retries."""
    target = LLMEndpoint(base_url=base_url, model="target", verify="judge")
    app = await build_app(
        settings.model_copy(update={"llm": LLMRoles(target=[target], retries=0)}), upgrade=False, seed=True
    )
    try:
        yield Harness(app)
    finally:
        await app.close()
