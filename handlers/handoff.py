"""Hand-off to people: forwarding customer messages to the support chat and staff replies back."""

from __future__ import annotations

import contextlib
import logging

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, Filter
from aiogram.types import CallbackQuery, Message
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import HandoffSession, HandoffVia
from handlers.context import button_language, conversation_language, language_of, say
from handlers.flows.handoff import (
    claim_handoff,
    forward_to_support,
    reply_to_customer,
    resolve_handoff,
    start_handoff,
)
from handlers.keyboards import HandoffOffer, LegacyHandoffOffer, Rating
from services.admin.conversation_log import Interaction
from services.handoff import inbox
from services.handoff import sessions as handoff
from services.replies import AnswerSource, ReplyRoute
from services.settings import Settings
from services.text.sentences import t

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

    @router.callback_query(Rating.filter())
    async def on_rating(
        query: CallbackQuery, callback_data: Rating, session: AsyncSession, interaction: Interaction
    ) -> None:
        """The customer's rating of a resolved hand-off; the first answer counts."""
        interaction.routed(ReplyRoute.RATING, AnswerSource.TEMPLATE)
        language = button_language(callback_data.language) or language_of(query.from_user, "")
        result = await inbox.record_rating(
            session, callback_data.handoff, query.from_user.id, callback_data.score
        )
        await query.answer()
        if result == inbox.Rated.NOT_ASKED:
            return
        if isinstance(query.message, Message):
            with contextlib.suppress(TelegramAPIError):  # an old message may not be editable any more
                await query.message.edit_reply_markup(reply_markup=None)
            if result == inbox.Rated.ALREADY:
                key = "rating_already"
            else:
                key = "rating_skipped" if callback_data.score == inbox.SKIPPED else "rating_thanks"
            await query.message.answer(t(key, language), parse_mode=None)

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
            bot,
            session,
            settings,
            message.from_user.id,
            message.chat.id,
            message.message_id,
            language,
            text=message.text or message.caption or _kind_of(message),
        )
        if not forwarded:
            await say(message, t("handoff_unavailable", language))

    return router


def _kind_of(message: Message) -> str:
    """What the console shows for a message without text: `[photo]`, `[sticker]`..."""
    return f"[{message.content_type}]"


def create_support_router(support_chat_id: int) -> Router:
    """Support chat side: a reply to a forwarded message goes back to that customer.

    Every update from the support chat is routed "staff..." so it stays stored but out
    of the customer logs and /stats; the bot never answers staff chatter itself. What staff do
    here shows in the console's inbox too (handlers/flows/handoff.py does it for both).
    """
    router = Router(name="handoff-support")
    router.message.filter(F.chat.id == support_chat_id)

    async def _handoff_replied_to(message: Message, session: AsyncSession) -> HandoffSession | None:
        assert message.reply_to_message is not None and message.from_user is not None
        await inbox.remember_staff_name(session, message.from_user.id, message.from_user.full_name)
        return await handoff.handoff_for_reply(
            session, support_chat_id=message.chat.id, replied_message_id=message.reply_to_message.message_id
        )

    async def _commanded_handoff(message: Message, session: AsyncSession) -> HandoffSession | None:
        """The hand-off a staff command replies to; else staff are told, and None."""
        opened = await _handoff_replied_to(message, session)
        if opened is None:
            await message.reply("This message is not part of a hand-off.", parse_mode=None)
        return opened

    @router.message(Command("close"), F.reply_to_message)
    async def on_close(
        message: Message, bot: Bot, session: AsyncSession, settings: Settings, interaction: Interaction
    ) -> None:
        interaction.routed(ReplyRoute.STAFF_CLOSE, AnswerSource.STAFF)
        opened = await _commanded_handoff(message, session)
        if opened is None:
            return
        assert message.from_user is not None
        if not await resolve_handoff(
            bot, session, settings, opened, staff_id=message.from_user.id, via=HandoffVia.TELEGRAM
        ):
            await message.reply("Already closed; the customer was told then.", parse_mode=None)
            return
        await message.reply(
            "Closed; the customer is back with the bot and was asked to rate the conversation.",
            parse_mode=None,
        )

    @router.message(Command("claim"), F.reply_to_message)
    async def on_claim(
        message: Message, bot: Bot, session: AsyncSession, settings: Settings, interaction: Interaction
    ) -> None:
        interaction.routed(ReplyRoute.STAFF, AnswerSource.STAFF)
        opened = await _commanded_handoff(message, session)
        if opened is None:
            return
        assert message.from_user is not None
        if opened.closed_at is not None:
            await message.reply("This hand-off is closed.", parse_mode=None)
        elif await claim_handoff(
            bot, session, settings, opened, staff_id=message.from_user.id, via=HandoffVia.TELEGRAM
        ):
            await message.reply(f"Hand-off #{opened.id} is yours.", parse_mode=None)
        else:
            await message.reply(f"Hand-off #{opened.id} is yours already.", parse_mode=None)

    @router.message(F.reply_to_message)
    async def on_staff_reply(
        message: Message, bot: Bot, session: AsyncSession, settings: Settings, interaction: Interaction
    ) -> None:
        interaction.routed(ReplyRoute.STAFF_REPLY, AnswerSource.STAFF)
        opened = await _handoff_replied_to(message, session)
        if opened is None:
            return  # staff talking among themselves, replying to each other
        assert message.from_user is not None
        if opened.closed_at is not None:
            await message.reply(
                "Not sent: this hand-off is closed and the customer is back with the bot. "
                "They can ask for a person again.",
                parse_mode=None,
            )
            return
        if message.text:
            refused = await reply_to_customer(
                bot,
                session,
                settings,
                opened,
                staff_id=message.from_user.id,
                text=message.text,
                via=HandoffVia.TELEGRAM,
            )
            if refused is not None:
                await message.reply(f"Not delivered to the customer: {refused}", parse_mode=None)
            return
        try:
            await bot.copy_message(
                chat_id=opened.customer_chat_id, from_chat_id=message.chat.id, message_id=message.message_id
            )
        except TelegramAPIError as error:
            logger.warning("staff reply not delivered", extra={"customer_chat_id": opened.customer_chat_id})
            await message.reply(f"Not delivered to the customer: {error.message}", parse_mode=None)
            return
        await inbox.record_staff_reply(
            session, opened, message.from_user.id, message.caption or _kind_of(message), HandoffVia.TELEGRAM
        )

    @router.message()
    async def on_staff_chatter(message: Message, interaction: Interaction) -> None:
        """Staff talking among themselves: stored, marked, not answered."""
        interaction.routed(ReplyRoute.STAFF, AnswerSource.STAFF)

    return router
