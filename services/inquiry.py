"""Routing a classified customer message to the service that answers it."""

from __future__ import annotations

import logging
import re

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer
from services.cancellation import answer_cancellation, asks_to_cancel
from services.classifier import Classification, Intent
from services.faq_answers import faq_reply
from services.llm.speculative import SpeculativeAnswerer
from services.policy import ShopPolicy
from services.replies import AnswerSource, FollowUp, Reply
from services.returns import answer_returns
from services.shipping import answer_orders
from services.shopdata.base import ShopData, ShopDataUnavailable
from services.shopdata.local import customer_id_of
from services.stock import answer_stock
from services.text_normalize import normalize
from services.texts import t

logger = logging.getLogger(__name__)

_ABOUT_OWN_ORDER = re.compile(
    r"\bmy (order|package|parcel|delivery|stuff|shipment)\b|\bwhere('s| is)\b|\btrack"
    r"|\b(hasn't|has not|haven't|not) (arrived|come|received)"
    r"|(내|제|저의)\s?(주문|택배|물건|상품)|주문한|주문했|시킨|언제\s?(와|오)|어디|안\s?(왔|와)"
    r"|송장|운송장|조회|私の注文|注文した|届いて"
)


async def answer_inquiry(
    session: AsyncSession,
    *,
    shop: ShopData,
    customer: Customer | None,
    text: str,
    classification: Classification,
    language: str,
    faq: SpeculativeAnswerer,
    low_stock_threshold: int,
    user_id: int | None = None,
    policy: ShopPolicy | None = None,
) -> Reply:
    entities = classification.entities
    try:
        if asks_to_cancel(text, entities):
            return await answer_cancellation(
                shop, _customer_id(customer), entities, language, policy or ShopPolicy()
            )
        match classification.intent:
            case Intent.STOCK:
                return await answer_stock(
                    shop, entities, language, low_threshold=low_stock_threshold, text=text
                )
            case Intent.SHIPPING:
                return await _answer_shipping(
                    session, shop, customer, text, classification, language, faq, user_id
                )
    except ShopDataUnavailable as error:
        # Never "not found" for what we could not look at: say so, and offer a person.
        logger.warning(
            "shop data unavailable", extra={"intent": classification.intent.value, "error": str(error)}
        )
        route = classification.intent.value
        return Reply(t("shop_unavailable", language), AnswerSource.TEMPLATE, FollowUp.OFFER_HAND_OFF, route)
    match classification.intent:
        case Intent.RETURNS:
            return await answer_returns(session, customer, text, entities, language, faq, user_id, shop=shop)
        case Intent.HUMAN:
            return Reply("", AnswerSource.HANDOFF, FollowUp.HAND_OFF, "human")
        case _:
            reply = await faq_reply(
                session, text, language, faq, customer=customer, user_id=user_id, shop=shop
            )
            return reply or Reply(
                t("faq_no_match", language), AnswerSource.TEMPLATE, FollowUp.OFFER_HAND_OFF, "faq"
            )


async def _answer_shipping(
    session: AsyncSession,
    shop: ShopData,
    customer: Customer | None,
    text: str,
    classification: Classification,
    language: str,
    faq: SpeculativeAnswerer,
    user_id: int | None,
) -> Reply:
    """Tracking when the customer speaks of their order; delivery policy otherwise."""
    if classification.entities.order_numbers or _ABOUT_OWN_ORDER.search(normalize(text)):
        return await answer_orders(shop, _customer_id(customer), classification.entities, language)
    policy = await faq_reply(
        session,
        text,
        language,
        faq,
        customer=customer,
        user_id=user_id,
        shop=shop,
        tags=("shipping",),
        route="shipping",
        require_entry=True,
    )
    if policy is not None:
        return policy
    if customer is None:
        return Reply(t("ask_order_number", language), AnswerSource.TEMPLATE, route="shipping")
    return await answer_orders(shop, _customer_id(customer), classification.entities, language)


def _customer_id(customer: Customer | None) -> str | None:
    return None if customer is None else customer_id_of(customer)
