"""Logs every update before handling and its outcome after; drops re-delivered updates.

Handling errors end here: the customer gets a polite apology, the admin a log
line with the traceback, and the inbound row keeps the error.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import TelegramObject, Update

from handlers.context import language_of
from services.conversation_log import ConversationLog, current_interaction
from services.texts import t

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class UpdateSummary:
    user_id: int | None
    chat_id: int | None
    kind: str
    text: str
    language: str


def summarize(update: Update) -> UpdateSummary:
    if update.message is not None:
        message = update.message
        text = message.text or message.caption or ""
        language = language_of(message.from_user, text)
        if message.contact is not None:
            text = "[contact shared]"  # the phone number is personal data; the link is logged
        return UpdateSummary(
            message.from_user.id if message.from_user else None,
            message.chat.id,
            message.content_type,
            text,
            language,
        )
    if update.callback_query is not None:
        query = update.callback_query
        chat_id = query.message.chat.id if query.message else None
        return UpdateSummary(
            query.from_user.id, chat_id, "callback", query.data or "", language_of(query.from_user)
        )
    return UpdateSummary(None, None, update.event_type, "", "en")


class ConversationLogMiddleware(BaseMiddleware):
    def __init__(self, log: ConversationLog) -> None:
        self._log = log

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        assert isinstance(event, Update)
        summary = summarize(event)
        interaction = await self._log.open(
            update_id=event.update_id,
            user_id=summary.user_id,
            chat_id=summary.chat_id,
            kind=summary.kind,
            text=summary.text,
        )
        if interaction is None:
            logger.info("duplicate update skipped", extra={"update_id": event.update_id})
            return None
        data["interaction"] = interaction
        token = current_interaction.set(interaction)
        try:
            return await handler(event, data)
        except Exception as error:
            interaction.failed(error)
            logger.exception(
                "update handling failed",
                extra={
                    "update_id": event.update_id,
                    "user_id": summary.user_id,
                    "inbound_id": interaction.inbound_id,
                },
            )
            await self._apologize(data["bot"], summary)
            return None
        finally:
            current_interaction.reset(token)
            await self._log.close(interaction)

    async def _apologize(self, bot: Bot, summary: UpdateSummary) -> None:
        if summary.chat_id is None:
            return
        try:
            await bot.send_message(summary.chat_id, t("internal_error", summary.language))
        except TelegramAPIError:
            logger.exception("could not send the apology", extra={"chat_id": summary.chat_id})
