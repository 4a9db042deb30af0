"""Routing an understood customer message to the service that answers it."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer
from services.catalogue.stock import answer_stock
from services.faq.choices import entries_to_offer
from services.faq.entry import FaqDocument
from services.faq.replies import faq_reply
from services.llm.speculative import FaqReplies
from services.orders.cancellation import answer_cancellation, asks_to_cancel
from services.orders.shipping import about_someone_elses_orders, answer_orders
from services.replies import AnswerSource, FollowUp, Reply, ReplyRoute, no_answer
from services.returns.requests import answer_returns
from services.shop.policy import ShopPolicy
from services.shop.sources.base import ShopData, ShopDataUnavailable
from services.shop.sources.local import customer_id_of
from services.text.sentences import Language, order_like, t
from services.understanding.classifier import Intent
from services.understanding.complaints import Complaint
from services.understanding.second_question import answered_second_question
from services.understanding.small_talk import SmallTalk
from services.understanding.understand import Route, Understanding, names_own_order

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Inquiry:
    """One customer message, with what answering it needs: what it says and what the bot made
    of it, who asks, and the shop's data, FAQ and rules."""

    text: str
    language: Language
    understanding: Understanding
    customer: Customer | None
    """The linked customer record; None for someone the bot does not know (yet)."""
    user_id: int | None
    shop: ShopData
    faq: FaqReplies
    policy: ShopPolicy
    low_stock_threshold: int
    catalogue_empty: bool = False
    """No product in the catalogue: stock questions are answered as such, not as "not carried"."""
    order_example: str | None = None
    """A made-up order number of the shop's own shape (services.orders.codes), for examples."""


async def answer_inquiry(session: AsyncSession, inquiry: Inquiry) -> Reply:
    """The reply to one message, from the service its route names."""
    text, language, understanding = inquiry.text, inquiry.language, inquiry.understanding
    shop, customer, faq, user_id = inquiry.shop, inquiry.customer, inquiry.faq, inquiry.user_id
    entities = understanding.classification.entities
    example = inquiry.order_example
    try:
        if asks_to_cancel(text, entities):
            return await answer_cancellation(
                shop, _customer_id(customer), entities, language, inquiry.policy, order_example=example
            )
        match understanding.route:
            case Route.STOCK:
                stock = await answer_stock(
                    shop,
                    entities,
                    language,
                    low_threshold=inquiry.low_stock_threshold,
                    text=text,
                    catalogue_empty=inquiry.catalogue_empty,
                )
                entries = entries_to_offer(faq.lookup, understanding, text, language)
                if entries and stock.follow_up is FollowUp.OFFER_HAND_OFF:
                    # No stock data to answer from: said so, the entries it may have meant, a person.
                    return replace(
                        stock, text=f"{stock.text}\n\n{t('or_one_of_these', language)}", choices=entries
                    )
                return _with_second_answer(stock, faq, text, language) or _also_offering(
                    stock, entries, language
                )
            case Route.ORDERS | Route.CLARIFY | Route.NO_ENTRY if about_someone_elses_orders(text):
                # Whatever the unsure intent, a request for another's orders gets the plain "only
                # your own" (with their own), not FAQ entries or "what is this about?".
                return await answer_orders(
                    shop,
                    _customer_id(customer),
                    entities,
                    language,
                    inquiry.policy,
                    text,
                    order_example=example,
                )
            case Route.ORDERS:
                entries = entries_to_offer(
                    faq.lookup, understanding, text, language, known_customer=customer is not None
                )
                if names_own_order(text, entities) or customer is not None:
                    orders = await answer_orders(
                        shop,
                        _customer_id(customer),
                        entities,
                        language,
                        inquiry.policy,
                        order_example=example,
                    )
                    return _with_second_answer(orders, faq, text, language) or _also_offering(
                        orders, entries, language
                    )
                asked = "order_number_or_entries" if entries else "ask_order_number"
                return Reply(
                    t(asked, language, like=order_like(example, language)),
                    AnswerSource.TEMPLATE,
                    route=ReplyRoute.SHIPPING,
                    choices=entries,
                )
    except ShopDataUnavailable as error:
        # Never "not found" for what we could not look at: say so, and offer a person.
        logger.warning(
            "shop data unavailable", extra={"route": understanding.route.value, "error": str(error)}
        )
        route = ReplyRoute(understanding.intent)
        return Reply(t("shop_unavailable", language), AnswerSource.TEMPLATE, FollowUp.OFFER_HAND_OFF, route)
    match understanding.route:
        case Route.RETURNS:
            entries = entries_to_offer(
                faq.lookup, understanding, text, language, known_customer=customer is not None
            )
            returned = await answer_returns(
                session,
                customer,
                text,
                entities,
                language,
                faq,
                user_id,
                shop=shop,
                zone=inquiry.policy.timezone,
                choices=entries,
                damaged=understanding.complaint is Complaint.DAMAGED,
            )
            return _also_offering(returned, entries, language)
        case Route.HANDOFF:
            # A person is asked for; the entries the question may have meant follow the hand-off.
            entries = entries_to_offer(faq.lookup, understanding, text, language)
            return Reply("", AnswerSource.HANDOFF, FollowUp.HAND_OFF, ReplyRoute.HUMAN, choices=entries)
        case Route.SMALL_TALK:
            kind = understanding.small_talk
            text_key = "welcome" if kind is SmallTalk.GREETING else f"small_talk_{kind}"
            follow_up = FollowUp.OFFER_HAND_OFF if kind is SmallTalk.IDENTITY else FollowUp.NONE
            return Reply(t(text_key, language), AnswerSource.TEMPLATE, follow_up, ReplyRoute.SMALL_TALK)
        case Route.CLARIFY:
            entries = entries_to_offer(faq.lookup, understanding, text, language)
            return Reply(
                t("clarify", language),
                AnswerSource.TEMPLATE,
                FollowUp.CLARIFY,
                ReplyRoute.CLARIFY,
                choices=entries,
            )
        case Route.FAQ_ENTRY:
            returns = understanding.intent is Intent.RETURNS
            reply = await faq_reply(
                session,
                text,
                language,
                faq,
                customer=customer,
                user_id=user_id,
                shop=shop,
                zone=inquiry.policy.timezone,
                route=ReplyRoute(understanding.intent),
                follow_up=FollowUp.OFFER_RETURN if returns else FollowUp.NONE,
            )
            if reply is not None:
                return reply
    reply = await faq_reply(
        session,
        text,
        language,
        faq,
        customer=customer,
        user_id=user_id,
        shop=shop,
        zone=inquiry.policy.timezone,
    )
    entries = entries_to_offer(faq.lookup, understanding, text, language)
    if reply is not None:
        # A model answers from the closest entries; should nothing verified come of it, the
        # customer gets the entries to pick from (handlers/inquiries.py `_stream_reply`).
        return replace(reply, choices=entries)
    return no_answer(language, entries)


def after_an_apology(reply: Reply, understanding: Understanding, language: Language) -> Reply:
    """The reply to a complaint begins with an apology: in its text, or, for a reply with none of its
    own yet (a hand-off, a streamed answer) or one the return form words itself, as a message before
    it (`Reply.preface`): "you guys are scammers, I want my money back" got the form alone."""
    if understanding.complaint is None:
        return reply
    apology = t("sorry_complaint", language)
    if reply.text and reply.follow_up is not FollowUp.START_RETURN:
        return replace(reply, text=f"{apology} {reply.text}")
    return replace(reply, preface=apology)


def _with_second_answer(reply: Reply, faq: FaqReplies, text: str, language: Language) -> Reply | None:
    """The service's plain answer followed by the FAQ's answer to a second question in the message
    ("...in stock, and how much is shipping?"), or None when there is no such answer to add."""
    if reply.follow_up is not FollowUp.NONE or not reply.text:
        return None
    second = answered_second_question(faq.lookup, text, language)
    if second is None:
        return None
    return replace(reply, text=f"{reply.text}\n\n{second.document.answer}")


def _also_offering(reply: Reply, entries: tuple[FaqDocument, ...], language: Language) -> Reply:
    """The service's answer, with the FAQ entries the question may have meant after it. A request to
    share a contact keeps its own keyboard (Telegram's contact button is a reply keyboard): the
    entries follow it in a message of their own; any other answer with a keyboard of its own keeps
    it alone."""
    if not entries or reply.choices:
        return reply
    if reply.follow_up is FollowUp.SHARE_CONTACT:
        return replace(reply, choices=entries)
    if reply.follow_up is not FollowUp.NONE:
        return reply
    return replace(reply, text=f"{reply.text}\n\n{t('or_one_of_these', language)}", choices=entries)


def _customer_id(customer: Customer | None) -> str | None:
    return None if customer is None else customer_id_of(customer)
