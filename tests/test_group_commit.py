"""Group commit of inbox writes: what queues behind one write is committed together, and each
caller still gets exactly its own outcome."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from sqlalchemy.exc import OperationalError
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.app import App
from db.group_commit import GroupCommit
from db.models import InboundMessage, InboundStatus
from services.inbox import Arrival, Receipt, Stored
from tests.harness import Harness

BOT_ID = 42
_update_ids = itertools.count(5_000)


def _arrival(chat_id: int, update_id: int | None = None) -> Arrival:
    update_id = next(_update_ids) if update_id is None else update_id
    return Arrival(BOT_ID, update_id, chat_id, chat_id, "text", f"question {update_id}", "{}")


async def _stored_rows(app: App) -> list[InboundMessage]:
    harness = Harness(app)
    return await harness.rows(InboundMessage)


async def test_updates_arriving_together_share_a_commit_and_each_gets_its_own_row(app: App) -> None:
    arrivals = [_arrival(chat_id) for chat_id in range(1, 31)]
    stored = await asyncio.gather(*(app.inbox.receive_checked(a) for a in arrivals))
    ids = [s.receipt.id for s in stored if isinstance(s.receipt, InboundMessage)]
    assert len(set(ids)) == 30  # every caller got a row, its own
    assert app.inbox.group.batches >= 1  # the ones that queued behind the first went in together
    rows = {row.update_id: row for row in await _stored_rows(app)}
    for arrival, result in zip(arrivals, stored, strict=True):
        assert isinstance(result.receipt, InboundMessage)
        assert rows[arrival.update_id].id == result.receipt.id
        assert rows[arrival.update_id].attempts == 1  # claimed for its caller, as a lone write is


async def test_a_redelivered_update_in_a_batch_is_refused_alone(app: App) -> None:
    """Telegram delivering an update again fails that write's unique key: the batch is written one
    by one, so the others are stored and only the re-delivery is told it is a duplicate."""
    again = _arrival(900)
    assert isinstance((await app.inbox.receive_checked(again)).receipt, InboundMessage)
    fresh = [_arrival(chat_id) for chat_id in range(901, 911)]
    results = await asyncio.gather(
        app.inbox.receive_checked(_arrival(899)),  # runs alone: the rest queue behind it
        *(app.inbox.receive_checked(a) for a in fresh[:5]),
        app.inbox.receive_checked(again),
        *(app.inbox.receive_checked(a) for a in fresh[5:]),
    )
    receipts: list[Stored] = list(results)
    assert receipts[6].receipt is Receipt.DUPLICATE
    others = receipts[:6] + receipts[7:]
    assert all(isinstance(r.receipt, InboundMessage) for r in others)
    stored = {row.update_id for row in await _stored_rows(app)}
    assert {a.update_id for a in fresh} <= stored


async def test_a_chat_s_earlier_update_in_the_same_batch_is_seen(app: App) -> None:
    """Two messages of one chat committed together: the second still learns the first is unanswered
    (else both could be handled at once, out of order)."""
    first, second = _arrival(777), _arrival(777)
    _, one, two = await asyncio.gather(
        app.inbox.receive_checked(_arrival(776)),
        app.inbox.receive_checked(first),
        app.inbox.receive_checked(second),
    )
    assert app.inbox.group.batches >= 1
    assert isinstance(one.receipt, InboundMessage) and isinstance(two.receipt, InboundMessage)
    assert one.earlier is None and two.earlier == one.receipt.id


async def test_a_database_failure_in_a_batch_reaches_every_caller_without_a_retry_each(app: App) -> None:
    """A database that is down fails the batch once: each caller gets the error at once (and the
    inbox journals its write), instead of each write waiting out its own timeout in turn."""
    group = GroupCommit(app.session_factory, asyncio.Lock)
    calls: list[int] = []
    gate = asyncio.Event()

    async def first(session: AsyncSession) -> int:
        await gate.wait()
        return 0

    def failing(n: int):  # type: ignore[no-untyped-def]
        async def write(session: AsyncSession) -> int:
            calls.append(n)
            raise OperationalError("INSERT ...", {}, ConnectionError("server closed the connection"))

        return write

    alone = asyncio.create_task(group.write(first))
    await asyncio.sleep(0)
    queued = [asyncio.create_task(group.write(failing(n))) for n in range(5)]
    await asyncio.sleep(0)
    gate.set()
    assert await alone == 0
    for task in queued:
        with pytest.raises(OperationalError):
            await task
    assert calls == [0]  # the batch stopped at its first write; nobody was retried alone


async def test_outcomes_and_updates_under_load_are_all_recorded(harness: Harness) -> None:
    """Forty customers at once through the real dispatcher: every update stored once and answered,
    with the writes that queued committed in groups."""
    updates = [harness.updates.text(700_000 + n, "What payment methods do you accept?") for n in range(40)]
    await asyncio.gather(*(harness.app.dispatcher.feed_update(harness.bot, u) for u in updates))
    rows = await harness.rows(InboundMessage)
    assert sorted(int(row.update_id or 0) for row in rows) == sorted(u.update_id for u in updates)
    assert {row.status for row in rows} == {InboundStatus.ANSWERED}
    assert all(row.intent and row.route for row in rows)  # the outcome's fields, not only the status
    assert harness.app.inbox.group.batches >= 1
