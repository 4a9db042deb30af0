"""Hand-off to people: forwarding customer messages to the support chat and staff replies back."""

from __future__ import annotations

import logging

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, Filter
from aiogram.types import CallbackQuery, Message
from sqlmodel.ext.asyncio.session import AsyncSession

from handlers.context import button_language, conversation_language, language_of, say
from handlers.flows.handoff import forward_to_support, start_handoff
from handlers.keyboards import HandoffOffer, LegacyHandoffOffer
from services.admin.conversation_log import Interaction
from services.handoff import sessions as handoff
from services.replies import AnswerSource, ReplyRoute
from services.settings import Settings
from services.text.sentences import Language, t

logger = logging.getLogger(__name__)


class InHandoff(Filter):
    """True while the sender is talking to a person (state kept in the database)."""

    async def __call__(self, message: Message, session: AsyncSession) -> bool:
        if message.from_user is None:
            return False
        return await handoff.in_handoff(session, message.from_user.id)


def create_customer_router() -> Router:
    """Customer side: /human, /bot, the hand-off button, and relaying while a person is on."""
    router = Router(name="handoff-customer")

    @router.message(Command("human"))
    async def on_human(
        message: Message, bot: Bot, session: AsyncSession, settings: Settings, interaction: Interaction
    ) -> None:
        await start_handoff(message, bot, session, settings, interaction)

    @router.callback_query(HandoffOffer.filter())
    @router.callback_query(LegacyHandoffOffer.filter())
    async def on_offer(
        query: CallbackQuery,
        callback_data: HandoffOffer | LegacyHandoffOffer,
        bot: Bot,
        session: AsyncSession,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        await query.answer()
        if isinstance(query.message, Message):
            # The button sits on the bot's message; the hand-off belongs to whoever tapped it,
            # and staff get the customer's own question, not the bot's answer to it.
            message = query.message.model_copy(update={"from_user": query.from_user, "text": ""})
            question = await handoff.question_message_id(
                session, user_id=query.from_user.id, chat_id=message.chat.id
            )
            await start_handoff(
                message.as_(bot),
                bot,
                session,
                settings,
                interaction,
                question_id=question,
                own_message=False,
                language=button_language(getattr(callback_data, "language", None)),
            )

    @router.message(Command("bot"))
    async def on_back_to_bot(message: Message, session: AsyncSession, interaction: Interaction) -> None:
        assert message.from_user is not None
        await handoff.close_handoff(session, message.from_user.id)
        interaction.routed(ReplyRoute.HUMAN, AnswerSource.TEMPLATE)
        await say(message, t("handoff_ended", await conversation_language(session, message)))

    @router.message(InHandoff())
    async def relay(
        message: Message, bot: Bot, session: AsyncSession, settings: Settings, interaction: Interaction
    ) -> None:
        assert message.from_user is not None
        interaction.routed(ReplyRoute.HANDOFF_RELAY, AnswerSource.HANDOFF)
        language = language_of(message.from_user, message.text or "")
        forwarded = await forward_to_support(
            bot, session, settings, message.from_user.id, message.chat.id, message.message_id, language
        )
        if not forwarded:
            await say(message, t("handoff_unavailable", language))

    return router


def create_support_router(support_chat_id: int) -> Router:
    """Support chat side: a reply to a forwarded message goes back to that customer.

    Every update from the support chat is routed "staff..." so it stays stored but out
    of the customer logs and /stats; the bot never answers staff chatter itself.
    """
    router = Router(name="handoff-support")
    router.message.filter(F.chat.id == support_chat_id)

    @router.message(Command("close"), F.reply_to_message)
    async def on_close(message: Message, bot: Bot, session: AsyncSession, interaction: Interaction) -> None:
        assert message.reply_to_message is not None
        interaction.routed(ReplyRoute.STAFF_CLOSE, AnswerSource.STAFF)
        opened = await handoff.handoff_for_reply(
            session, support_chat_id=message.chat.id, replied_message_id=message.reply_to_message.message_id
        )
        if opened is None:
            await message.reply("This message is not part of a hand-off.", parse_mode=None)
            return
        if not await handoff.close_session(session, opened):
            await message.reply("Already closed; the customer was told then.", parse_mode=None)
            return
        await bot.send_message(
            opened.customer_chat_id, t("handoff_ended", Language.of(opened.language)), parse_mode=None
        )
        await message.reply("Closed; the customer is back with the bot.", parse_mode=None)

    @router.message(F.reply_to_message)
    async def on_staff_reply(
        message: Message, bot: Bot, session: AsyncSession, interaction: Interaction
    ) -> None:
        assert message.reply_to_message is not None
        interaction.routed(ReplyRoute.STAFF_REPLY, AnswerSource.STAFF)
        opened = await handoff.handoff_for_reply(
            session, support_chat_id=message.chat.id, replied_message_id=message.reply_to_message.message_id
        )
        if opened is None:
            return  # staff talking among themselves, replying to each other
        if opened.closed_at is not None:
            await message.reply(
                "Not sent: this hand-off is closed and the customer is back with the bot. "
                "They can ask for a person again.",
                parse_mode=None,
            )
            return
        try:
            if message.text:
                text = t("staff_reply", Language.of(opened.language), text=message.text)
                await bot.send_message(opened.customer_chat_id, text, parse_mode=None)
            else:
                await bot.copy_message(
                    chat_id=opened.customer_chat_id,
                    from_chat_id=message.chat.id,
                    message_id=message.message_id,
                )
        except TelegramAPIError as error:
            logger.warning("staff reply not delivered", extra={"customer_chat_id": opened.customer_chat_id})
            await message.reply(f"Not delivered to the customer: {error.message}", parse_mode=None)

    @router.message()
    async def on_staff_chatter(message: Message, interaction: Interaction) -> None:
        """Staff talking among themselves: stored, marked, not answered."""
        interaction.routed(ReplyRoute.STAFF, AnswerSource.STAFF)

    return router
