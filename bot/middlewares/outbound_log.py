"""Records what the bot sends, on the way out, into the interaction being handled.

Hooking the Telegram session instead of each handler means no reply can be
sent without being logged, whichever handler or error path sends it. It sits
outside the retry middleware, so it sees each message once, with its final
outcome: a message Telegram refused after every retry is stored with its text
and the error, for an admin to see and resend.

A final message the customer received is marked delivered at once (the
interaction's `on_delivered`: one write of its own, not behind the outcome's
group commit), so a crash after it repeats nothing: the next run finds the mark
and does not handle the update again. `FinishSendsInFlight`, innermost, lets a
message already on its way to Telegram finish when the handling task is
cancelled (a shutdown's deadline, the update timeout), so the log says truly
whether the customer has it instead of guessing "not delivered" and sending it
again after the restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from contextvars import ContextVar
from typing import Any

from aiogram import Bot
from aiogram.client.default import Default
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods import (
    CopyMessage,
    EditMessageText,
    ForwardMessage,
    Response,
    SendMessage,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, KeyboardButton, ReplyKeyboardMarkup

from bot.faults import is_transient
from bot.middlewares.telegram_limits import is_preview
from bot.stop_signal import finish_even_if_cancelled
from db.models import OutboundStatus
from handlers.streaming import PreviewDropped
from services.admin.conversation_log import Interaction, SentMessage, current_interaction, sending_notice
from services.text.html import to_plain

SEND_IN_FLIGHT_GRACE_S = 5.0
"""How long a cancelled task waits for a message already sent to Telegram to be answered (a
shutdown's drain waits this much beyond CSBOT_SHUTDOWN_TIMEOUT at most)."""

_sending: ContextVar[SentMessage | None] = ContextVar("outbound_message_in_flight", default=None)


def _logged_text(method: TelegramMethod[Any]) -> str | None:
    if isinstance(method, (SendMessage, EditMessageText)):
        return to_plain(method.text or "", method.parse_mode)  # as the customer read it
    if isinstance(method, (ForwardMessage, CopyMessage)):
        return f"[{method.__api_method__} of message {method.message_id} from chat {method.from_chat_id}]"
    return None


def offered_buttons(method: TelegramMethod[Any]) -> str | None:
    """The labels of the buttons a message offers, row by row, as a JSON list (None: no buttons)."""
    markup = getattr(method, "reply_markup", None)
    if isinstance(markup, InlineKeyboardMarkup):
        rows: list[list[InlineKeyboardButton]] | list[list[KeyboardButton]] = markup.inline_keyboard
    elif isinstance(markup, ReplyKeyboardMarkup):
        rows = markup.keyboard
    else:
        return None
    labels = [button.text for row in rows for button in row]
    return json.dumps(labels, ensure_ascii=False) if labels else None


def stored_call(method: SendMessage) -> str:
    """The call as JSON, to send again exactly as it was (the bot's defaults left to apply again)."""
    defaults = {name for name, value in method if isinstance(value, Default)}
    return method.model_dump_json(exclude_none=True, exclude=defaults)


class OutboundLogMiddleware(BaseRequestMiddleware):
    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        interaction = current_interaction.get()
        text = _logged_text(method)
        if interaction is None or text is None:
            return await make_request(bot, method)
        chat_id = getattr(method, "chat_id", None)
        sent = SentMessage(
            method.__api_method__,
            int(chat_id) if chat_id is not None else None,
            text,
            final=not is_preview(method),
            notice=sending_notice.get(),
            buttons=offered_buttons(method),
        )
        token = _sending.set(sent)
        try:
            response = await make_request(bot, method)
        except PreviewDropped:
            raise  # never sent, on purpose: a streaming preview skipped to keep Telegram's limits
        except BaseException as error:  # a cancelled send (timeout, shutdown) did not arrive either
            if not sent.landed:
                sent.status = OutboundStatus.FAILED
                sent.error = f"{type(error).__name__}: {error}"[:1000]
                sent.retryable = is_transient(error) or isinstance(error, asyncio.CancelledError)
                if isinstance(error, TelegramRetryAfter):
                    sent.retry_after = float(error.retry_after)
                if sent.retryable and isinstance(method, SendMessage):
                    sent.payload = stored_call(method)
            raise
        finally:
            _sending.reset(token)
            interaction.sent.append(sent)
            if _to_the_customer(sent, interaction) and interaction.on_delivered is not None:
                await finish_even_if_cancelled(interaction.on_delivered(sent))
        return response


def _to_the_customer(sent: SentMessage, interaction: Interaction) -> bool:
    """A final message the customer received (what a re-run must not repeat)."""
    return (
        sent.status == OutboundStatus.SENT
        and sent.final
        and not sent.notice
        and sent.chat_id == interaction.chat_id
    )


class FinishSendsInFlight(BaseRequestMiddleware):
    """Innermost: a logged message whose HTTP call is under way when its task is cancelled is
    let finish (up to `grace` seconds), and the outbound log learns that it landed."""

    grace: float = SEND_IN_FLIGHT_GRACE_S

    def __init__(self, grace: float | None = None) -> None:
        if grace is not None:
            self.grace = grace

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        sent = _sending.get()
        if sent is None:
            return await make_request(bot, method)
        call = asyncio.ensure_future(make_request(bot, method))
        try:
            return await asyncio.shield(call)
        except asyncio.CancelledError:
            if not call.done():
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait({call}, timeout=self.grace)
            if not call.done():
                call.cancel()
            elif not call.cancelled() and call.exception() is None:
                sent.landed = True
            raise
