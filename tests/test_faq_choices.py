"""When the matcher will not answer outright, the closest FAQ entries are one tap away."""

from __future__ import annotations

import pytest
from aiogram.methods import SendMessage
from aiogram.types import ReplyKeyboardMarkup

import services.faq.store
from bot.app import App, build_app
from bot.local_chat import LocalChat
from db.models import FaqEntry, InboundMessage, Product
from handlers.keyboards import FaqChoice, HandoffOffer
from services.admin.figures import says_dont_know
from services.faq.choices import (
    BESIDE_A_SERVICE_ABOVE,
    HANDOFF_OFFER_ABOVE,
    OFFER_ABOVE,
    entry_key,
    offered,
    picked_entry,
)
from services.faq.entry import FaqDocument
from services.faq.lookup import FaqLookupAnswerer
from services.faq.matcher import FaqMatch
from services.faq.store import demo_documents
from services.settings import Settings
from services.text.sentences import Language, t
from services.understanding.classifier import Classification, Intent
from services.understanding.entities import Entities
from services.understanding.understand import Route, Understanding
from tests.harness import DEMO_USER_ID, OTHER_USER_ID, SUPPORT_CHAT_ID, Harness, buttons

UNSURE_PAYMENT_QUESTION = "can I split the payment?"
"""Covered by the demo FAQ's payment entry, which the matcher ranks first without being sure."""


def _entry(slug: str, language: str = "en") -> FaqDocument:
    [document] = [d for d in demo_documents() if d.slug == slug and d.language == language]
    return document


async def _row_of(harness: Harness, update_id: int) -> InboundMessage:
    [row] = [r for r in await harness.rows(InboundMessage) if r.update_id == update_id]
    return row


async def test_an_unsure_question_offers_the_closest_entries_and_a_tap_answers(harness: Harness) -> None:
    question = harness.updates.text(OTHER_USER_ID, UNSURE_PAYMENT_QUESTION)
    [reply] = [c for c in await harness.feed(question) if isinstance(c, SendMessage)]
    assert reply.text == t("faq_no_match_choices", Language.EN)
    offered_buttons = buttons(reply)
    payment = _entry("payment-methods")
    assert offered_buttons[0][0] == payment.question  # the closest first, labelled with its question
    assert 2 <= len(offered_buttons) <= 4  # at most three entries, then a person
    assert all(label for label, _ in offered_buttons)
    assert offered_buttons[-1] == (
        "🙋 " + t("human_button", Language.EN),
        HandoffOffer(language=Language.EN).pack(),
    )
    logged = await _row_of(harness, question.update_id)
    assert logged.entities is not None and logged.entities["faq"]["answered"] is False
    assert logged.entities["faq"]["offered"][0] == "payment-methods"  # the admin sees what was offered

    tap = harness.updates.callback(OTHER_USER_ID, offered_buttons[0][1])
    answers = [c.text for c in await harness.feed(tap) if isinstance(c, SendMessage)]
    assert answers == [payment.answer]  # the shop's own words, nothing else
    picked = await _row_of(harness, tap.update_id)
    assert (picked.route, picked.answer_source) == ("faq_choice", "faq")
    assert picked.entities is not None and picked.entities["faq"]["slug"] == "payment-methods"


async def test_a_tap_answers_in_the_language_the_choices_were_offered_in(harness: Harness) -> None:
    tap = FaqChoice(entry=entry_key("payment-methods"), language=Language.KO).pack()
    answers = [
        c.text
        for c in await harness.feed(harness.updates.callback(OTHER_USER_ID, tap))
        if isinstance(c, SendMessage)
    ]
    assert answers == [_entry("payment-methods", Language.KO).answer]


async def test_a_question_far_from_every_entry_gets_the_plain_honest_answer(harness: Harness) -> None:
    [reply] = [
        c
        for c in await harness.feed(harness.updates.text(OTHER_USER_ID, "What is the capital of France?"))
        if isinstance(c, SendMessage)
    ]
    assert reply.text == t("faq_no_match", Language.EN)
    assert buttons(reply) == [
        ("🙋 " + t("human_button", Language.EN), HandoffOffer(language=Language.EN).pack())
    ]


async def test_an_entry_removed_since_the_choices_were_shown_is_not_answered(harness: Harness) -> None:
    stale = FaqChoice(entry=entry_key("a-retired-entry"), language=Language.EN).pack()
    update = harness.updates.callback(OTHER_USER_ID, stale)
    [reply] = [c for c in await harness.feed(update) if isinstance(c, SendMessage)]
    assert reply.text == t("faq_choice_gone", Language.EN)
    assert buttons(reply) == [
        ("🙋 " + t("human_button", Language.EN), HandoffOffer(language=Language.EN).pack())
    ]
    assert (await _row_of(harness, update.update_id)).route == "faq_choice:gone"


async def test_an_unclear_message_lists_likely_entries_before_the_clarify_buttons(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "can I reach your team on Saturday?"))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text == t("clarify", Language.EN)
    labels = [label for label, _ in buttons(reply)]
    clarify = [t(f"clarify_button_{c}", Language.EN) for c in ("order", "stock", "return", "other")]
    assert labels[-4:] == clarify
    assert labels[0] == _entry("opening-hours").question


async def test_a_delivery_question_naming_no_order_gets_the_order_question_and_the_entries(
    harness: Harness,
) -> None:
    dispatch = _entry("same-day-dispatch", Language.JA)
    # "about delivery": an order to look up or a policy to read; "送料無料になる金額は？" (free shipping
    # from how much?) was this test's question until a question about what delivery costs became one
    # for the shop alone (its entries, no order question: test_understanding)
    question = harness.updates.text(OTHER_USER_ID, "配送について")
    [reply] = [c for c in await harness.feed(question) if isinstance(c, SendMessage)]
    assert reply.text == harness.said("order_number_or_entries", Language.JA)
    offered_buttons = buttons(reply)
    assert offered_buttons[0] == (
        dispatch.question,
        FaqChoice(entry=entry_key("same-day-dispatch"), language=Language.JA).pack(),
    )
    logged = await _row_of(harness, question.update_id)
    assert logged.route == "shipping"
    assert logged.entities is not None and logged.entities["faq"]["offered"][0] == "same-day-dispatch"
    tap = harness.updates.callback(OTHER_USER_ID, offered_buttons[0][1])
    assert [c.text for c in await harness.feed(tap) if isinstance(c, SendMessage)] == [dispatch.answer]


async def test_a_linked_customer_gets_their_orders_and_entries_only_when_no_order_of_theirs_is_named(
    harness: Harness,
) -> None:
    """The demo customer is linked, so the orders service lists their orders (no keyboard of its
    own): the entries follow a delivery question, never a question about their own order."""
    [tracking] = [
        c
        for c in await harness.feed(harness.updates.text(DEMO_USER_ID, "where is my order? nothing came"))
        if isinstance(c, SendMessage)
    ]
    assert "20240115-001234" in tracking.text and t("or_one_of_these", Language.EN) not in tracking.text
    assert not any(data.startswith("fq:") for _, data in buttons(tracking))
    [policy] = [
        c
        for c in await harness.feed(harness.updates.text(DEMO_USER_ID, "配送について"))
        if isinstance(c, SendMessage)
    ]
    assert "20240115-001234" in policy.text and policy.text.endswith(t("or_one_of_these", Language.JA))
    assert (
        buttons(policy)[0][1] == FaqChoice(entry=entry_key("same-day-dispatch"), language=Language.JA).pack()
    )


async def test_the_json_chat_lists_the_offered_entries(app: App) -> None:
    chat = LocalChat(app, user_id=OTHER_USER_ID)
    [unsure] = await chat.send_json(UNSURE_PAYMENT_QUESTION)
    assert unsure["faq"] is None and unsure["offered"][0] == "payment-methods"
    [picked] = await chat.send_json("1")  # the first button
    assert picked["faq"] == "payment-methods" and picked["route"] == "faq_choice" and picked["turn"] == 2
    [answered] = await chat.send_json("What payment methods do you accept?")
    assert answered["faq"] == "payment-methods" and answered["offered"] == []
    # The matcher's own probability beside the intent's confidence: sure of one, unsure of the other.
    assert OFFER_ABOVE <= unsure["faq_confidence"] < answered["faq_confidence"] <= 1
    [typed] = await chat.send_json("1")  # the last reply had no buttons: text, not a press
    assert typed["route"] != "faq_choice" and typed["turn"] == 4


def _understanding(
    route: Route, confidence: float, *, answered: bool = False, entities: Entities | None = None
) -> Understanding:
    document = _entry("receipts")
    match = FaqMatch(
        "receipts",
        document,
        confidence,
        answered,
        "payment-methods",
        alternatives=("receipts", "payment-methods"),
    )
    return Understanding(Classification(Intent.FAQ, 0.9, entities or Entities()), match, route, Intent.FAQ)


def test_choices_only_where_the_bot_has_no_answer_of_its_own() -> None:
    likely = OFFER_ABOVE + 0.2
    text = "do I need the receipt"
    assert offered(_understanding(Route.NO_ENTRY, likely), text) == ("receipts", "payment-methods")
    assert offered(_understanding(Route.CLARIFY, likely), text) == ("receipts", "payment-methods")
    assert offered(_understanding(Route.NO_ENTRY, OFFER_ABOVE - 0.05), text) == ()  # nothing likely enough
    assert offered(_understanding(Route.FAQ_ENTRY, 0.95, answered=True), text) == ()  # answered outright
    # The orders service answers a linked customer's question about their own order alone; one it
    # cannot answer yet (a customer not linked: it asks who they are) gets the entries after it,
    # above their own bar; a message naming an order asks about that order.
    linked = {"known_customer": True}
    assert offered(_understanding(Route.ORDERS, likely), "where is my order?", **linked) == ()
    assert offered(_understanding(Route.ORDERS, likely), "my parcel has not arrived", **linked) == ()
    beside = BESIDE_A_SERVICE_ABOVE + 0.05
    expected = ("receipts", "payment-methods")
    assert offered(_understanding(Route.ORDERS, beside), "where is my order?") == expected
    assert offered(_understanding(Route.ORDERS, BESIDE_A_SERVICE_ABOVE - 0.01), "where is my order?") == ()
    numbered = Entities(order_numbers=("20240115-001234",))
    assert offered(_understanding(Route.ORDERS, beside, entities=numbered), "where is 20240115-001234?") == ()
    # A request for a person is handed over, linked or not, with the entries after it when the
    # message also asks something (its own, higher bar: a bare request scores low but not nothing).
    asking = HANDOFF_OFFER_ABOVE + 0.05
    hours = "what are your hours? nobody answered"
    assert offered(_understanding(Route.HANDOFF, asking), hours, **linked) == expected
    assert offered(_understanding(Route.HANDOFF, HANDOFF_OFFER_ABOVE - 0.01), "a person please") == ()
    assert offered(_understanding(Route.ORDERS, likely), "free shipping over how much?") == (
        "receipts",
        "payment-methods",
    )
    # The stock service answers about a product it knows; a guess naming none gets the entries too.
    named = Entities(products=("SKU-1204",))
    assert offered(_understanding(Route.STOCK, likely, entities=named), "is the tote bag in stock?") == ()
    assert offered(_understanding(Route.STOCK, likely), "ski gear for a day, how much?") == (
        "receipts",
        "payment-methods",
    )
    # The returns service: a policy question gets the entries, a request to file one its flow.
    policy = "is there a fee for returning something?"
    assert offered(_understanding(Route.RETURNS, likely), policy) == ("receipts", "payment-methods")
    assert offered(_understanding(Route.RETURNS, likely), "I want to return my order", **linked) == ()
    assert offered(_understanding(Route.RETURNS, likely), "where is my refund?", **linked) == ()
    assert offered(_understanding(Route.RETURNS, beside), "where is my refund?") == expected


async def test_a_returns_policy_question_no_entry_answers_offers_entries_then_a_return(
    harness: Harness,
) -> None:
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "do returns cost anything?"))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text == t("faq_no_match_choices", Language.EN)
    labels = [label for label, _ in buttons(reply)]
    assert labels[0] == _entry("return-method").question
    assert labels[-2:] == [t("return_start_button", Language.EN), "🙋 " + t("human_button", Language.EN)]


async def test_the_person_button_answers_in_the_language_of_the_reply_it_sat_on(harness: Harness) -> None:
    """A button press has no text: the hand-off used the Telegram app's language (Korean here) for an
    English conversation."""
    question = harness.updates.text(OTHER_USER_ID, "What is the capital of France?")  # app language: ko
    [reply] = [c for c in await harness.feed(question) if isinstance(c, SendMessage)]
    [(_, person)] = buttons(reply)
    pressed = await harness.feed(harness.updates.callback(OTHER_USER_ID, person))
    to_customer = [c.text for c in pressed if isinstance(c, SendMessage) and c.chat_id == OTHER_USER_ID]
    assert to_customer == [t("handoff_started", Language.EN)]


def test_a_long_slug_still_fits_telegram_s_callback_data() -> None:
    slug = "how-do-i-change-the-delivery-address-after-the-order-has-been-dispatched-" * 3
    lookup = FaqLookupAnswerer(
        [FaqDocument(slug, Language.EN, "Change the address?", "Write to us."), _entry("receipts")]
    )
    packed = FaqChoice(entry=entry_key(slug), language=Language.JA).pack()
    assert len(packed.encode("utf-8")) <= 64
    chosen = picked_entry(lookup, FaqChoice.unpack(packed).entry, Language.JA)
    assert chosen is not None and chosen.slug == slug  # no Japanese row: the English one
    assert entry_key(slug) != entry_key("receipts")


def test_the_unsure_reply_counts_as_no_answer_in_the_arm_figures() -> None:
    """A canary arm that offers choices more often must not look as if it answered more."""
    for language in (Language.EN, Language.KO, Language.JA):
        assert says_dont_know(t("faq_no_match_choices", language))


async def test_a_shop_with_a_higher_bar_offers_what_the_fitted_bar_answers(settings: Settings) -> None:
    """CSBOT_FAQ_MIN_CONFIDENCE reaches the running bot: the same question is answered by
    default and offered as a choice under a bar of 0.99."""
    asked = "if I order today when will it get here"
    dispatch = _entry("same-day-dispatch")
    updates = None  # one sequence of update ids for both apps: the second is no redelivery of the first
    for bar, answered in ((None, True), (0.99, False)):
        app = await build_app(
            settings.model_copy(update={"faq_min_confidence": bar}), upgrade=False, seed=True
        )
        try:
            harness = Harness(app, updates)
            updates = harness.updates
            sent = [
                c
                for c in await harness.feed(harness.updates.text(OTHER_USER_ID, asked))
                if isinstance(c, SendMessage)
            ]
            texts = [c.text for c in sent]
            if answered:
                assert dispatch.answer in texts, texts
            else:
                assert texts == [t("faq_no_match_choices", Language.EN)]
                assert buttons(sent[0])[0][0] == dispatch.question
        finally:
            await app.close()


async def test_a_product_found_by_its_code_gets_its_stock_line_then_the_entries_asked_about(
    harness: Harness,
) -> None:
    """A product added after start is in no name index: the stock service finds it by the code in
    the text, and the entry for the rest of the question follows its stock line (`csbot eval` counts
    it one tap away: it judges the message whole)."""
    async with harness.app.session_factory() as session:
        session.add(Product(sku="LAMP-30X", name="Trail Lamp", name_en="Trail Lamp", price=39000, stock=4))
        await session.commit()
    question = "do you have LAMP-30X in stock, and do you ship to Jeju?"
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, question))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text.startswith("Trail Lamp"), reply.text
    # "do you ship to Jeju?" alone is answered outright by the dispatch entry
    # (services.understanding.second_question):
    # its answer follows the stock line instead of its button
    assert reply.text.endswith("\n\n" + _entry("same-day-dispatch").answer), reply.text
    labels = [label for label, data in buttons(reply) if data.startswith(FaqChoice.__prefix__)]
    assert labels == []


async def test_a_tapped_entry_learns_the_question_and_answers_it_outright_next_time(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A customer who taps an offered entry has said it answers their question: the question becomes
    one of the entry's examples, and the next customer asking it so is answered with no buttons."""
    question = harness.updates.text(OTHER_USER_ID, UNSURE_PAYMENT_QUESTION)
    [reply] = [c for c in await harness.feed(question) if isinstance(c, SendMessage)]
    assert reply.text == t("faq_no_match_choices", Language.EN)
    [payment_button] = [data for label, data in buttons(reply) if label == _entry("payment-methods").question]
    await harness.feed(harness.updates.callback(OTHER_USER_ID, payment_button))
    [english] = [r for r in await harness.rows(FaqEntry) if (r.slug, r.language) == ("payment-methods", "en")]
    assert english.examples.splitlines()[-1] == UNSURE_PAYMENT_QUESTION
    others = [r for r in await harness.rows(FaqEntry) if r.slug != "payment-methods"]
    assert all(UNSURE_PAYMENT_QUESTION not in r.examples for r in others)

    monkeypatch.setattr(services.faq.store, "CHECK_EVERY_SECONDS", 0.0)  # the next message reloads
    [again] = await harness.say(DEMO_USER_ID, UNSURE_PAYMENT_QUESTION.upper())
    assert again == _entry("payment-methods").answer, "the learnt phrasing is the entry's own now"

    await harness.feed(harness.updates.callback(OTHER_USER_ID, payment_button))  # a second tap
    [english] = [r for r in await harness.rows(FaqEntry) if (r.slug, r.language) == ("payment-methods", "en")]
    assert english.examples.splitlines().count(UNSURE_PAYMENT_QUESTION) == 1, "filed once"


TRACKING_QUESTION = "how can i see where is my parcel now? ordered 2 days ago"
"""An order question from a customer the bot does not know yet: it asks who they are, and the
closest entries may be what was meant (the demo FAQ ranks same-day dispatch first)."""


async def test_a_stranger_asking_after_their_parcel_gets_the_contact_button_then_the_entries(
    harness: Harness,
) -> None:
    question = harness.updates.text(OTHER_USER_ID, TRACKING_QUESTION)
    contact, entries = [c for c in await harness.feed(question) if isinstance(c, SendMessage)]
    assert contact.text == t("need_contact", Language.EN)
    assert isinstance(contact.reply_markup, ReplyKeyboardMarkup)  # Telegram's contact button is its own
    assert contact.reply_markup.keyboard[0][0].request_contact is True
    assert entries.text == t("or_one_of_these", Language.EN)
    offered_buttons = buttons(entries)
    assert offered_buttons[0][0] == _entry("same-day-dispatch").question
    assert 1 <= len(offered_buttons) <= 3  # entries alone: the contact button is a message above
    logged = await _row_of(harness, question.update_id)
    assert logged.entities is not None and logged.entities["faq"]["offered"][0] == "same-day-dispatch"

    tap = harness.updates.callback(OTHER_USER_ID, offered_buttons[0][1])
    answers = [c.text for c in await harness.feed(tap) if isinstance(c, SendMessage)]
    assert answers == [_entry("same-day-dispatch").answer]


async def test_a_linked_customer_asking_after_their_parcel_gets_their_orders_alone(harness: Harness) -> None:
    replies = await harness.feed(harness.updates.text(DEMO_USER_ID, TRACKING_QUESTION))
    [orders] = [c for c in replies if isinstance(c, SendMessage)]
    assert orders.text.startswith(t("recent_orders", Language.EN, lines="").strip())
    assert t("or_one_of_these", Language.EN) not in orders.text
    assert not buttons(orders) or all(
        label != _entry("same-day-dispatch").question for label, _ in buttons(orders)
    )


async def test_a_request_for_a_person_is_handed_over_with_the_entries_it_may_have_meant(
    harness: Harness,
) -> None:
    question = harness.updates.text(OTHER_USER_ID, "상담시간이 어떻게 되나요? 아까 전화했는데 안 받으셔서요")
    calls = await harness.feed(question)
    to_customer = [c for c in calls if isinstance(c, SendMessage) and c.chat_id == OTHER_USER_ID]
    assert any(isinstance(c, SendMessage) and c.chat_id == SUPPORT_CHAT_ID for c in calls)  # handed over
    *_, entries = to_customer
    assert entries.text == t("while_you_wait", Language.KO)
    assert buttons(entries)[0][0] == _entry("opening-hours", "ko").question

    plain = await harness.feed(harness.updates.text(DEMO_USER_ID, "I want to talk to a person"))
    assert t("while_you_wait", Language.EN) not in [c.text for c in plain if isinstance(c, SendMessage)]

    # A tap while waiting answers with the entry, tells staff which, and teaches nothing: filed, the
    # request for a person would be answered with the entry next time instead of reaching anyone.
    hours = _entry("opening-hours", "ko")
    tap = harness.updates.callback(OTHER_USER_ID, buttons(entries)[0][1])
    calls = await harness.feed(tap)
    answered = [c.text for c in calls if isinstance(c, SendMessage) and c.chat_id == OTHER_USER_ID]
    assert answered == [hours.answer]
    [told] = [c for c in calls if isinstance(c, SendMessage) and c.chat_id == SUPPORT_CHAT_ID]
    assert hours.question in told.text
    [row] = [r for r in await harness.rows(FaqEntry) if r.slug == "opening-hours" and r.language == "ko"]
    assert question.message is not None and question.message.text
    assert question.message.text not in (row.examples or "")


async def test_no_one_is_waited_for_when_the_hand_off_could_not_open(settings: Settings) -> None:
    """With no support chat the request is logged for the admins: the entries follow without "while
    you wait"."""
    app = await build_app(settings.model_copy(update={"support_chat_id": None}), upgrade=False, seed=True)
    try:
        harness = Harness(app)
        question = "상담시간이 어떻게 되나요? 아까 전화했는데 안 받으셔서요"
        texts = await harness.say(OTHER_USER_ID, question)
        assert texts[0] == t("handoff_unavailable", Language.KO)
        assert texts[-1] == t("or_one_of_these", Language.KO)
    finally:
        await app.close()
