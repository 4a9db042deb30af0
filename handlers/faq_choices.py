"""The customer tapped one of the FAQ entries offered beside an unsure "I don't know"."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery, Message

from handlers.context import button_language, say
from handlers.keyboards import FaqChoice, offer_person
from services.conversation_log import Interaction
from services.faq_choices import picked_entry
from services.llm.speculative import FaqReplies
from services.replies import AnswerSource
from services.texts import t

PICKED_ROUTE = "faq_choice"


def create_router() -> Router:
    router = Router(name="faq_choices")

    @router.callback_query(FaqChoice.filter())
    async def on_faq_choice(
        query: CallbackQuery, callback_data: FaqChoice, faq: FaqReplies, interaction: Interaction
    ) -> None:
        """The shop's own text for the entry the customer chose: they asked for it by name."""
        await query.answer()
        message = query.message
        if not isinstance(message, Message):
            return
        language = button_language(callback_data.language) or "en"
        entry = picked_entry(faq.lookup, callback_data.entry, language)
        if entry is None:
            interaction.routed(f"{PICKED_ROUTE}:gone", AnswerSource.TEMPLATE)
            await say(message, t("faq_choice_gone", language), reply_markup=offer_person(language))
            return
        interaction.routed(PICKED_ROUTE, AnswerSource.FAQ)
        interaction.entities["faq"] = {"slug": entry.slug, "answered": True, "picked": True}
        await say(message, entry.answer)

    return router
