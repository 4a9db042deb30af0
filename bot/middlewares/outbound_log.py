"""Records what the bot sends, on the way out, into the interaction being handled.

Hooking the Telegram session instead of each handler means no reply can be
sent without being logged, whichever handler or error path sends it. It sits
outside the retry middleware, so it sees each message once, with its final
outcome: a message Telegram refused after every retry is stored with its text
and the error, for an admin to see and resend.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.methods import (
    CopyMessage,
    EditMessageText,
    ForwardMessage,
    Response,
    SendMessage,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType

from bot.faults import is_transient
from bot.middlewares.telegram_limits import PreviewDropped
from db.models import OutboundStatus
from services.conversation_log import SentMessage, current_interaction
from services.text_html import to_plain


def _logged_text(method: TelegramMethod[Any]) -> str | None:
    if isinstance(method, (SendMessage, EditMessageText)):
        return to_plain(method.text or "", method.parse_mode)  # as the customer read it
    if isinstance(method, (ForwardMessage, CopyMessage)):
        return f"[{method.__api_method__} of message {method.message_id} from chat {method.from_chat_id}]"
    return None


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
        sent = SentMessage(method.__api_method__, int(chat_id) if chat_id is not None else None, text)
        try:
            response = await make_request(bot, method)
        except PreviewDropped:
            raise  # never sent, on purpose: a streaming preview skipped to keep Telegram's limits
        except BaseException as error:  # a cancelled send (timeout, shutdown) did not arrive either
            sent.status = OutboundStatus.FAILED
            sent.error = f"{type(error).__name__}: {error}"[:1000]
            sent.retryable = is_transient(error) or isinstance(error, asyncio.CancelledError)
            raise
        finally:
            interaction.sent.append(sent)
        return response
