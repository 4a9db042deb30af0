"""The customer tapped one of the FAQ entries offered beside an unsure "I don't know"."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.types import CallbackQuery, Message
from sqlmodel.ext.asyncio.session import AsyncSession

from handlers.context import button_language, say
from handlers.flows.handoff import tell_support_of_an_entry_read
from handlers.keyboards import FaqChoice, offer_person
from services.admin.conversation_log import Interaction
from services.faq.choices import picked_entry
from services.faq.learning import learn_from_choice
from services.llm.speculative import FaqReplies
from services.replies import AnswerSource, ReplyRoute
from services.settings import Settings
from services.text.sentences import Language, t
from services.text.split import split_text


def create_router() -> Router:
    router = Router(name="faq_choices")

    @router.callback_query(FaqChoice.filter())
    async def on_faq_choice(
        query: CallbackQuery,
        callback_data: FaqChoice,
        session: AsyncSession,
        faq: FaqReplies,
        interaction: Interaction,
        bot: Bot,
        settings: Settings,
    ) -> None:
        """The shop's own text for the entry the customer chose: they asked for it by name."""
        await query.answer()
        message = query.message
        if not isinstance(message, Message):
            return
        language = button_language(callback_data.language) or Language.EN
        lookup = faq.lookup
        if lookup.refresher is not None:  # an entry added since (or by another instance) is found
            await lookup.refresher.refresh(session)
        entry = picked_entry(lookup, callback_data.entry, language)
        if entry is None:
            interaction.routed(ReplyRoute.FAQ_CHOICE_GONE, AnswerSource.TEMPLATE)
            await say(message, t("faq_choice_gone", language), reply_markup=offer_person(language))
            return
        interaction.routed(ReplyRoute.FAQ_CHOICE, AnswerSource.FAQ)
        interaction.entities["faq"] = {"slug": entry.slug, "answered": True, "picked": True}
        for part in split_text(entry.answer):
            await say(message, part)
        await tell_support_of_an_entry_read(bot, session, settings, query.from_user.id, entry.question)
        # The customer said which entry answers what they asked: the bot learns their words.
        await learn_from_choice(session, user_id=query.from_user.id, chat_id=message.chat.id, slug=entry.slug)

    return router
