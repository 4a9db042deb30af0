"""One open return per item: a second form for the same order line gets the open request's RMA
number, not a second RMA, whichever instance or session files it and however close together."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiogram.methods import EditMessageText, SendMessage, TelegramMethod
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from db import migrate
from db.engine import create_engine
from db.models import Order, ReturnKind, ReturnRequest, ReturnStatus
from services.returns import requests as returns
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, Harness, buttons

SHIPPED = "20240115-001234"
TOTE = "Canvas Tote Bag ivory"


def last_buttons(calls: list[TelegramMethod[Any]]) -> list[tuple[str, str]]:
    return buttons([c for c in calls if isinstance(c, SendMessage)][-1])


def sent(calls: list[TelegramMethod[Any]]) -> list[str]:
    return [c.text for c in calls if isinstance(c, SendMessage | EditMessageText) and c.text is not None]


async def press(harness: Harness, calls: list[TelegramMethod[Any]], label: str) -> list[TelegramMethod[Any]]:
    data = next(data for shown, data in last_buttons(calls) if shown == label)
    return await harness.feed(harness.updates.callback(DEMO_USER_ID, data))


async def to_confirmation(harness: Harness) -> list[TelegramMethod[Any]]:
    """The probe's steps: the shipped order named, the tote bag, size, exchange."""
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, f"I want to return {SHIPPED}"))
    calls = await press(harness, calls, TOTE)
    calls = await press(harness, calls, t("reason_size", Language.EN))
    return await press(harness, calls, t("kind_exchange", Language.EN))


async def test_the_same_item_twice_gets_the_open_requests_number_not_a_second_rma(harness: Harness) -> None:
    calls = await to_confirmation(harness)
    await press(harness, calls, t("button_confirm", Language.EN))
    [first] = await harness.rows(ReturnRequest)
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, f"I want to return {SHIPPED}"))
    calls = await press(harness, calls, TOTE)
    assert sent(calls) == [t("return_item_open", Language.EN, item=TOTE, rma=first.rma_number)]
    assert await harness.rows(ReturnRequest) == [first]
    # The form is over: the other item of the order can still be returned from a new one.
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, f"I want to return {SHIPPED}"))
    calls = await press(harness, calls, "Linen Overshirt M / navy")
    assert sent(calls) == [t("return_choose_reason", Language.EN)]


async def test_a_return_filed_elsewhere_while_the_form_was_open_is_named_at_confirm(harness: Harness) -> None:
    """Another instance (or form) filed the item between the item step and Confirm: the check
    that decides is the one in the same transaction as the insert."""
    calls = await to_confirmation(harness)
    other = await file_directly(harness, "elsewhere")
    calls = await press(harness, calls, t("button_confirm", Language.EN))
    assert sent(calls) == [t("return_item_open", Language.EN, item=TOTE, rma=other.rma_number)]
    assert [r.rma_number for r in await harness.rows(ReturnRequest)] == [other.rma_number]


async def test_concurrent_forms_for_one_item_file_one_request(harness: Harness) -> None:
    order, item_id = await tote_line(harness)
    drafts = [draft(order, item_id, key) for key in ("form-a", "form-b", "form-c")]

    async def file(one: returns.ReturnDraft) -> tuple[ReturnRequest, returns.Filed]:
        async with harness.app.session_factory() as session:
            return await returns.file_return(session, one)

    results = await asyncio.gather(*(file(one) for one in drafts))
    [request] = await harness.rows(ReturnRequest)
    assert sorted(outcome for _, outcome in results) == sorted(
        [returns.Filed.CREATED, returns.Filed.ALREADY_OPEN, returns.Filed.ALREADY_OPEN]
    )
    assert {r.rma_number for r, _ in results} == {request.rma_number}


async def test_the_database_refuses_a_second_open_request_and_allows_one_after_closing(
    harness: Harness,
) -> None:
    """The partial unique index, not only the service's read, holds the rule (any writer)."""
    first = await file_directly(harness, "one")
    with pytest.raises(IntegrityError):
        await file_directly(harness, "two")
    async with harness.app.session_factory() as session:
        row = await session.get(ReturnRequest, first.id)
        assert row is not None
        row.status = ReturnStatus.REFUNDED
        session.add(row)
        await session.commit()
    again = await file_directly(harness, "three")
    assert again.status == ReturnStatus.REQUESTED


async def test_the_migration_keeps_duplicates_filed_before_it(harness: Harness, database_url: str) -> None:
    """A shop that already has two open requests for one item (the old bug) still upgrades:
    the later one is marked as a duplicate, its number and status left as the customer knows them."""
    engine = create_engine(database_url)
    order, item_id = await tote_line(harness)  # read through today's models, before the downgrade
    try:
        async with engine.begin() as connection:
            await connection.run_sync(lambda sync: command.downgrade(migrate.alembic_config(sync), "0008"))
        async with engine.begin() as connection:
            for n in (1, 2):
                await connection.execute(
                    text(
                        "INSERT INTO return_requests (rma_number, idempotency_key, customer_id, order_id,"
                        " order_item_id, kind, reason, status, created_at)"
                        " VALUES (:rma, :key, :customer, :order, :item, 'EXCHANGE', 'size', 'REQUESTED',"
                        " CURRENT_TIMESTAMP)"
                    ),
                    {
                        "rma": f"RMA-OLD-{n}",
                        "key": f"old-{n}",
                        "customer": order.customer_id,
                        "order": order.id,
                        "item": item_id,
                    },
                )
        await migrate.upgrade(engine)
    finally:
        await engine.dispose()
    kept, duplicate = sorted(await harness.rows(ReturnRequest), key=lambda r: r.rma_number)
    assert (kept.duplicate_of, duplicate.duplicate_of) == (None, kept.id)
    assert kept.status == duplicate.status == ReturnStatus.REQUESTED
    async with harness.app.session_factory() as session:
        open_one = await returns.open_return_for_item(session, item_id)
        assert open_one is not None and open_one.rma_number == "RMA-OLD-1"
        # once the first is closed, its still-open twin is the item's open request (review)
        open_one.status = ReturnStatus.REFUNDED
        session.add(open_one)
        await session.commit()
        twin = await returns.open_return_for_item(session, item_id)
    assert twin is not None and twin.rma_number == "RMA-OLD-2"


async def tote_line(harness: Harness) -> tuple[Order, int]:
    [order] = [o for o in await harness.rows(Order) if o.number == SHIPPED]
    assert order.id is not None
    async with harness.app.session_factory() as session:
        from db.repositories import orders

        lines = await orders.order_lines(session, order.id)
    [item_id] = [ln.item.id for ln in lines if ln.product.name == "Canvas Tote Bag"]
    assert item_id is not None
    return order, item_id


def draft(order: Order, item_id: int, key: str) -> returns.ReturnDraft:
    assert order.id is not None
    return returns.ReturnDraft(
        idempotency_key=key,
        customer_id=order.customer_id,
        order_id=order.id,
        order_item_id=item_id,
        reason="size",
        kind=ReturnKind.EXCHANGE,
    )


async def file_directly(harness: Harness, key: str) -> ReturnRequest:
    """An insert that skips the service's check, as another writer might."""
    order, item_id = await tote_line(harness)
    one = draft(order, item_id, key)
    async with harness.app.session_factory() as session:
        request = ReturnRequest(
            rma_number=f"RMA-{key}",
            idempotency_key=key,
            customer_id=one.customer_id,
            order_id=one.order_id,
            order_item_id=one.order_item_id,
            kind=one.kind,
            reason=one.reason,
        )
        session.add(request)
        await session.commit()
        await session.refresh(request)
        return request
