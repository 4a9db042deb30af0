"""Greeting, help, and linking the Telegram account through a shared contact."""

from __future__ import annotations

import logging

from aiogram import F, Router
from aiogram.filters import Command, CommandStart
from aiogram.types import Message
from sqlmodel.ext.asyncio.session import AsyncSession

from handlers.context import REMOVE_KEYBOARD, conversation_language, language_of, say
from handlers.keyboards import share_contact_keyboard
from services.admin.conversation_log import Interaction
from services.replies import AnswerSource, ReplyRoute
from services.settings import Settings
from services.shop.identity import LinkOutcome, link_contact
from services.shop.sources.factory import shop_data
from services.text.sentences import help_text, t
from services.understanding.classifier import IntentClassifier

logger = logging.getLogger(__name__)


def create_router() -> Router:
    router = Router(name="start")

    @router.message(CommandStart())
    async def on_start(message: Message, interaction: Interaction) -> None:
        interaction.routed(ReplyRoute.START, AnswerSource.TEMPLATE)
        await say(message, t("welcome", language_of(message.from_user)))

    @router.message(Command("help"))
    async def on_help(
        message: Message, session: AsyncSession, interaction: Interaction, classifier: IntentClassifier
    ) -> None:
        interaction.routed(ReplyRoute.HELP, AnswerSource.TEMPLATE)
        language = await conversation_language(session, message)
        product, order = classifier.example_product(language), classifier.order_codes.example()
        await say(message, help_text(language, product=product, order=order))

    @router.message(F.contact)
    async def on_contact(
        message: Message, session: AsyncSession, settings: Settings, interaction: Interaction
    ) -> None:
        assert message.from_user is not None and message.contact is not None
        language = language_of(message.from_user)
        interaction.routed(ReplyRoute.LINK_ACCOUNT, AnswerSource.TEMPLATE)
        result = await link_contact(
            session,
            sender_user_id=message.from_user.id,
            contact_user_id=message.contact.user_id,
            phone_number=message.contact.phone_number,
            shop=shop_data(session, settings),
        )
        logger.info(
            "contact link attempt", extra={"user_id": message.from_user.id, "outcome": result.outcome.value}
        )
        match result.outcome:
            case LinkOutcome.LINKED:
                assert result.customer is not None
                await say(
                    message,
                    t("contact_linked", language, name=result.customer.name),
                    reply_markup=REMOVE_KEYBOARD,
                )
            case LinkOutcome.NOT_OWN_CONTACT:
                await say(
                    message, t("contact_not_own", language), reply_markup=share_contact_keyboard(language)
                )
            case LinkOutcome.NO_CUSTOMER:
                await say(message, t("contact_not_found", language), reply_markup=REMOVE_KEYBOARD)
            case LinkOutcome.UNAVAILABLE:
                await say(
                    message, t("shop_unavailable", language), reply_markup=share_contact_keyboard(language)
                )
            case LinkOutcome.TAKEN:
                await say(message, t("contact_taken", language), reply_markup=REMOVE_KEYBOARD)

    return router
