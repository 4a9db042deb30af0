"""An item that arrived damaged gets a return offered with an apology; an unhappy customer gets an
apology first, and a person when they ask nothing else."""

from __future__ import annotations

import pytest
from aiogram.methods import SendMessage

from db.models import HandoffSession, InboundMessage
from services.text.sentences import Language, t
from services.understanding.complaints import Complaint, complaint_in
from tests.harness import DEMO_USER_ID, OTHER_USER_ID, Harness, buttons, texts_to


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("my sweater arrived torn", Complaint.DAMAGED),  # got the sweater's stock line (my probe)
        ("you sent me the wrong size", Complaint.DAMAGED),
        ("the zipper on my parka is broken", Complaint.DAMAGED),
        ("스웨터가 찢어져서 왔어요", Complaint.DAMAGED),
        ("違う商品が届きました", Complaint.DAMAGED),
        ("your service is awful", Complaint.UNHAPPY),  # got "what is this about?" and a menu
        ("서비스 진짜 최악이네요", Complaint.UNHAPPY),
        ("本当にがっかりしました", Complaint.UNHAPPY),
        ("사이즈 M 시켰는데 XL 왔어요", Complaint.DAMAGED),  # got a stock reply (a helper's probe)
        ("ボタンが取れていました", Complaint.DAMAGED),
        ("are you kidding me", Complaint.UNHAPPY),
        ("do you take back broken items?", None),  # a question about the policy, not a report
        ("what happens if my order arrives damaged?", None),
        ("I'm not disappointed at all, thanks!", None),  # was handed to a person (the same probe)
        ("I wasn't disappointed, it's great", None),  # "n't" after a letter: no word boundary before it
        ("불량 없이 잘 받았어요 감사합니다!", None),
        ("最悪の場合、配送に何日かかりますか?", None),
        ("주문했는데 아직 안 왔어요", None),  # not come yet: a delivery question
        ("불량이면 반품 배송비는 누가 내나요?", None),
        ("is the merino sweater itchy?", None),
        ("where is my order?", None),
        # A ninth-session helper's probe: these got no apology and no return offer
        ("the bag strap ripped on day two", Complaint.DAMAGED),
        ("I got a Wool Beanie but I ordered the Canvas Tote Bag", Complaint.DAMAGED),
        ("ウールビーニーが届いたけど、注文したのはトートバッグです", Complaint.DAMAGED),
        ("リネンオーバーシャツ、一回洗ったら縮んだ", Complaint.DAMAGED),  # たら, then what happened
        ("가방 끈이 이틀 만에 떨어졌어요", Complaint.DAMAGED),
        ("洗ったら縮みますか", None),  # a condition: a question about the product
        ("끈이 떨어지면 교환되나요?", None),
        ("I ordered it yesterday but it has not arrived", None),  # a delivery question
    ],
)
def test_what_counts_as_a_complaint(text: str, kind: Complaint | None) -> None:
    assert complaint_in(text) is kind


async def test_a_damaged_item_gets_an_apology_and_a_return_not_the_products_stock(harness: Harness) -> None:
    update = harness.updates.text(DEMO_USER_ID, "my sweater arrived torn")
    [reply] = [c for c in await harness.feed(update) if isinstance(c, SendMessage)]
    assert reply.text == f"{t('sorry_complaint', Language.EN)} {t('damaged_item', Language.EN)}"
    labels = [label for label, _ in buttons(reply)]
    assert t("return_start_button", Language.EN) in labels
    assert any(t("human_button", Language.EN) in label for label in labels)
    [row] = [r for r in await harness.rows(InboundMessage) if r.update_id == update.update_id]
    assert (row.intent, row.route) == ("returns", "returns")


async def test_an_unhappy_customer_who_asks_nothing_else_gets_an_apology_and_a_person(
    harness: Harness,
) -> None:
    texts = await harness.say(OTHER_USER_ID, "서비스 진짜 최악이네요")
    assert texts[0] == t("sorry_complaint", Language.KO)
    assert len(texts) == 2, "the apology, then the hand-off's own message"
    [opened] = await harness.rows(HandoffSession)
    assert (opened.customer_user_id, opened.language) == (OTHER_USER_ID, Language.KO)


async def test_an_unhappy_customer_asking_about_an_entry_is_offered_it_not_handed_off(
    harness: Harness,
) -> None:
    text = (
        "my friend said your service is terrible but I'll give you a try - what payment methods do you take?"
    )
    [reply] = [
        c for c in await harness.feed(harness.updates.text(OTHER_USER_ID, text)) if isinstance(c, SendMessage)
    ]
    assert reply.text.startswith(t("sorry_complaint", Language.EN))
    assert any("payment" in label.lower() for label, _ in buttons(reply)), buttons(reply)
    assert await harness.rows(HandoffSession) == []


async def test_an_unhappy_customer_with_a_question_gets_the_answer_after_an_apology(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "where is my order?? this is ridiculous"))
    [text] = texts_to(calls, DEMO_USER_ID)
    apology = t("sorry_complaint", Language.EN)
    assert text.startswith(apology + " ")
    assert "20240115-001234" in text, "the order is still looked up"
    assert await harness.rows(HandoffSession) == []


async def test_an_angry_refund_demand_gets_an_apology_then_the_return_form(harness: Harness) -> None:
    """A blind probe's "you guys are scammers, I want my money back" got "I'm not sure" and a
    payment-methods button: "scammers" was no complaint word, "I want my money back" no request."""
    calls = await harness.feed(
        harness.updates.text(DEMO_USER_ID, "you guys are scammers, I want my money back")
    )
    texts = texts_to(calls, DEMO_USER_ID)
    assert texts[0] == t("sorry_complaint", Language.EN)
    assert texts[1].startswith(t("return_choose_order", Language.EN)), texts
    assert await harness.rows(HandoffSession) == []


@pytest.mark.parametrize(
    "text", ["머그컵 입구쪽이 이가 나가있어요", "the mug arrived chipped", "マグが欠けていました"]
)
def test_a_chipped_item_is_reported_damaged(text: str) -> None:
    assert complaint_in(text) is Complaint.DAMAGED
