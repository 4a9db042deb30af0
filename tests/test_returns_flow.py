"""The guided return flow files exactly one request, whatever the customer or Telegram repeats."""

from __future__ import annotations

from typing import Any

from aiogram.methods import EditMessageText, SendMessage, TelegramMethod

from db.models import Order, ReturnKind, ReturnRequest
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, OTHER_USER_ID, Harness, buttons


def last_buttons(calls: list[TelegramMethod[Any]]) -> list[tuple[str, str]]:
    return buttons([c for c in calls if isinstance(c, SendMessage)][-1])


async def walk_to_confirmation(harness: Harness) -> tuple[str, list[TelegramMethod[Any]]]:
    """Start a return and answer every step; returns the Confirm button's data."""
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "반품하고 싶어요"))
    orders = last_buttons(calls)
    assert [label.split()[0] for label, _ in orders[:-1]] == ["20240115-001234", "20231202-000458"]
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, orders[0][1]))
    items = last_buttons(calls)
    assert items[0][0] == "Linen Overshirt M / navy"
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, items[0][1]))
    reasons = last_buttons(calls)
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, reasons[0][1]))
    kinds = last_buttons(calls)
    exchange = next(data for label, data in kinds if label == t("kind_exchange", Language.KO))
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, exchange))
    summary = [c for c in calls if isinstance(c, SendMessage)][-1]
    assert "20240115-001234" in summary.text and t("reason_damaged", Language.KO) in summary.text
    confirm = next(data for label, data in buttons(summary) if label == t("button_confirm", Language.KO))
    return confirm, calls


async def test_full_flow_files_one_request_with_an_rma_number(harness: Harness) -> None:
    confirm, _ = await walk_to_confirmation(harness)
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, confirm))
    [request] = await harness.rows(ReturnRequest)
    assert request.kind == ReturnKind.EXCHANGE
    assert request.reason == t("reason_damaged", Language.KO)
    [edit] = [c for c in calls if isinstance(c, EditMessageText)]
    assert edit.text == t("return_created", Language.KO, rma=request.rma_number)


async def test_double_tap_on_confirm_files_once(harness: Harness) -> None:
    confirm, _ = await walk_to_confirmation(harness)
    await harness.feed(harness.updates.callback(DEMO_USER_ID, confirm))
    second = await harness.feed(harness.updates.callback(DEMO_USER_ID, confirm))
    [request] = await harness.rows(ReturnRequest)
    assert [c.text for c in second if isinstance(c, SendMessage)] == [
        t("return_already", Language.KO, rma=request.rma_number)
    ]


async def test_redelivered_update_is_not_handled_twice(harness: Harness) -> None:
    confirm, _ = await walk_to_confirmation(harness)
    update = harness.updates.callback(DEMO_USER_ID, confirm, update_id=987_654)
    first = await harness.feed(update)
    again = await harness.feed(update)
    assert first and again == []
    assert len(await harness.rows(ReturnRequest)) == 1


async def test_concurrent_confirms_file_once(harness: Harness) -> None:
    """Two taps processed at the same time (handle_as_tasks): the unique key decides."""
    import asyncio

    confirm, _ = await walk_to_confirmation(harness)
    await asyncio.gather(
        harness.app.dispatcher.feed_update(harness.bot, harness.updates.callback(DEMO_USER_ID, confirm)),
        harness.app.dispatcher.feed_update(harness.bot, harness.updates.callback(DEMO_USER_ID, confirm)),
    )
    assert len(await harness.rows(ReturnRequest)) == 1


async def test_typed_reason_is_kept(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "I want to return something"))
    # The shipped order: the delivered one is past the return window (tests/test_return_policy.py).
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, last_buttons(calls)[0][1]))
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, last_buttons(calls)[0][1]))
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "The seam came apart after one wash"))
    kinds = last_buttons(calls)
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, kinds[0][1]))
    confirm = last_buttons(calls)[0][1]
    await harness.feed(harness.updates.callback(DEMO_USER_ID, confirm))
    [request] = await harness.rows(ReturnRequest)
    assert request.reason == "The seam came apart after one wash"
    assert request.kind == ReturnKind.REFUND


async def test_cancel_files_nothing(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "/return"))
    cancel = last_buttons(calls)[-1][1]
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, cancel))
    assert [c.text for c in calls if isinstance(c, EditMessageText)] == [t("return_cancelled", Language.KO)]
    assert await harness.rows(ReturnRequest) == []


async def test_tampered_callback_for_someone_elses_order_is_refused(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "/return"))
    first_order = last_buttons(calls)[0][1]
    foreign = next(o for o in await harness.rows(Order) if o.number == "20240116-009999")
    forged = first_order.rsplit(":", 1)[0] + f":{foreign.id}"
    calls = await harness.feed(harness.updates.callback(DEMO_USER_ID, forged))
    assert [c.text for c in calls if isinstance(c, EditMessageText)] == [t("return_expired", Language.KO)]
    assert "Linen" not in str(calls)


async def test_stranger_must_link_before_returning(harness: Harness) -> None:
    reply, *entries = await harness.say(OTHER_USER_ID, "I want to return my order")
    assert reply == t("need_contact", Language.EN)
    assert entries in ([], [t("or_one_of_these", Language.EN)])


async def test_return_status_by_rma(harness: Harness) -> None:
    confirm, _ = await walk_to_confirmation(harness)
    await harness.feed(harness.updates.callback(DEMO_USER_ID, confirm))
    [request] = await harness.rows(ReturnRequest)
    [reply] = await harness.say(DEMO_USER_ID, f"what is the status of {request.rma_number}?")
    assert request.rma_number in reply and t("return_status_requested", Language.EN) in reply
    [reply] = await harness.say(OTHER_USER_ID, f"status of {request.rma_number}")
    assert request.rma_number not in reply


async def test_a_hyphenated_rma_number_is_looked_up_whole(harness: Harness) -> None:
    [reply] = await harness.say(DEMO_USER_ID, "RMA-2024-0001 status")
    assert reply == t("rma_not_found", Language.EN, rma="RMA-2024-0001")


async def test_an_rma_number_typed_with_a_dash_in_it_is_found(harness: Harness) -> None:
    confirm, _ = await walk_to_confirmation(harness)
    await harness.feed(harness.updates.callback(DEMO_USER_ID, confirm))
    [request] = await harness.rows(ReturnRequest)
    digits = request.rma_number.removeprefix("RMA-")
    [reply] = await harness.say(DEMO_USER_ID, f"status of RMA-{digits[:8]}-{digits[8:]}?")
    assert request.rma_number in reply and t("return_status_requested", Language.EN) in reply


async def test_status_with_no_requests_says_none_yet_and_how_to_start_one(harness: Harness) -> None:
    """Not "none of your orders can be returned": the demo customer has two returnable orders."""
    [reply] = await harness.say(DEMO_USER_ID, "what is my RMA status?")
    assert reply == t("return_none_yet", Language.EN)
    [reply] = await harness.say(DEMO_USER_ID, "반품 진행 상황 알려주세요")
    assert reply == t("return_none_yet", Language.KO)
