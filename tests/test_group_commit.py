"""Group commit of inbox writes: what queues behind one write is committed together, and each
caller still gets exactly its own outcome."""

from __future__ import annotations

import asyncio
import itertools
import logging

import pytest
from sqlalchemy.exc import OperationalError
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.app import App
from db.group_commit import MAX_BATCH, GroupCommit, Write
from db.models import InboundMessage, InboundStatus
from services.inbox.durable import Arrival, Receipt, Stored
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


async def test_a_redelivered_update_in_a_batch_is_refused_alone(
    app: App, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram delivering an update again fails that write's unique key: the batch is written one
    by one, so the others are stored and only the re-delivery is told it is a duplicate."""
    caplog.set_level(logging.INFO, logger="db.group_commit")
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
    assert any("written one write at a time" in r.message for r in caplog.records)  # it was in a batch


async def test_a_chat_s_earlier_update_in_the_same_batch_is_seen(app: App) -> None:
    """Two messages of one chat committed together: the second still learns the first is unanswered
    (else both could be handled at once, out of order)."""
    group = app.inbox.group
    gate = asyncio.Event()

    async def busy(session: AsyncSession) -> None:
        await gate.wait()

    writers = [asyncio.create_task(group.write(busy)) for _ in range(group.writers)]
    await asyncio.sleep(0)  # every writer busy: the chat's two updates queue, one batch
    first, second = _arrival(777), _arrival(777)
    queued = [asyncio.create_task(app.inbox.receive_checked(a)) for a in (first, second)]
    await asyncio.sleep(0)
    gate.set()
    await asyncio.gather(*writers)
    one, two = await asyncio.gather(*queued)
    assert group.batches >= 1
    assert isinstance(one.receipt, InboundMessage) and isinstance(two.receipt, InboundMessage)
    assert one.earlier is None and two.earlier == one.receipt.id


def _gated() -> tuple[asyncio.Event, Write[int]]:
    gate = asyncio.Event()

    async def first(session: AsyncSession) -> int:
        await gate.wait()
        return -1

    return gate, first


class _HeldWriter:
    """A one-writer group whose writer is busy with a first write until `release`: writes made
    meanwhile queue, and the finishing writer takes them in batches."""

    def __init__(self, app: App) -> None:
        lock = asyncio.Lock()
        self.group = GroupCommit(app.session_factory, lambda: lock)
        self._gate, first = _gated()
        self._first = asyncio.create_task(self.group.write(first))

    async def release(self) -> int:
        """Let the first write finish; its result (-1)."""
        self._gate.set()
        return await self._first


async def test_a_database_failure_reaches_every_waiting_caller_at_once(app: App) -> None:
    """A database that is down fails the batch once: its callers and every write still queued get
    the error at once (the inbox journals them), instead of each batch waiting out its own timeout."""
    held = _HeldWriter(app)
    group = held.group
    calls: list[int] = []

    def failing(n: int) -> Write[int]:
        async def write(session: AsyncSession) -> int:
            calls.append(n)
            raise OperationalError("INSERT ...", {}, ConnectionError("server closed the connection"))

        return write

    await asyncio.sleep(0)
    queued = [asyncio.create_task(group.write(failing(n))) for n in range(MAX_BATCH + 3)]
    await asyncio.sleep(0)
    assert await held.release() == -1
    for task in queued:
        with pytest.raises(OperationalError):
            await task
    assert calls == [0]  # the first write of the first batch; nobody waited for a second try


async def test_one_write_s_own_error_fails_only_that_write(app: App) -> None:
    held = _HeldWriter(app)
    group = held.group

    def returning(n: int) -> Write[int]:
        async def write(session: AsyncSession) -> int:
            if n == 2:
                raise ValueError("a bug in one write")
            return n

        return write

    await asyncio.sleep(0)
    queued = [asyncio.create_task(group.write(returning(n))) for n in range(MAX_BATCH)]
    await asyncio.sleep(0)
    await held.release()
    results = await asyncio.gather(*queued, return_exceptions=True)
    assert [r for n, r in enumerate(results) if n != 2] == [n for n in range(MAX_BATCH) if n != 2]
    assert isinstance(results[2], ValueError)


async def test_a_caller_gone_before_its_turn_takes_its_write_with_it(app: App) -> None:
    """An update whose poller was stopped while it queued is not stored: Telegram delivers it
    again after the restart (stored, it would sit leased to nobody for the lease's length)."""
    held = _HeldWriter(app)
    group = held.group
    written: list[int] = []

    def noting(n: int) -> Write[int]:
        async def write(session: AsyncSession) -> int:
            written.append(n)
            return n

        return write

    await asyncio.sleep(0)
    queued = [asyncio.create_task(group.write(noting(n))) for n in range(3)]
    await asyncio.sleep(0)
    queued[1].cancel()
    await held.release()
    assert await queued[0] == 0 and await queued[2] == 2
    assert written == [0, 2]


async def test_no_caller_waits_forever_when_the_writer_is_stopped(app: App) -> None:
    held = _HeldWriter(app)
    group = held.group
    stuck = asyncio.Event()

    async def hangs(session: AsyncSession) -> int:
        stuck.set()
        await asyncio.Event().wait()
        return 0

    await asyncio.sleep(0)
    queued = [asyncio.create_task(group.write(hangs)) for _ in range(MAX_BATCH + 2)]
    await asyncio.sleep(0)
    await held.release()
    await stuck.wait()
    for flusher in list(group._flushers):
        flusher.cancel()  # the loop closing under it
    done, pending = await asyncio.wait(queued, timeout=5)
    assert not pending and all(task.cancelled() for task in done)
    follow_up = await group.write(lambda session: asyncio.sleep(0, result=7))  # the group works on
    assert follow_up == 7


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


async def test_a_burst_is_written_in_small_batches_so_the_first_callers_start_early(app: App) -> None:
    """500 updates arriving at once written as one batch held every one of them back until the last
    was written: no transaction carries more than MAX_BATCH writes, and the batches go in order."""
    lock = asyncio.Lock()
    group = GroupCommit(app.session_factory, lambda: lock)
    sessions: list[int] = []
    transactions = itertools.count()

    def noting(n: int) -> Write[int]:
        async def write(session: AsyncSession) -> int:
            sessions.append(session.info.setdefault("transaction", next(transactions)))
            await asyncio.sleep(0)
            return n

        return write

    results = await asyncio.gather(*(group.write(noting(n)) for n in range(30)))
    assert results == list(range(30))
    sizes = [len(list(run)) for _, run in itertools.groupby(sessions)]
    assert sizes[0] == 1  # the first runs alone, at once
    assert max(sizes) == MAX_BATCH and sum(sizes) == 30
    assert group.batches == len([size for size in sizes if size > 1])
