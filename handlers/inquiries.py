"""Free-text customer messages: classify, answer from the right service, offer the next step."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from sqlmodel.ext.asyncio.session import AsyncSession

from handlers.context import (
    button_language,
    conversation_language,
    linked_customer,
    release_connection,
    say,
)
from handlers.flows.handoff import start_handoff
from handlers.flows.return_form import start_return_flow
from handlers.keyboards import (
    Clarification,
    FaqChoice,
    choices,
    person_choice,
    share_contact_keyboard,
    start_return_choice,
)
from handlers.streaming import GenerationRegistry, ReplyStreamer
from services.admin.conversation_log import Interaction, as_notice
from services.answerers import refresh_catalogue
from services.catalogue.memory import (
    LAST_PRODUCTS,
    forgets_remembered_products,
    named_products,
    names_something_else,
    needs_remembered_products,
    with_remembered_products,
)
from services.faq.choices import entry_key
from services.faq.entry import FaqDocument
from services.inquiry import Inquiry, after_an_apology, answer_inquiry
from services.llm.speculative import FaqReplies, Step
from services.orders.shipping import answer_orders
from services.replies import AnswerSource, FollowUp, Reply, ReplyRoute, no_answer
from services.settings import Settings
from services.shop.sources.factory import shop_data
from services.shop.sources.local import customer_id_of
from services.text.sentences import Language, t
from services.text.split import TELEGRAM_LIMIT
from services.understanding.classifier import IntentClassifier
from services.understanding.entities import Entities
from services.understanding.understand import Understanding, understand

CLARIFY_CHOICES = ("order", "stock", "return", "other")


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
        faq: FaqReplies,
        generations: GenerationRegistry,
        interaction: Interaction,
    ) -> None:
        text = message.text or ""
        user_id = message.from_user.id if message.from_user else None
        language = await conversation_language(session, message)
        if not text.strip():
            interaction.routed(ReplyRoute.BAD_INPUT, AnswerSource.TEMPLATE)
            await say(message, t("empty_text", language))
            return
        if len(text) > TELEGRAM_LIMIT:
            with as_notice():  # not the answer: a try that ends before the answer still owes it
                await say(message, t("too_long", language, limit=TELEGRAM_LIMIT))
        if settings.shop_api_url is None:
            await refresh_catalogue(session, classifier, settings.catalogue_refresh_seconds)
        lookup = faq.lookup
        if lookup.refresher is not None:
            await lookup.refresher.refresh(session)
        understanding = await _in_context(understand(text, language, classifier, lookup), state, classifier)
        _log_understanding(interaction, understanding)
        interaction.entities["language"] = language  # the console filters conversations by it
        classification = understanding.classification
        customer = await linked_customer(session, message.from_user)
        inquiry = Inquiry(
            text=text,
            language=language,
            understanding=understanding,
            customer=customer,
            user_id=user_id,
            shop=shop_data(session, settings),
            faq=faq,
            policy=settings.shop_policy(),
            low_stock_threshold=settings.low_stock_threshold,
            catalogue_empty=classifier.catalogue_empty,
            order_example=classifier.order_codes.example(),
        )
        answer = await answer_inquiry(session, inquiry)
        reply = after_an_apology(answer, understanding, language)
        interaction.answered(reply)
        named_order = next(iter(classification.entities.order_numbers), None)
        if reply.preface:
            await say(message, reply.preface)
        if reply.stream is not None:
            # The facts are read: give the pooled connection back before the model talks.
            await release_connection(session)
            await _stream_reply(
                message, bot, reply, language, generations, interaction, settings, named_order
            )
            return
        match reply.follow_up:
            case FollowUp.HAND_OFF:
                opened = await start_handoff(message, bot, session, settings, interaction)
                waiting = "while_you_wait" if opened else "or_one_of_these"
                await _entries_after(message, interaction, reply.choices, language, waiting)
            case FollowUp.START_RETURN:
                assert message.from_user is not None
                await start_return_flow(
                    message, message.from_user, session, state, language, settings, named_order
                )
            case FollowUp.SHARE_CONTACT:
                await say(message, reply.text, reply_markup=share_contact_keyboard(language))
                await _entries_after(message, interaction, reply.choices, language, "or_one_of_these")
            case _:
                _log_offered(interaction, reply.choices)
                markup = _offer(
                    reply.follow_up,
                    language,
                    reply.choices,
                    named_order,
                    stock=not classifier.catalogue_empty,
                )
                await say(message, reply.text, reply_markup=markup)

    @router.callback_query(Clarification.filter())
    async def on_clarified(
        query: CallbackQuery,
        callback_data: Clarification,
        bot: Bot,
        session: AsyncSession,
        state: FSMContext,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        """The customer told us what their unclear message was about."""
        await query.answer()
        message = query.message
        if not isinstance(message, Message) or query.from_user is None:
            return
        language = button_language(callback_data.language) or Language.EN
        interaction.routed(ReplyRoute.clarified(callback_data.choice), AnswerSource.TEMPLATE)
        match callback_data.choice:
            case "order":
                customer = await linked_customer(session, query.from_user)
                customer_id = customer_id_of(customer) if customer is not None else None
                reply = await answer_orders(
                    shop_data(session, settings), customer_id, Entities(), language, settings.shop_policy()
                )
                interaction.answered(reply)
                markup = (
                    share_contact_keyboard(language) if reply.follow_up == FollowUp.SHARE_CONTACT else None
                )
                await say(message, reply.text, reply_markup=markup)
            case "stock":
                await say(message, t("which_product", language))
            case "return":
                await start_return_flow(message, query.from_user, session, state, language, settings)
            case _:
                await say(
                    message,
                    t("clarify_other", language),
                    reply_markup=_offer(FollowUp.OFFER_HAND_OFF, language),
                )

    return router


async def _in_context(
    understanding: Understanding, state: FSMContext, classifier: IntentClassifier
) -> Understanding:
    """The message read with the chat's last named products, which it updates (one FSM read only
    for a stock question that names no product, one write only for a message that names some, or
    names another thing: then they are forgotten)."""
    entities = understanding.classification.entities
    named = named_products(entities)
    if named:
        await state.update_data({LAST_PRODUCTS: list(named)})
        return understanding
    if forgets_remembered_products(understanding):
        await state.update_data({LAST_PRODUCTS: []})
        return understanding
    if not needs_remembered_products(understanding):
        return understanding
    remembered = [str(sku) for sku in (await state.get_data()).get(LAST_PRODUCTS) or []]
    if remembered and names_something_else(entities, remembered, classifier.product_names):
        await state.update_data({LAST_PRODUCTS: []})
        return understanding
    return with_remembered_products(understanding, remembered)


def _log_understanding(interaction: Interaction, understanding: Understanding) -> None:
    """Intent, confidence and the FAQ evidence go to the admin log (and `csbot chat --json`)."""
    interaction.classified(understanding.classification)
    interaction.intent = understanding.intent.value
    match = understanding.faq
    interaction.entities["route"] = understanding.route.value
    if match is not None:
        interaction.entities["faq"] = {
            "slug": match.slug,
            "answered": understanding.entry is not None,
            "confidence": match.confidence,
            "runner_up": match.runner_up,
            **match.evidence,
        }


def _log_offered(interaction: Interaction, entries: tuple[FaqDocument, ...]) -> None:
    """The admin log (and `csbot chat --json`) lists the entries offered as buttons."""
    if entries and isinstance(interaction.entities.get("faq"), dict):
        interaction.entities["faq"]["offered"] = [entry.slug for entry in entries]


async def _entries_after(
    message: Message,
    interaction: Interaction,
    entries: tuple[FaqDocument, ...],
    language: Language,
    text_key: str,
) -> None:
    """The FAQ entries offered in a message of their own after a reply whose keyboard is another's
    (the contact button) or that hands over to a person."""
    if not entries:
        return
    _log_offered(interaction, entries)
    await say(message, t(text_key, language), reply_markup=choices(_faq_choices(entries, language)))


def _offer(
    follow_up: FollowUp,
    language: Language,
    entries: tuple[FaqDocument, ...] = (),
    order: str | None = None,
    *,
    stock: bool = True,
) -> InlineKeyboardMarkup | None:
    """The buttons that go with a reply, if any: the FAQ entries offered (`entries`) first. `order`:
    the order the message named, where the return form should open. `stock`: the shop has products
    to ask about; a shop that imported only its FAQ gets no "Stock" button it could never answer."""
    rows = _faq_choices(entries, language)
    if follow_up == FollowUp.OFFER_RETURN:
        # The person button as on every reply the bot is not sure of: a return is one way out, not
        # the only one (the unsure text points to a person).
        return choices([*rows, start_return_choice(language, order), person_choice(language)])
    if follow_up == FollowUp.OFFER_HAND_OFF:
        return choices([*rows, person_choice(language)])
    if follow_up == FollowUp.CLARIFY:
        return choices(
            rows
            + [
                (
                    t(f"clarify_button_{choice}", language),
                    Clarification(choice=choice, language=language).pack(),
                )
                for choice in CLARIFY_CHOICES
                if stock or choice != "stock"
            ]
        )
    return choices(rows) if rows else None


BUTTON_LABEL_CHARS = 60
"""Telegram shows about this much of a button's text on a phone; the rest is cut with an ellipsis."""


def _faq_choices(entries: tuple[FaqDocument, ...], language: Language) -> list[tuple[str, str]]:
    """One button per offered FAQ entry, labelled with its question."""
    return [
        (_button_label(entry.question), FaqChoice(entry=entry_key(entry.slug), language=language).pack())
        for entry in entries
    ]


def _button_label(question: str) -> str:
    question = " ".join(question.split())
    return question if len(question) <= BUTTON_LABEL_CHARS else question[: BUTTON_LABEL_CHARS - 1] + "…"


async def _stream_reply(
    message: Message,
    bot: Bot,
    reply: Reply,
    language: Language,
    generations: GenerationRegistry,
    interaction: Interaction,
    settings: Settings,
    named_order: str | None,
) -> None:
    """Stream a verified answer; when nothing verified came out, say so and offer a person."""
    assert reply.stream is not None
    streamer = ReplyStreamer(bot, message.chat.id, registry=generations)
    committed = await streamer.stream(
        reply.stream,
        reply_markup=_offer(reply.follow_up, language, order=named_order),
        label=settings.generated_label,
    )
    report = reply.stream.report
    interaction.answered_stream(committed, report)
    interaction.routed(
        reply.route or ReplyRoute.FAQ,
        AnswerSource.FAQ if report.mode.step is Step.RETRIEVAL else f"{AnswerSource.LLM}:{report.mode.label}",
    )
    if not committed.strip():
        _log_offered(interaction, reply.choices)
        unsure = no_answer(language, reply.choices)
        await say(message, unsure.text, reply_markup=_offer(unsure.follow_up, language, unsure.choices))
