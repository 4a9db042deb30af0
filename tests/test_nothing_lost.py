"""Nothing lost: every update is stored and answered (or apologised for) through faults and restarts.

Each test drives the real dispatcher with a real database (SQLite, and PostgreSQL
when configured) and injects a real fault: a lock held by another connection,
a NUL byte, Telegram errors through the recording session, a frozen Redis behind
a loopback proxy, a SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiogram import Bot
from aiogram.methods import SendMessage
from aiogram.types import Update
from sqlmodel.ext.asyncio.session import AsyncSession

from bench.db_faults import held_lock
from bot.app import App, build_app
from bot.dispatcher import create_bot
from bot.fsm_memory import BoundedEventIsolation, BoundedMemoryStorage
from bot.inbox_worker import InboxWorker
from bot.recording_session import RecordingSession
from bot.serving import serve
from db.models import InboundMessage, OutboundMessage
from services.inquiry import Inquiry
from services.replies import Reply
from services.settings import Settings
from services.text.sentences import Language, t
from tests.harness import ADMIN_ID, DEMO_USER_ID, OTHER_USER_ID, Harness, texts_to

STOCK_QUESTION = "SKU-7890 재고 있나요?"
STOCK_ANSWER_MARK = "SKU-7890"


async def _worker_pass(harness: Harness) -> int:
    return await InboxWorker(harness.app.dispatcher, harness.bot).run_once()


@pytest.fixture
async def fast_app(settings: Settings) -> AsyncIterator[App]:
    """Faults surface in a fraction of a second, and a failed update may be tried again at once."""
    fast = settings.model_copy(update={"db_lock_timeout_ms": 200, "redis_timeout": 0.5})
    app = await build_app(fast, upgrade=False, seed=True)
    app.inbox.policy = replace(app.inbox.policy, retry_base=0.0)
    yield app
    await app.close()


@pytest.fixture
def fast(fast_app: App) -> Harness:
    return Harness(fast_app)


async def test_a_nul_byte_is_stored_and_answered(harness: Harness) -> None:
    """PostgreSQL's text refuses NUL: the stored text shows a stand-in, the raw update keeps it."""
    replies = await harness.say(DEMO_USER_ID, "SKU-7890\x00 재고 있나요?")
    assert STOCK_ANSWER_MARK in replies[0]
    [row] = await harness.rows(InboundMessage)
    assert row.text == "SKU-7890\u2400 재고 있나요?" and row.status == "answered"
    assert row.raw_update is not None
    assert json.loads(row.raw_update)["message"]["text"] == "SKU-7890\x00 재고 있나요?"


async def test_database_locked_at_arrival_journals_then_answers(fast: Harness, database_url: str) -> None:
    """The insert cannot get the lock: the update goes to the journal, the customer is told to wait,
    and once the lock is gone the journal is replayed and the real answer goes out, once."""
    update = fast.updates.text(DEMO_USER_ID, STOCK_QUESTION)
    async with held_lock(database_url):
        replies = texts_to(await fast.feed(update), DEMO_USER_ID)
    assert replies == [t("received_later", Language.KO)]
    assert fast.app.inbox.journal.pending()
    assert await fast.rows(InboundMessage) == []

    assert await _worker_pass(fast) == 1
    answers = texts_to(fast.session.requests, DEMO_USER_ID)
    assert STOCK_ANSWER_MARK in answers[-1] and len(answers) == 2
    [row] = await fast.rows(InboundMessage)
    assert row.status == "answered" and row.text == STOCK_QUESTION
    assert not fast.app.inbox.journal.pending()

    # Telegram delivers the same update again (its offset was never confirmed): no second answer.
    await fast.feed(update)
    assert await _worker_pass(fast) == 0
    assert len(texts_to(fast.session.requests, DEMO_USER_ID)) == 2


async def test_a_locked_table_fails_fast_and_is_answered_after(fast: Harness, database_url: str) -> None:
    """A table lock held by someone else: the handler's query gives up after the lock timeout
    instead of blocking, the customer is told to wait, and the update is handled again later."""
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite readers are never blocked by a writer in WAL mode")
    async with held_lock(database_url, table="products"):
        replies = await asyncio.wait_for(fast.say(DEMO_USER_ID, STOCK_QUESTION), timeout=30)
        assert replies == [t("received_later", Language.KO)]
        [row] = await fast.rows(InboundMessage)
        assert row.status == "received" and row.apologized
        assert "lock timeout" in (row.error or "")
    assert await _worker_pass(fast) == 1
    [row] = await fast.rows(InboundMessage)
    assert row.status == "answered"
    answers = texts_to(fast.session.requests, DEMO_USER_ID)
    assert len(answers) == 2 and STOCK_ANSWER_MARK in answers[-1]


async def test_429_and_500_on_a_reply_are_retried(harness: Harness) -> None:
    harness.session.queue_error(SendMessage, error_code=429, description="Too Many Requests", retry_after=3)
    harness.session.queue_error(SendMessage, error_code=500, description="Internal Server Error")
    replies = await harness.say(DEMO_USER_ID, STOCK_QUESTION)
    assert len(replies) == 3 and STOCK_ANSWER_MARK in replies[-1]  # two refused tries, then delivered
    assert harness.waits[0] == 3.0 and len(harness.waits) == 2
    [sent] = await harness.rows(OutboundMessage)
    assert sent.status == "sent" and STOCK_ANSWER_MARK in sent.text


async def test_a_reply_telegram_keeps_refusing_is_stored_and_delivered_later(fast: Harness) -> None:
    for _ in range(8):  # every try the retry policy allows
        fast.session.queue_error(SendMessage, error_code=502, description="Bad Gateway")
    replies = await fast.say(DEMO_USER_ID, STOCK_QUESTION)
    assert replies[-1] == t("received_later", Language.KO)
    [row] = await fast.rows(InboundMessage)
    assert row.status == "received" and row.apologized
    refused, apology = await fast.rows(OutboundMessage)
    assert (
        refused.status == "failed"
        and STOCK_ANSWER_MARK in refused.text
        and "Bad Gateway" in (refused.error or "")
    )
    assert apology.status == "sent"

    assert await _worker_pass(fast) == 1  # Telegram answers again
    [row] = await fast.rows(InboundMessage)
    assert row.status == "answered"
    delivered = [r for r in await fast.rows(OutboundMessage) if r.status == "sent"]
    assert [STOCK_ANSWER_MARK in r.text for r in delivered] == [False, True]


async def test_update_ids_are_unique_per_bot_not_per_database(harness: Harness) -> None:
    """A second bot on the same database, or Telegram restarting its ids, is not a re-delivery."""
    update = harness.updates.text(DEMO_USER_ID, STOCK_QUESTION)
    other_session = RecordingSession()
    other_bot = create_bot("43:another-bot", session=other_session)
    first = await harness.feed(update)
    await harness.app.dispatcher.feed_update(other_bot, update)
    again = await harness.feed(update)  # the same bot, the same id: Telegram re-delivered it
    assert len(texts_to(first, DEMO_USER_ID)) == 1 and texts_to(again, DEMO_USER_ID) == []
    assert len(texts_to(other_session.requests, DEMO_USER_ID)) == 1
    rows = await harness.rows(InboundMessage)
    assert sorted((row.bot_id, row.update_id) for row in rows) == [
        (42, update.update_id),
        (43, update.update_id),
    ]
    assert all(row.status == "answered" for row in rows)


async def test_one_message_chats_leave_no_state_in_memory(harness: Harness) -> None:
    state = harness.app.state_store
    assert state is not None
    for user_id in range(1_000_000, 1_000_300):
        await harness.say(user_id, "hello")
    assert isinstance(state.storage, BoundedMemoryStorage) and isinstance(
        state.isolation, BoundedEventIsolation
    )
    assert harness.app.dispatcher.fsm.events_isolation is state.isolation, "chats are really isolated"
    assert state.storage.size == 0 and state.isolation.size == 0


# --- SIGTERM with updates in flight -------------------------------------------------------------


class _Gate:
    """Holds the handling of one question until opened (a slow dependency)."""

    def __init__(self, question: str) -> None:
        self.question = question
        self.reached = asyncio.Event()
        self.opened = asyncio.Event()


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> _Gate:
    from handlers import inquiries

    gate = _Gate("SLOW SKU-7890 재고?")
    answer = inquiries.answer_inquiry

    async def slow_answer(session: AsyncSession, inquiry: Inquiry) -> Reply:
        if inquiry.text == gate.question:
            gate.reached.set()
            await gate.opened.wait()
        return await answer(session, inquiry)

    monkeypatch.setattr(inquiries, "answer_inquiry", slow_answer)
    return gate


async def eventually(condition: Callable[[], bool], within: float = 10.0) -> None:
    """Wait for another task's progress (no event to wait on: it is the code under test)."""
    async with asyncio.timeout(within):
        while not condition():  # noqa: ASYNC110  # polling the code under test on purpose
            await asyncio.sleep(0.02)


async def _rows_stored(app: App, count: int) -> None:
    while True:
        async with app.session_factory() as session:
            from sqlmodel import func, select

            stored = (await session.exec(select(func.count()).select_from(InboundMessage))).one()
        if stored >= count:
            return
        await asyncio.sleep(0.02)


async def test_sigterm_drains_then_a_restart_answers_the_rest_exactly_once(
    harness: Harness, settings: Settings, gate: _Gate
) -> None:
    updates = [
        harness.updates.text(DEMO_USER_ID, gate.question),  # stuck in its handler
        harness.updates.text(DEMO_USER_ID, "where is my order?"),  # waits on the chat's lock
        harness.updates.text(OTHER_USER_ID, "hello"),  # another chat: answered before the stop
    ]
    harness.session.deliver(*updates)
    serving = asyncio.create_task(
        serve(harness.app.dispatcher, harness.bot, concurrency=8, shutdown_timeout=0.3)
    )
    await asyncio.wait_for(gate.reached.wait(), 10)
    await asyncio.wait_for(_rows_stored(harness.app, 3), 10)
    await eventually(lambda: bool(texts_to(harness.session.requests, OTHER_USER_ID)))
    os.kill(os.getpid(), signal.SIGTERM)
    exit_code = await asyncio.wait_for(serving, 15)
    assert exit_code == 1, "updates had to be interrupted: the exit code says so"
    rows = {row.update_id: row for row in await harness.rows(InboundMessage)}
    assert [rows[u.update_id].status for u in updates] == ["received", "received", "answered"]
    assert rows[updates[0].update_id].lease_until is None  # given back: handled at once after restart
    assert texts_to(harness.session.requests, DEMO_USER_ID) == []

    # Restart: a new process on the same database picks up what the old one could not finish.
    await harness.app.close()
    gate.opened.set()
    restarted = Harness(await build_app(settings, upgrade=False), updates=harness.updates)
    try:
        assert await _worker_pass(restarted) == 2
        answers = texts_to(restarted.session.requests, DEMO_USER_ID)
        assert len(answers) == 2 and STOCK_ANSWER_MARK in answers[0] and "20240115-001234" in answers[1]
        assert all(row.status == "answered" for row in await restarted.rows(InboundMessage))
        assert await _worker_pass(restarted) == 0
    finally:
        await restarted.app.close()
    harness.app.state_store = None  # closed above


async def test_polling_confirms_an_update_only_after_it_is_stored(harness: Harness) -> None:
    """The next getUpdates is what tells Telegram an update arrived: by then it is in the inbox."""
    seen_rows_at_confirmation: list[int] = []
    record = harness.session.make_request

    async def watching(bot, method, **options):  # type: ignore[no-untyped-def]
        from aiogram.methods import GetUpdates

        if isinstance(method, GetUpdates) and method.offset:
            async with harness.app.session_factory() as session:
                from sqlmodel import select

                stored = (await session.exec(select(InboundMessage.update_id))).all()
            seen_rows_at_confirmation.append(all(u < method.offset for u in [*stored, 0]) and len(stored))
        return await record(bot, method, **options)

    harness.session.make_request = watching  # type: ignore[method-assign,assignment]
    batch = [harness.updates.text(DEMO_USER_ID + i, f"hello {i}") for i in range(5)]
    harness.session.deliver(*batch)
    serving = asyncio.create_task(
        serve(harness.app.dispatcher, harness.bot, concurrency=8, shutdown_timeout=5)
    )
    await eventually(lambda: harness.session.confirmed_below > batch[-1].update_id)
    os.kill(os.getpid(), signal.SIGTERM)
    assert await asyncio.wait_for(serving, 15) == 0
    assert seen_rows_at_confirmation and seen_rows_at_confirmation[0] == 5


# --- Redis frozen -------------------------------------------------------------------------------


class FreezableProxy:
    """A loopback TCP proxy to Redis that can stop passing bytes, like a Redis stuck in a fork."""

    def __init__(self, target_port: int = 6379) -> None:
        self._target_port = target_port
        self.thawed = asyncio.Event()
        self.thawed.set()
        self._server: asyncio.Server | None = None

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self._server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self._target_port)
        await asyncio.gather(self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                await self.thawed.wait()
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()


async def test_a_frozen_redis_fails_fast_and_the_update_is_answered_after(
    settings: Settings, tmp_path: Path
) -> None:
    from tests.test_state_store import redis_answers

    if not redis_answers():
        pytest.skip("no Redis server at 127.0.0.1:6379")
    proxy = FreezableProxy()
    port = await proxy.start()
    frozen_settings = settings.model_copy(
        update={
            "redis_url": f"redis://127.0.0.1:{port}/0",
            "redis_prefix": f"csbot-test-{os.getpid()}-{port}",
            "redis_timeout": 0.5,
            "update_timeout": 1.0,
        }
    )
    app = await build_app(frozen_settings, upgrade=False, seed=True)
    app.inbox.policy = replace(app.inbox.policy, retry_base=0.0, max_attempts=30)
    harness = Harness(app)
    try:
        proxy.thawed.clear()
        replies = await asyncio.wait_for(harness.say(DEMO_USER_ID, STOCK_QUESTION), 30)
        assert replies == [t("received_later", Language.KO)]
        [row] = await harness.rows(InboundMessage)
        assert row.status == "received" and row.apologized
        proxy.thawed.set()
        # The chat's lock taken before the freeze could not be released: it expires within
        # update_timeout + 5 s, and until then each try fails fast and the update waits.
        async with asyncio.timeout(30):
            while (await harness.rows(InboundMessage))[0].status != "answered":
                await _worker_pass(harness)
                await asyncio.sleep(0.5)
        answers = texts_to(harness.session.requests, DEMO_USER_ID)
        assert len(answers) == 2 and STOCK_ANSWER_MARK in answers[-1], "told once to wait, answered once"
    finally:
        proxy.thawed.set()
        await app.close()
        await proxy.close()


def test_update_round_trips_through_its_raw_json(harness: Harness) -> None:
    update = harness.updates.text(DEMO_USER_ID, "이모지 😀 and \ud83d lone")
    from bot.durable_dispatcher import storable_update

    cleaned, raw = storable_update(update, harness.bot)
    assert raw.isascii()
    assert Update.model_validate(json.loads(raw)).message.text == "이모지 😀 and \ud83d lone"  # type: ignore[union-attr]
    assert cleaned.message is not None and cleaned.message.text == "이모지 😀 and \ufffd lone"


# --- What failed, for the admin -----------------------------------------------------------------


async def test_admins_see_undelivered_replies_and_resend_them(harness: Harness) -> None:
    harness.session.queue_error(SendMessage, error_code=400, description="Bad Request: message is too odd")
    await harness.say(DEMO_USER_ID, STOCK_QUESTION)
    await harness.say(OTHER_USER_ID, "hello")  # answered: not in the failed listing
    [listing] = await harness.say(ADMIN_ID, "/logs failed")
    assert "status=failed" in listing and "hello" not in listing
    [refused] = [row for row in await harness.rows(OutboundMessage) if row.status == "failed"]
    assert f"NOT DELIVERED #{refused.id}" in listing and "message is too odd" in listing

    [confirmation] = await harness.say(ADMIN_ID, f"/resend {refused.id}")
    assert confirmation == f"Reply #{refused.id} sent again to chat {DEMO_USER_ID}."
    assert texts_to(harness.session.requests, DEMO_USER_ID)[-1] == refused.text
    statuses = {row.id: row.status for row in await harness.rows(OutboundMessage)}
    assert statuses[refused.id] == "resent"
    assert await harness.say(ADMIN_ID, f"/resend {refused.id}") == [f"No undelivered reply #{refused.id}."]
    # a customer's reply, in the language of their "hello"
    assert await harness.say(OTHER_USER_ID, f"/resend {refused.id}") == [t("unknown_command", Language.EN)]


def test_csbot_logs_failed_lists_what_did_not_reach_the_customer(tmp_path: Path) -> None:
    from tests.test_cli import csbot

    database_url = f"sqlite+aiosqlite:///{tmp_path / 'shop.db'}"

    async def a_day_with_a_refused_reply() -> None:
        settings = Settings(database_url=database_url, journal_path=str(tmp_path / "j"), _env_file=None)  # type: ignore[call-arg]
        app = await build_app(settings, seed=True)
        harness = Harness(app)
        try:
            harness.session.queue_error(SendMessage, error_code=403, description="Forbidden: bot was blocked")
            await harness.say(DEMO_USER_ID, STOCK_QUESTION)
            await harness.say(OTHER_USER_ID, "hello")
        finally:
            await app.close()

    asyncio.run(a_day_with_a_refused_reply())
    result = csbot(tmp_path, "logs", "--failed", "--json")
    assert result.returncode == 0, result.stderr
    [row] = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["text"] == STOCK_QUESTION and row["status"] == "failed"
    [refused] = row["failed_replies"]
    assert STOCK_ANSWER_MARK in refused["text"] and "blocked" in refused["error"]
    assert "raw_update" not in row


async def test_a_fault_after_the_reply_went_out_does_not_send_it_twice(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy.exc import OperationalError

    from handlers import inquiries

    answer = inquiries.say

    async def answer_then_lose_the_database(*args, **kwargs):  # type: ignore[no-untyped-def]
        await answer(*args, **kwargs)
        raise OperationalError("COMMIT", {}, ConnectionResetError("connection lost"))

    monkeypatch.setattr(inquiries, "say", answer_then_lose_the_database)
    replies = await harness.say(DEMO_USER_ID, "where is my order?")
    assert len(replies) == 1 and "20240115-001234" in replies[0], "no apology after a delivered answer"
    [row] = await harness.rows(InboundMessage)
    assert row.status == "answered" and "fault after the reply was delivered" in (row.status_reason or "")
    assert await _worker_pass(harness) == 0


async def test_a_second_poller_on_the_token_stops_this_one_with_one_clear_error(harness: Harness) -> None:
    from aiogram.methods import GetUpdates

    from bot.polling import PollingConflict

    harness.session.queue_error(
        GetUpdates, error_code=409, description="Conflict: terminated by other getUpdates request"
    )
    with pytest.raises(PollingConflict, match="another process is polling with this bot token"):
        await serve(harness.app.dispatcher, harness.bot, concurrency=4, shutdown_timeout=1)


async def test_postgresql_down_at_arrival_then_back(fast: Harness, database_url: str) -> None:
    """The server refuses connections and drops the pooled ones; the update waits in the journal."""
    if not database_url.startswith("postgresql"):
        pytest.skip("an embedded SQLite file cannot go down; the held-lock test covers it")
    from bench.db_faults import postgres_outage

    update = fast.updates.text(DEMO_USER_ID, STOCK_QUESTION)
    async with postgres_outage(database_url):
        replies = texts_to(await fast.feed(update), DEMO_USER_ID)
        assert replies == [t("received_later", Language.KO)]
        assert await _worker_pass_tolerating_outage(fast) == 0
    assert await _worker_pass(fast) == 1
    [row] = await fast.rows(InboundMessage)
    assert row.status == "answered" and not fast.app.inbox.journal.pending()
    answers = texts_to(fast.session.requests, DEMO_USER_ID)
    assert len(answers) == 2 and STOCK_ANSWER_MARK in answers[-1]


async def _worker_pass_tolerating_outage(harness: Harness) -> int:
    """While the database is still down a pass replays nothing and hands nothing back."""
    from services.inbox.durable import STORAGE_ERRORS

    try:
        return await _worker_pass(harness)
    except STORAGE_ERRORS:
        return 0


async def test_a_chats_later_message_waits_while_another_process_handles_an_earlier_one(
    harness: Harness,
) -> None:
    """Instance A stored (and holds) message 1; message 2 reaches this instance: it is not answered
    first, but left in the inbox, and the worker answers both in order once 1 is free."""
    first = harness.updates.text(DEMO_USER_ID, "SKU-1204 재고 있나요?")
    second = harness.updates.text(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    elsewhere = await harness.app.dispatcher.admit(harness.bot, first)  # claimed, as by another process
    assert texts_to(await harness.feed(second), DEMO_USER_ID) == []
    statuses = {row.update_id: row.status for row in await harness.rows(InboundMessage)}
    assert statuses == {first.update_id: "received", second.update_id: "received"}

    assert isinstance(elsewhere.receipt, InboundMessage) and elsewhere.receipt.id is not None
    await harness.app.inbox.release([elsewhere.receipt.id], reason="the other process died")
    await asyncio.sleep(0.6)  # the deferred one waits half a second before the worker may take it
    assert await _worker_pass(harness) == 2
    answers = texts_to(harness.session.requests, DEMO_USER_ID)
    assert ["SKU-1204" in answers[0], "SKU-7890" in answers[1]] == [True, True]


async def test_the_inbox_worker_takes_no_more_chats_at_once_than_the_dispatcher_has_slots(
    harness: Harness,
) -> None:
    """A hundred recovered chats at once took more connections than the pool holds."""
    dispatcher = harness.app.dispatcher
    dispatcher.scheduler.capacity = 2
    for user in range(700_200_001, 700_200_009):
        await dispatcher.admit(harness.bot, harness.updates.text(user, STOCK_QUESTION), claim=False)
    running, most = 0, 0
    handle_stored = dispatcher.handle_stored

    async def counted(bot: Bot, row: InboundMessage) -> bool:
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            await asyncio.sleep(0.01)  # let the other chats start if nothing holds them back
            return await handle_stored(bot, row)
        finally:
            running -= 1

    dispatcher.handle_stored = counted  # type: ignore[method-assign]
    assert await _worker_pass(harness) == 8
    assert most == 2
    rows = await harness.rows(InboundMessage)
    assert [row.status for row in rows] == ["answered"] * 8


async def test_a_shutdown_landing_in_the_outcome_write_still_records_the_answer(harness: Harness) -> None:
    """The drain's deadline passing just as handling ended cancelled the outcome's write: the
    reply was out, the row stayed unanswered, and the restarted process answered again."""
    inbox = harness.app.inbox
    writing, proceed = asyncio.Event(), asyncio.Event()
    write = inbox._write

    async def slow_write(*args: Any, **kwargs: Any) -> None:
        writing.set()
        await proceed.wait()
        await write(*args, **kwargs)

    inbox._write = slow_write  # type: ignore[method-assign]
    update = harness.updates.text(DEMO_USER_ID, STOCK_QUESTION)
    handling = asyncio.create_task(harness.app.dispatcher.feed_update(harness.bot, update))
    await writing.wait()
    handling.cancel()  # what DurableDispatcher.drain does to handling past its deadline
    await asyncio.sleep(0)
    proceed.set()
    with pytest.raises(asyncio.CancelledError):
        await handling
    [row] = await harness.rows(InboundMessage)
    assert row.status == "answered"
    assert STOCK_ANSWER_MARK in texts_to(harness.session.requests, DEMO_USER_ID)[0]
