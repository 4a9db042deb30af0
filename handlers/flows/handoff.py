"""Opening a hand-off to a person and forwarding the customer's messages to the support chat.

Started by `/human` and the hand-off button (handlers/handoff.py) and by a message the inquiry
router hands to a person (handlers/inquiries.py).
"""

from __future__ import annotations

import logging

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message
from sqlmodel.ext.asyncio.session import AsyncSession

from handlers.context import language_of, say
from services.admin.conversation_log import Interaction
from services.handoff import sessions as handoff
from services.handoff.brief import staff_brief
from services.replies import AnswerSource, ReplyRoute
from services.settings import Settings
from services.shop.sources.factory import shop_data
from services.text.sentences import Language, t

logger = logging.getLogger(__name__)


async def start_handoff(
    message: Message,
    bot: Bot,
    session: AsyncSession,
    settings: Settings,
    interaction: Interaction,
    *,
    question_id: int | None = None,
    own_message: bool = True,
    language: Language | None = None,
) -> None:
    """Open a hand-off: a brief for staff, then the customer's question forwarded.

    `message` is forwarded when it is the customer's (`own_message`); the "Talk to a
    person" button sits on the bot's answer, so there `question_id` names the customer's
    last message instead (None: nothing to forward, the brief's last turns still show it).
    """
    assert message.from_user is not None
    user = message.from_user
    language = language or language_of(user, message.text or "")
    interaction.routed(ReplyRoute.HUMAN, AnswerSource.HANDOFF)
    if settings.support_chat_id is None:
        # Nobody to relay to: record the request for the admins and keep the bot answering.
        logger.warning("hand-off requested but CSBOT_SUPPORT_CHAT_ID is not set", extra={"user_id": user.id})
        await handoff.open_handoff(session, user_id=user.id, chat_id=message.chat.id, language=language)
        await handoff.close_handoff(session, user.id)
        await say(message, t("handoff_unavailable", language))
        return
    opened = await handoff.open_handoff(session, user_id=user.id, chat_id=message.chat.id, language=language)
    header = await staff_brief(
        session,
        shop_data(session, settings),
        handoff_id=opened.id,
        user_id=user.id,
        chat_id=message.chat.id,
        display_name=user.full_name,
        username=user.username,
        zone=settings.shop_policy().timezone,
    )
    try:
        sent = await bot.send_message(settings.support_chat_id, header, parse_mode=None)
        await handoff.remember_forward(
            session, opened, support_chat_id=settings.support_chat_id, support_message_id=sent.message_id
        )
    except TelegramAPIError:
        logger.exception(
            "could not reach the support chat", extra={"support_chat_id": settings.support_chat_id}
        )
        await handoff.close_handoff(session, user.id)  # the bot keeps answering meanwhile
        await say(message, t("handoff_forward_failed", language))
        return
    await say(message, t("handoff_started", language))
    if own_message:
        question_id = message.message_id
    if question_id is not None:
        await forward_to_support(bot, session, settings, user.id, message.chat.id, question_id, language)


async def forward_to_support(
    bot: Bot,
    session: AsyncSession,
    settings: Settings,
    user_id: int,
    chat_id: int,
    message_id: int,
    language: Language,
) -> bool:
    """Forward one customer message to the support chat and remember whose it is."""
    opened = await handoff.active_handoff(session, user_id)
    if opened is None or settings.support_chat_id is None:
        return False
    try:
        forwarded = await bot.forward_message(
            chat_id=settings.support_chat_id, from_chat_id=chat_id, message_id=message_id
        )
    except TelegramAPIError:
        logger.exception("forward to support failed", extra={"user_id": user_id})
        await bot.send_message(chat_id, t("handoff_forward_failed", language), parse_mode=None)
        return False
    await handoff.remember_forward(
        session, opened, support_chat_id=settings.support_chat_id, support_message_id=forwarded.message_id
    )
    return True
