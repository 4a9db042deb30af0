"""Records what the bot sends, on the way out, into the interaction being handled.

Hooking the Telegram session instead of each handler means no reply can be
sent without being logged, whichever handler or error path sends it.
"""

from __future__ import annotations

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

from services.conversation_log import SentMessage, current_interaction
from services.text_html import to_plain


def _logged_text(method: TelegramMethod[Any]) -> str | None:
    if isinstance(method, (SendMessage, EditMessageText)):
        return to_plain(method.text, method.parse_mode)  # as the customer read it
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
        response = await make_request(bot, method)
        interaction = current_interaction.get()
        text = _logged_text(method)
        if interaction is not None and text is not None:
            chat_id = getattr(method, "chat_id", None)
            interaction.sent.append(
                SentMessage(method.__api_method__, int(chat_id) if chat_id is not None else None, text)
            )
        return response
