"""Which arm answers this customer, and telling the admins when the canary's rails act.

Runs for every update: the customer's arm (a stable hash of their user id) puts that
arm's answerer where handlers expect the FAQ answerer, so handlers and services stay
unaware of arms. After handling, at most every few seconds, the guard rails and the
schedule are judged; what they did is sent to every admin (a Telegram concern, so it
lives here and not in the service).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import TelegramObject

from services.rollout.canary import Canary, Notice

logger = logging.getLogger(__name__)


class CanaryRoutingMiddleware(BaseMiddleware):
    def __init__(self, canary: Canary, admin_ids: Collection[int]) -> None:
        self._canary = canary
        self._admins = tuple(admin_ids)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        interaction = data.get("interaction")
        user = data.get("event_from_user")
        user_id = interaction.user_id if interaction is not None else (user.id if user is not None else None)
        await self._canary.refresh()
        data["arm"], data["faq"] = self._canary.answerer_for(user_id)
        try:
            result = await handler(event, data)
        except Exception:
            await self._judge(data.get("bot"))
            raise
        await self._judge(data.get("bot"))
        return result

    async def _judge(self, bot: Bot | None) -> None:
        """Never the customer's problem: a failing check is logged and tried again later."""
        try:
            notices = await self._canary.check()
        except Exception:
            logger.exception("canary guard rails could not be judged")
            return
        if bot is not None:
            for notice in notices:
                await tell_admins(bot, self._admins, notice)


async def tell_admins(bot: Bot, admin_ids: Collection[int], notice: Notice) -> None:
    for admin_id in admin_ids:
        try:
            await bot.send_message(admin_id, notice.text, parse_mode=None)
        except TelegramAPIError as error:  # an admin who never opened the bot: the log has it
            logger.warning(
                "could not tell an admin about the canary", extra={"admin_id": admin_id, "error": str(error)}
            )
