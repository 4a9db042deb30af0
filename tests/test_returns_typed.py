"""Typed answers in the return flow: a customer who types instead of tapping is understood, or
asked again; the form is never dropped for the FAQ's answer to the word they typed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from aiogram.methods import EditMessageText, SendMessage, TelegramMethod

from db.models import ReturnKind, ReturnRequest
from db.types import utcnow
from services.returns.typed_input import Option, Word, pick, read_word
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, Harness, buttons

SHIPPED = "20240115-001234"
TOTE = "Canvas Tote Bag ivory"
SHIRT = "Linen Overshirt M / navy"


def replies(calls: list[TelegramMethod[Any]]) -> list[str]:
    return [c.text for c in calls if isinstance(c, SendMessage | EditMessageText) and c.text is not None]


def last_buttons(calls: list[TelegramMethod[Any]]) -> list[tuple[str, str]]:
    return buttons([c for c in calls if isinstance(c, SendMessage)][-1])


async def type_(harness: Harness, text: str) -> list[TelegramMethod[Any]]:
    return await harness.feed(harness.updates.text(DEMO_USER_ID, text))


async def press(harness: Harness, calls: list[TelegramMethod[Any]], label: str) -> list[TelegramMethod[Any]]:
    data = next(data for shown, data in last_buttons(calls) if shown == label)
    return await harness.feed(harness.updates.callback(DEMO_USER_ID, data))


async def at_item_step(harness: Harness) -> list[TelegramMethod[Any]]:
    calls = await type_(harness, f"I want to return {SHIPPED}")
    assert replies(calls) == [t("return_choose_item", Language.EN, number=SHIPPED)]
    return calls


async def at_confirm_step(harness: Harness) -> list[TelegramMethod[Any]]:
    calls = await press(harness, await at_item_step(harness), TOTE)
    calls = await press(harness, calls, t("reason_size", Language.EN))
    return await press(harness, calls, t("kind_exchange", Language.EN))


@pytest.mark.parametrize(
    "text", [TOTE, "canvas tote bag ivory", "the tote bag please", "Canvas Tote", "ivory"]
)
async def test_the_items_label_typed_picks_it(harness: Harness, text: str) -> None:
    await at_item_step(harness)
    calls = await type_(harness, text)
    assert replies(calls) == [t("return_choose_reason", Language.EN)]
    calls = await press(harness, calls, t("reason_size", Language.EN))
    calls = await press(harness, calls, t("kind_refund", Language.EN))
    assert f"Item {TOTE}" in replies(calls)[-1]


@pytest.mark.parametrize("text", ["cancel", "Cancel please", "stop", "취소", "キャンセル", "never mind"])
async def test_a_cancel_word_at_the_item_step_cancels_the_form(harness: Harness, text: str) -> None:
    await at_item_step(harness)
    calls = await type_(harness, text)
    assert replies(calls) == [t("return_cancelled", Language.EN)]
    # The form is gone: the next message is a question like any other.
    [reply] = await harness.say(DEMO_USER_ID, f"where is my order {SHIPPED}?")
    assert reply != t("return_reprompt_choice", Language.EN)
    assert await harness.rows(ReturnRequest) == []


@pytest.mark.parametrize("text", ["yes", "Y", "ok", "yes please", "네", "예", "응", "はい"])
async def test_a_yes_word_at_confirm_files_the_request(harness: Harness, text: str) -> None:
    await at_confirm_step(harness)
    calls = await type_(harness, text)
    [request] = await harness.rows(ReturnRequest)
    assert replies(calls) == [t("return_created", Language.EN, rma=request.rma_number)]
    assert request.kind == ReturnKind.EXCHANGE and request.reason == t("reason_size", Language.EN)


@pytest.mark.parametrize("text", ["no", "아니요", "いいえ", "cancel", "취소"])
async def test_a_no_or_cancel_word_at_confirm_files_nothing(harness: Harness, text: str) -> None:
    await at_confirm_step(harness)
    calls = await type_(harness, text)
    assert replies(calls) == [t("return_cancelled", Language.EN)]
    assert await harness.rows(ReturnRequest) == []


async def test_anything_else_is_asked_again_and_the_form_goes_on(harness: Harness) -> None:
    await at_item_step(harness)
    calls = await type_(harness, "hmm, I'm not sure")
    assert replies(calls) == [t("return_reprompt_choice", Language.EN)]
    assert [label for label, _ in last_buttons(calls)] == [SHIRT, TOTE, t("button_cancel", Language.EN)]
    calls = await type_(harness, "2")  # the button's number, typed
    assert replies(calls) == [t("return_choose_reason", Language.EN)]
    calls = await type_(harness, "Size or fit")
    assert replies(calls) == [t("return_choose_kind", Language.EN)]
    calls = await type_(harness, "I'd like a refund")
    assert replies(calls)[-1].startswith("Please confirm:")
    calls = await type_(harness, "what?")
    assert replies(calls) == [t("return_reprompt_confirm", Language.EN)]
    assert [label for label, _ in last_buttons(calls)] == [
        t("button_confirm", Language.EN),
        t("button_cancel", Language.EN),
    ]
    await type_(harness, "yes")
    [request] = await harness.rows(ReturnRequest)
    assert (request.kind, request.reason) == (ReturnKind.REFUND, t("reason_size", Language.EN))


async def test_the_korean_form_is_answered_in_korean(harness: Harness) -> None:
    calls = await type_(harness, "/return")
    assert replies(calls) == [t("return_choose_order", Language.KO)]
    calls = await type_(harness, SHIPPED)  # the order's number typed, not tapped
    assert replies(calls) == [t("return_choose_item", Language.KO, number=SHIPPED)]
    calls = await type_(harness, "음 잘 모르겠어요")
    assert replies(calls) == [t("return_reprompt_choice", Language.KO)]
    calls = await type_(harness, "바지")  # no item of the order: asked again, not dropped
    assert replies(calls) == [t("return_reprompt_choice", Language.KO)]
    calls = await type_(harness, "토트백")  # the product's Korean name, though the button shows another
    calls = await type_(harness, "단순 변심")
    calls = await type_(harness, "환불")
    assert replies(calls)[-1].startswith("확인해 주세요:")
    calls = await type_(harness, "네 신청해 주세요")
    [request] = await harness.rows(ReturnRequest)
    assert replies(calls) == [t("return_created", Language.KO, rma=request.rma_number)]
    assert request.reason == t("reason_changed_mind", Language.KO)


async def test_a_typed_reason_is_still_kept_as_written(harness: Harness) -> None:
    calls = await press(harness, await at_item_step(harness), TOTE)
    calls = await type_(harness, "The strap tore on day two")
    assert replies(calls) == [t("return_choose_kind", Language.EN)]
    calls = await type_(harness, "exchange")
    await type_(harness, "ok")
    [request] = await harness.rows(ReturnRequest)
    assert (request.kind, request.reason) == (ReturnKind.EXCHANGE, "The strap tore on day two")


async def test_a_form_left_for_hours_does_not_swallow_a_new_question(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An old form is forgotten by the customer: their next message is a new question."""
    await at_item_step(harness)
    later = utcnow() + timedelta(hours=3)
    monkeypatch.setattr("handlers.flows.return_form.utcnow", lambda: later)
    [reply] = await harness.say(DEMO_USER_ID, "how long does shipping take?")
    assert reply not in {t("return_reprompt_choice", Language.EN), t("return_choose_reason", Language.EN)}


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Yes!", Word.YES),
        ("ok thanks", Word.YES),
        ("네 신청할게요", Word.YES),
        ("はい、お願いします", Word.YES),
        ("No thanks", Word.NO),
        ("아니요 괜찮아요", Word.NO),
        ("いいえ", Word.NO),
        ("cancel it please", Word.CANCEL),
        ("취소해 주세요", Word.CANCEL),
        ("キャンセルします", Word.CANCEL),
        ("예약", None),  # starts like 예 (yes) but is "booking"
        ("yes but the other one", None),
        ("nothing", None),
        ("네?", None),  # "pardon?" filed the request (review)
        ("yes?", None),
        ("はい？", None),
    ],
)
def test_yes_no_and_cancel_words(text: str, word: Word | None) -> None:
    assert read_word(text) == word


def test_an_option_is_picked_only_when_one_fits() -> None:
    bags = [Option("1", ("Canvas Tote Bag ivory",)), Option("2", ("Canvas Tote Bag black",))]
    assert pick("bag", bags) is None  # both
    assert pick("the black one", bags) == bags[1]
    assert pick("CANVAS TOTE BAG IVORY", bags) == bags[0]
    assert pick("3", bags) is None and pick("2", bags) == bags[1]
    assert pick("black", bags, partial=False) is None  # a reason typed in words stays the customer's
