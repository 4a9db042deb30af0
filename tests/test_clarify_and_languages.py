"""A clarifying question with buttons instead of a guess; Japanese replies; the JSON chat."""

from __future__ import annotations

from aiogram.methods import SendMessage

from bot.app import App, build_app
from bot.local_chat import LocalChat
from db.models import InboundMessage
from handlers.keyboards import Clarification
from services.settings import Settings
from services.text.sentences import Language, t
from tests.harness import OTHER_USER_ID, Harness, buttons


async def test_an_unclear_message_asks_with_buttons_and_each_button_answers(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "still nothing"))
    [message] = [c for c in calls if isinstance(c, SendMessage)]
    assert message.text == t("clarify", Language.EN)
    labels = [label for label, _ in buttons(message)]  # after the closest FAQ entries, if any is likely
    assert labels[-4:] == [
        t(f"clarify_button_{c}", Language.EN) for c in ("order", "stock", "return", "other")
    ]

    stock = Clarification(choice="stock", language=Language.EN).pack()
    assert await _texts(harness, stock) == [t("which_product", Language.EN)]
    order = Clarification(choice="order", language=Language.EN).pack()
    assert await _texts(harness, order) == [t("need_contact", Language.EN)]  # a stranger sees no orders
    other = Clarification(choice="other", language=Language.EN).pack()
    assert await _texts(harness, other) == [t("clarify_other", Language.EN)]


async def test_a_choice_no_button_offers_is_answered_as_other(harness: Harness) -> None:
    """An old or forged button's choice gets the "something else" answer, logged as such."""
    unknown = Clarification(choice="warranty", language=Language.EN).pack()
    assert await _texts(harness, unknown) == [t("clarify_other", Language.EN)]
    [row] = await harness.rows(InboundMessage)
    assert row.route == "clarify:other"


async def test_a_shop_with_no_products_asks_without_a_stock_button(settings: Settings) -> None:
    """A shop that imported only its FAQ: "Stock" could only lead to "I can't check stock here"."""
    app = await build_app(settings, upgrade=False, seed=False)
    try:
        harness = Harness(app)
        calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "still nothing"))
        [message] = [c for c in calls if isinstance(c, SendMessage)]
        assert message.text == t("clarify", Language.EN)
        labels = [label for label, _ in buttons(message)]
        assert labels == [t(f"clarify_button_{c}", Language.EN) for c in ("order", "return", "other")]
    finally:
        await app.close()


async def _texts(harness: Harness, data: str) -> list[str]:
    calls = await harness.feed(harness.updates.callback(OTHER_USER_ID, data))
    return [c.text for c in calls if isinstance(c, SendMessage)]


async def test_japanese_customers_get_japanese_replies(harness: Harness) -> None:
    contact, *entries = await harness.say(OTHER_USER_ID, "返品したいです")
    assert contact == t("need_contact", Language.JA)
    assert entries in ([], [t("or_one_of_these", Language.JA)])  # the entries it may have meant, after
    [answer] = await harness.say(OTHER_USER_ID, "支払い方法は何がありますか")
    assert answer.startswith("韓国のクレジットカード")
    assert await harness.say(OTHER_USER_ID, "海外発送はできますか") != []


async def test_json_chat_reports_what_the_bot_made_of_each_message(app: App) -> None:
    chat = LocalChat(app, user_id=OTHER_USER_ID)
    [faq] = await chat.send_json("What payment methods do you accept?")
    assert faq["turn"] == 1 and faq["faq"] == "payment-methods" and faq["source"] == "faq"
    assert faq["intent"] == "faq" and faq["route"] == "faq" and faq["confidence"] > 0.5
    assert faq["text"].startswith("We accept Korean credit and debit cards")
    [stock] = await chat.send_json("SKU-7890 재고 있나요?")
    assert (stock["turn"], stock["intent"], stock["source"], stock["faq"]) == (2, "stock", "database", None)
    [unknown] = await chat.send_json("Do you ship internationally?")
    assert unknown["faq"] is None and unknown["turn"] == 3
