"""A person, an order, stock, a return's status or a cancellation asked in the middle of the
return form: answered as it would be outside the form, which waits with a button to resume it.
The form used to answer every such message with "Sorry, I didn't catch which one you mean"."""

from __future__ import annotations

import pytest
from aiogram.methods import SendMessage

from db.models import HandoffSession, ReturnRequest
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, Harness, buttons
from tests.test_returns_typed import SHIPPED, TOTE, at_item_step, last_buttons, press, replies, type_


@pytest.mark.parametrize(
    ("text", "answer_has"),
    [
        ("where is my order?", "20240115-001234: shipped"),
        (f"order {SHIPPED} 배송 조회", "6523-1188-4410"),
        ("SKU-7890 재고 있나요?", "SKU-7890"),
        ("注文はいつ届きますか", "発送"),
        ("반품 신청 현황 알려주세요", t("return_none_yet", Language.KO)),
        ("can I cancel order 20240120-000871?", "20240120-000871"),
    ],
)
async def test_another_request_is_answered_and_the_form_resumes_with_one_tap(
    harness: Harness, text: str, answer_has: str
) -> None:
    await at_item_step(harness)
    calls = await type_(harness, text)
    said = replies(calls)
    assert said[0] in {t("return_paused", language) for language in Language}
    assert len(said) >= 2 and answer_has in "\n".join(said[1:]), said
    assert t("return_reprompt_choice", Language.EN) not in said
    paused = next(c for c in calls if isinstance(c, SendMessage) and c.text == said[0])
    [(_, resume), (cancel, _)] = buttons(paused)
    assert cancel in {t("button_cancel", language) for language in Language}
    resumed = await harness.feed(harness.updates.callback(DEMO_USER_ID, resume))
    assert replies(resumed) == [t("return_resumed", Language.EN)]
    labels = [label for label, _ in last_buttons(resumed)]
    assert TOTE in labels  # the item step's own choices, as the form left them
    calls = await press(harness, resumed, TOTE)
    assert replies(calls) == [t("return_choose_reason", Language.EN)]


async def test_a_person_asked_for_in_the_form_is_reached(harness: Harness) -> None:
    await at_item_step(harness)
    for text in ("talk to a person", "/human"):
        calls = await type_(harness, text)
        assert t("return_reprompt_choice", Language.EN) not in replies(calls)
    assert await harness.rows(HandoffSession), "a hand-off was opened"
    calls = await type_(harness, "/bot")
    assert t("return_reprompt_choice", Language.EN) not in replies(calls)


async def test_asking_to_return_again_inside_the_form_says_it_is_open(harness: Harness) -> None:
    await at_item_step(harness)
    calls = await type_(harness, "I want to return an item")
    assert replies(calls) == [t("return_in_progress", Language.EN)]
    assert TOTE in [label for label, _ in last_buttons(calls)]


async def test_answers_to_the_form_stay_answers(harness: Harness) -> None:
    """A choice, a typed reason naming the product, a cancel word: the form's, not an aside."""
    calls = await press(harness, await at_item_step(harness), TOTE)
    calls = await type_(harness, "The canvas tote's strap tore on day two")
    assert replies(calls) == [t("return_choose_kind", Language.EN)]
    calls = await type_(harness, "exchange")
    calls = await type_(harness, "yes")
    [request] = await harness.rows(ReturnRequest)
    assert request.reason == "The canvas tote's strap tore on day two"
