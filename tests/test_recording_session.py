"""The fake Telegram session behaves like Telegram where the bot can tell."""

from __future__ import annotations

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramRetryAfter
from aiogram.methods import SendMessage

from bot.dispatcher import create_bot
from bot.recording_session import LOCAL_BOT_TOKEN, RecordingSession


async def test_queued_429_raises_the_real_retry_after() -> None:
    session = RecordingSession()
    bot = Bot(LOCAL_BOT_TOKEN, session=session)  # no retry policy: the raw behaviour
    session.queue_error(
        SendMessage, error_code=429, description="Too Many Requests: retry after 17", retry_after=17
    )
    with pytest.raises(TelegramRetryAfter) as caught:
        await bot.send_message(1, "hi")
    assert caught.value.retry_after == 17
    sent = await bot.send_message(1, "again")
    assert sent.text == "again" and sent.chat.id == 1
    assert [m.text for m in session.sent(SendMessage)] == ["hi", "again"]


async def test_queued_errors_apply_in_order_and_only_to_their_method() -> None:
    session = RecordingSession()
    bot = create_bot(LOCAL_BOT_TOKEN, session=session)
    session.queue_error(SendMessage, error_code=400, description="Bad Request: first")
    session.queue_error(SendMessage, error_code=400, description="Bad Request: second")
    assert await bot.answer_callback_query("q") is True
    with pytest.raises(TelegramBadRequest, match="first"):
        await bot.send_message(1, "a")
    with pytest.raises(TelegramBadRequest, match="second"):
        await bot.send_message(1, "b")
