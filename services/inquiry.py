"""Routing an understood customer message to the service that answers it."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer
from services.classifier import Intent
from services.faq_answers import faq_reply
from services.llm.speculative import SpeculativeAnswerer
from services.replies import AnswerSource, FollowUp, Reply
from services.returns import answer_returns
from services.shipping import answer_orders
from services.stock import answer_stock
from services.texts import t
from services.understanding import ABOUT_OWN_ORDER, Route, Understanding


async def answer_inquiry(
    session: AsyncSession,
    *,
    customer: Customer | None,
    text: str,
    understanding: Understanding,
    language: str,
    faq: SpeculativeAnswerer,
    low_stock_threshold: int,
    user_id: int | None = None,
) -> Reply:
    entities = understanding.classification.entities
    match understanding.route:
        case Route.STOCK:
            return await answer_stock(session, entities, language, low_threshold=low_stock_threshold)
        case Route.ORDERS:
            if entities.order_numbers or ABOUT_OWN_ORDER.search(text.lower()) or customer is not None:
                return await answer_orders(session, customer, entities, language)
            return Reply(t("ask_order_number", language), AnswerSource.TEMPLATE, route="shipping")
        case Route.RETURNS:
            return await answer_returns(session, customer, text, entities, language, faq, user_id)
        case Route.HANDOFF:
            return Reply("", AnswerSource.HANDOFF, FollowUp.HAND_OFF, "human")
        case Route.CLARIFY:
            return Reply(t("clarify", language), AnswerSource.TEMPLATE, FollowUp.CLARIFY, "clarify")
        case Route.FAQ_ENTRY:
            returns = understanding.intent is Intent.RETURNS
            reply = await faq_reply(
                session,
                text,
                language,
                faq,
                customer=customer,
                user_id=user_id,
                route=understanding.intent.value,
                follow_up=FollowUp.OFFER_RETURN if returns else FollowUp.NONE,
            )
            if reply is not None:
                return reply
    reply = await faq_reply(session, text, language, faq, customer=customer, user_id=user_id)
    return reply or Reply(t("faq_no_match", language), AnswerSource.TEMPLATE, FollowUp.OFFER_HAND_OFF, "faq")
