"""Free-text customer messages: classify, answer from the right service, offer the next step."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.fsm.context import FSMContext
from aiogram.types import Message
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.config import Settings
from handlers.context import linked_customer, say
from handlers.handoff import start_handoff
from handlers.keyboards import HandoffOffer, ReturnStep, share_contact_keyboard, single_button
from handlers.returns import start_return_flow
from services.classifier import IntentClassifier
from services.conversation_log import Interaction
from services.faq import FaqAnswerer
from services.inquiry import answer_inquiry
from services.replies import FollowUp
from services.text_normalize import detect_language
from services.texts import t

TELEGRAM_TEXT_LIMIT = 4096


def create_router() -> Router:
    router = Router(name="inquiries")

    @router.message(F.text, ~F.text.startswith("/"))
    async def on_text(
        message: Message,
        bot: Bot,
        session: AsyncSession,
        state: FSMContext,
        settings: Settings,
        classifier: IntentClassifier,
        faq: FaqAnswerer,
        interaction: Interaction,
    ) -> None:
        text = message.text or ""
        language = detect_language(text)
        if not text.strip():
            interaction.routed("bad-input", "template")
            await say(message, t("empty_text", language))
            return
        if len(text) > TELEGRAM_TEXT_LIMIT:
            await say(message, t("too_long", language, limit=TELEGRAM_TEXT_LIMIT))
        classification = classifier.classify(text)
        interaction.classified(classification)
        customer = await linked_customer(session, message.from_user)
        reply = await answer_inquiry(
            session,
            customer=customer,
            text=text,
            classification=classification,
            language=language,
            faq=faq,
            low_stock_threshold=settings.low_stock_threshold,
        )
        interaction.answered(reply)
        match reply.follow_up:
            case FollowUp.HAND_OFF:
                await start_handoff(message, bot, session, settings, interaction)
            case FollowUp.START_RETURN:
                assert message.from_user is not None
                reference = next(iter(classification.entities.order_numbers), None)
                await start_return_flow(message, message.from_user, session, state, language, reference)
            case FollowUp.SHARE_CONTACT:
                await say(message, reply.text, reply_markup=share_contact_keyboard(language))
            case FollowUp.OFFER_RETURN:
                button = single_button(
                    t("return_start_button", language), ReturnStep(action="start", flow="-").pack()
                )
                await say(message, reply.text, reply_markup=button)
            case FollowUp.OFFER_HAND_OFF:
                await say(
                    message,
                    reply.text,
                    reply_markup=single_button("🙋 " + t("human_button", language), HandoffOffer().pack()),
                )
            case _:
                await say(message, reply.text)

    return router
