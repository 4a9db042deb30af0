"""The shop's return policy, as configured, is what the returns flow enforces."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from aiogram.methods import EditMessageText, SendMessage

from bot.app import build_app
from db.models import OrderStatus, ReturnRequest
from db.seed import FAQ
from handlers.keyboards import HandoffOffer
from services.settings import Settings
from services.shop.policy import ShopPolicy
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, OTHER_USER_ID, Harness, buttons

OLD_DELIVERED = "20231202-000458"  # delivered about 400 days ago in the demo shop


async def test_the_400_day_old_delivery_is_refused_politely_with_a_person_offered(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "반품하고 싶어요"))
    orders = buttons([c for c in calls if isinstance(c, SendMessage)][-1])
    old = next(data for label, data in orders if label.startswith(OLD_DELIVERED))
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, old))
    [edit] = [c for c in calls if isinstance(c, EditMessageText)]
    assert edit.text is not None and edit.text.startswith(f"죄송해요, 주문 {OLD_DELIVERED}은(는)")
    assert "배송 완료 후 7일" in edit.text
    assert buttons(edit) == [
        ("🙋 " + t("human_button", Language.KO), HandoffOffer(language=Language.KO).pack())
    ]
    assert await harness.rows(ReturnRequest) == []


async def test_naming_the_old_order_is_refused_in_english_too(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, f"I want to return order {OLD_DELIVERED}"))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text.startswith(f"I'm sorry: order {OLD_DELIVERED} was delivered on ")
    assert "within 7 days of delivery" in reply.text
    assert buttons(reply) == [
        ("🙋 " + t("human_button", Language.EN), HandoffOffer(language=Language.EN).pack())
    ]
    assert await harness.rows(ReturnRequest) == []


async def test_an_unshipped_order_is_offered_cancellation_instead(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "I want to return order 20240120-000871"))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert "hasn't shipped yet" in reply.text and "cancelled" in reply.text


@pytest.fixture
async def lenient_harness(settings: Settings) -> AsyncIterator[Harness]:
    """A shop whose window is 500 days: the same old order may be returned."""
    app = await build_app(settings.model_copy(update={"return_window_days": 500}), upgrade=False, seed=True)
    yield Harness(app)
    await app.close()


async def test_the_window_comes_from_configuration(lenient_harness: Harness) -> None:
    calls = await lenient_harness.feed(
        lenient_harness.updates.text(DEMO_USER_ID, f"I want to return order {OLD_DELIVERED}")
    )
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text == t("return_choose_item", Language.EN, number=OLD_DELIVERED)


def test_the_window_ends_at_midnight_where_the_shop_is() -> None:
    policy = ShopPolicy(return_window_days=7, timezone=ZoneInfo("Asia/Seoul"))
    delivered = datetime(2026, 11, 1, 16, 0, tzinfo=UTC)  # 2 Nov 01:00 in Seoul
    assert policy.within_return_window(
        delivered, datetime(2026, 11, 9, 14, 59, tzinfo=UTC)
    )  # 9 Nov 23:59 KST
    assert not policy.within_return_window(
        delivered, datetime(2026, 11, 9, 15, 0, tzinfo=UTC)
    )  # 10 Nov 00:00
    assert policy.within_return_window(None, datetime(2030, 1, 1, tzinfo=UTC))  # not delivered yet


def test_settings_read_the_policy_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CSBOT_RETURN_WINDOW_DAYS", "14")
    monkeypatch.setenv("CSBOT_RETURNABLE_STATUSES", "delivered")
    monkeypatch.setenv("CSBOT_CANCELLABLE_STATUSES", "pending, paid")
    monkeypatch.setenv("CSBOT_SHOP_TIMEZONE", "Asia/Tokyo")
    policy = Settings(_env_file=None).shop_policy()  # type: ignore[call-arg]
    assert policy == ShopPolicy(
        14, (OrderStatus.DELIVERED,), (OrderStatus.PENDING, OrderStatus.PAID), ZoneInfo("Asia/Tokyo")
    )


def test_the_demo_faq_says_what_the_default_policy_enforces() -> None:
    policy = Settings(_env_file=None).shop_policy()  # type: ignore[call-arg]
    answers = {(slug, language): answer for slug, language, _, answer, *_ in FAQ}
    assert re.search(
        rf"\b{policy.return_window_days} days of delivery", answers["return-method", Language.EN]
    )
    assert f"수령 후 {policy.return_window_days}일 이내" in answers["return-method", Language.KO]
    # Cancellation "before dispatch (paid or being prepared)": exactly the cancellable statuses
    # a customer can be in after paying, and never a shipped order.
    assert "(paid or being prepared)" in answers["order-change-cancel", Language.EN]
    assert {OrderStatus.PAID, OrderStatus.PREPARING} <= set(policy.cancellable_statuses)
    assert OrderStatus.SHIPPED not in policy.cancellable_statuses
    assert "can't be cancelled" in answers["order-change-cancel", Language.EN]


PAID, SHIPPED, FOREIGN = "20240120-000871", "20240115-001234", "20240116-009999"


async def test_a_paid_order_can_be_cancelled_a_shipped_one_is_returned_instead(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, f"주문 {PAID} 취소하고 싶어요"))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text == t("cancel_possible", Language.KO, number=PAID, status=t("status_paid", Language.KO))
    assert buttons(reply) == [
        ("🙋 " + t("human_button", Language.KO), HandoffOffer(language=Language.KO).pack())
    ]
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, f"can I cancel order {SHIPPED}?"))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text == t(
        "cancel_not_possible", Language.EN, number=SHIPPED, status=t("status_shipped", Language.EN)
    )
    assert [label for label, _ in buttons(reply)] == [
        t("return_start_button", Language.EN),
        "🙋 " + t("human_button", Language.EN),
    ]


async def test_cancelling_someone_elses_order_reads_like_a_missing_one(harness: Harness) -> None:
    [foreign] = await harness.say(DEMO_USER_ID, f"주문 {FOREIGN} 취소해 주세요")
    [missing] = await harness.say(DEMO_USER_ID, "주문 20240116-000000 취소해 주세요")
    assert (
        foreign
        == missing.replace("20240116-000000", FOREIGN)
        == harness.said("order_not_found", Language.KO, reference=FOREIGN)
    )


@pytest.fixture
async def strict_harness(settings: Settings) -> AsyncIterator[Harness]:
    """A shop that lets only unpaid orders be cancelled."""
    strict = settings.model_copy(update={"cancellable_statuses": (OrderStatus.PENDING,)})
    app = await build_app(strict, upgrade=False, seed=True)
    yield Harness(app)
    await app.close()


async def test_cancellable_statuses_come_from_configuration(strict_harness: Harness) -> None:
    [reply] = await strict_harness.say(DEMO_USER_ID, f"cancel order {PAID}", language_code="en")
    assert reply == t("cancel_not_possible", Language.EN, number=PAID, status=t("status_paid", Language.EN))


async def test_asking_whether_something_can_be_returned_gets_the_policy_and_a_start_button(
    harness: Harness,
) -> None:
    """ "Can I return...?" asks about the policy: the answer, with the return one tap away, not the
    return form started for a question."""
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "can i return the item i bought"))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    [policy] = [
        answer for slug, language, _, answer, *_ in FAQ if (slug, language) == ("return-method", Language.EN)
    ]
    assert reply.text == policy
    assert buttons(reply)[0][0] == t("return_start_button", Language.EN)
    assert await harness.rows(ReturnRequest) == []
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "I want to return my order"))
    [started] = [c for c in calls if isinstance(c, SendMessage)]
    assert started.text == t("return_choose_order", Language.EN)  # a request still starts the form


async def test_the_start_button_opens_the_form_in_the_replys_language_at_the_named_order(
    harness: Harness,
) -> None:
    """The harness's customer has a Korean Telegram app and writes English: the button carries the
    conversation's language, and the order the question named."""
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, f"can I return order {OLD_DELIVERED}?"))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    start = next(data for label, data in buttons(reply) if label == t("return_start_button", Language.EN))
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, start))
    [opened] = [c for c in calls if isinstance(c, SendMessage)]
    assert opened.text.startswith(
        f"I'm sorry: order {OLD_DELIVERED} was delivered on "
    )  # that order, in English


async def test_a_refund_status_question_from_an_unlinked_customer_asks_who_they_are(harness: Harness) -> None:
    """ "where is my refund?" from someone not yet linked, with no entry answering it, got "I don't have
    a reliable answer": sharing their contact is what lets the bot look it up (found by a user probe)."""
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "환불 진행 상태 알려주세요"))
    reply, *entries = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text == t("need_contact", Language.KO)
    # Any entries the question may have meant come after, in a message of their own (the contact
    # button's keyboard is the first message's).
    assert [e.text for e in entries] in ([], [t("or_one_of_these", Language.KO)])


async def test_asking_whether_the_shop_exchanges_is_not_a_request_to_start_one(harness: Harness) -> None:
    """ "사이즈 안 맞으면 교환해 주나요?" (do you exchange if the size is wrong?) read as "교환해 주세요"
    (please exchange it) and asked a stranger to share their contact (found by my own probe)."""
    for asked in ("사이즈 안 맞으면 교환해 주나요?", "불량이면 환불해주나요?"):
        calls = await harness.feed(harness.updates.text(OTHER_USER_ID, asked))
        [reply] = [c for c in calls if isinstance(c, SendMessage)]
        assert reply.text != t("need_contact", Language.KO), asked
        assert t("return_start_button", Language.KO) in [label for label, _ in buttons(reply)], asked
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "사이즈가 안 맞아서 교환해 주세요"))
    [request] = [c for c in calls if isinstance(c, SendMessage)]
    assert request.text == t("need_contact", Language.KO)  # a request from a stranger: who are they?
