"""The inbound row's state machine (docs/guarantees.md): `answered` only when handling finished
with nothing owed to the customer; every other way out leaves it `received` with its next try.

Each test drives the real dispatcher on a real database (SQLite, and PostgreSQL when
configured) and puts a fault where a real one lands: a send middleware whose store
fails, a shutdown's cancellation in the middle of the apology or of a send Telegram
accepts, a flood wait longer than a call may wait, a crash between the delivery and
the outcome's write, an id Telegram reuses after a week, a pool that times out.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.exceptions import TelegramServerError
from aiogram.methods import Response, SendMessage, TelegramMethod
from aiogram.methods.base import TelegramType
from redis.exceptions import ConnectionError as RedisConnectionError
from sqlalchemy import update
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlmodel import col

from bench.db_faults import held_lock
from bot.app import App, build_app
from bot.durable_dispatcher import SHUTDOWN_REASON
from bot.inbox_worker import InboxWorker
from bot.local_chat import LocalChat
from bot.middlewares.outbound_log import FinishSendsInFlight, stored_call
from bot.middlewares.telegram_retry import FloodWaits
from db.journal import JournalWriteError
from db.models import InboundMessage, InboundStatus, OutboundMessage
from db.repositories.inbox import add_outbound
from db.types import utcnow
from services.admin.conversation_log import SentMessage, delivery_mark
from services.settings import Settings
from services.text.html import to_plain
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, OTHER_USER_ID, Harness, texts_to

STOCK_QUESTION = "SKU-7890 재고 있나요?"
STOCK_ANSWER_MARK = "SKU-7890"
ORDER_QUESTION = "주문 20240115-001234 배송 조회"
ORDER_ANSWER_MARK = "20240115-001234"
APOLOGY = t("received_later", Language.KO)


class Interfere(BaseRequestMiddleware):
    """Innermost: does `action` before a sendMessage whose text contains `mark` (it may raise or
    wait), and records every sendMessage Telegram accepted: what the customer has."""

    def __init__(self) -> None:
        self.mark: str | None = None
        self.action: Any = None
        self.reached = asyncio.Event()
        self.delivered: list[SendMessage] = []

    def texts(self, mark: str = "", chat_id: int = DEMO_USER_ID) -> list[str]:
        return [
            to_plain(m.text, m.parse_mode) for m in self.delivered if m.chat_id == chat_id and mark in m.text
        ]

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        if self.mark is not None and isinstance(method, SendMessage) and self.mark in method.text:
            self.reached.set()
            await self.action()
        response = await make_request(bot, method)
        if isinstance(method, SendMessage):
            self.delivered.append(method)
        return response


@pytest.fixture
def interfere(harness: Harness) -> Interfere:
    middleware = Interfere()
    harness.bot.session.middleware(middleware)
    return middleware


@pytest.fixture
async def fast_app(settings: Settings) -> AsyncIterator[App]:
    """Storage faults surface in a fraction of a second."""
    app = await build_app(settings.model_copy(update={"db_lock_timeout_ms": 200}), upgrade=False, seed=True)
    yield app
    await app.close()


@pytest.fixture
def fast(fast_app: App) -> Harness:
    return Harness(fast_app)


@pytest.fixture
def interfere_fast(fast: Harness) -> Interfere:
    middleware = Interfere()
    fast.bot.session.middleware(middleware)
    return middleware


async def _row(harness: Harness, index: int = -1) -> InboundMessage:
    rows = sorted(await harness.rows(InboundMessage), key=lambda row: row.id or 0)
    return rows[index]


async def _due_now(harness: Harness) -> None:
    """Time passes: every waiting row's next try is due (leases and retry times in the past)."""
    async with harness.app.session_factory() as session:
        await session.exec(  # type: ignore[call-overload]
            update(InboundMessage)
            .where(col(InboundMessage.status) == "received")
            .values(lease_until=utcnow() - timedelta(seconds=1))
        )
        await session.commit()


async def _worker_pass(harness: Harness) -> int:
    return await InboxWorker(harness.app.dispatcher, harness.bot).run_once()


async def _age(harness: Harness, row_id: int | None, by: timedelta) -> None:
    async with harness.app.session_factory() as session:
        await session.exec(  # type: ignore[call-overload]
            update(InboundMessage).where(col(InboundMessage.id) == row_id).values(created_at=utcnow() - by)
        )
        await session.commit()


async def test_a_store_error_in_a_send_middleware_leaves_the_update_to_be_answered_later(
    harness: Harness, interfere: Interfere
) -> None:
    """The outgoing limiter's Redis failing on the answer and on the apology alike: the row is
    not recorded as answered (it was not), and the next try answers."""

    async def redis_down() -> None:
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    interfere.mark, interfere.action = "", redis_down  # every message
    await harness.say(DEMO_USER_ID, STOCK_QUESTION)
    row = await _row(harness)
    assert row.status == "received" and row.lease_until is not None
    assert "Connection refused" in (row.error or "")

    interfere.mark = None  # Redis answers again
    await _due_now(harness)
    assert await _worker_pass(harness) == 1
    row = await _row(harness)
    assert row.status == "answered"
    assert len(interfere.texts(STOCK_ANSWER_MARK)) == 1


async def test_a_shutdown_cancelling_the_apology_leaves_the_update_for_after_the_restart(
    harness: Harness, interfere: Interfere, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FinishSendsInFlight, "grace", 0.05)
    for _ in range(8):  # the answer is refused for every try the retry policy allows: a transient fault
        harness.session.queue_error(SendMessage, error_code=502, description="Bad Gateway")
    never = asyncio.Event()
    interfere.mark, interfere.action = APOLOGY[:10], never.wait  # the apology hangs until cancelled
    handling = asyncio.create_task(
        harness.app.dispatcher.feed_update(harness.bot, harness.updates.text(DEMO_USER_ID, STOCK_QUESTION))
    )
    await asyncio.wait_for(interfere.reached.wait(), 30)
    interrupted = await harness.app.dispatcher.drain(within=0)
    assert handling.done() and len(interrupted) == 1
    row = await _row(harness)
    assert row.status == "received" and row.status_reason == SHUTDOWN_REASON

    interfere.mark = None  # the restart: Telegram answers again
    await _due_now(harness)
    harness.app.dispatcher.scheduler.capacity = 4  # a fresh process's slots
    assert await InboxWorker(harness.app.dispatcher, harness.bot).run_once() == 1
    assert (await _row(harness)).status == "answered"
    assert len(interfere.texts(STOCK_ANSWER_MARK)) == 1


async def test_a_flood_wait_longer_than_a_call_may_wait_schedules_the_next_try_after_it(
    harness: Harness, interfere: Interfere
) -> None:
    now = [1000.0]
    harness.retry.flood_waits = FloodWaits(clock=lambda: now[0])
    harness.session.queue_error(SendMessage, error_code=429, description="Too Many Requests", retry_after=120)
    await harness.say(DEMO_USER_ID, STOCK_QUESTION)
    row = await _row(harness)
    assert row.status == "received" and row.lease_until is not None
    assert row.lease_until - utcnow() > timedelta(seconds=119), "the next try waits out the flood wait"
    assert row.attempts == 0, "a flood wait does not spend a try"
    calls = len(harness.session.requests)
    assert len(texts_to(harness.session.requests, DEMO_USER_ID)) == 1, "no apology into a flood wait"

    # The chat's next message waits behind the first, and nothing is sent into the flood wait.
    await harness.say(DEMO_USER_ID, ORDER_QUESTION)
    assert len(harness.session.requests) == calls
    assert (await _row(harness)).status == "received"
    # Other chats are answered meanwhile.
    assert any(STOCK_ANSWER_MARK in text for text in await harness.say(OTHER_USER_ID, STOCK_QUESTION))

    # Within the wait, a try sends nothing either.
    await _due_now(harness)
    await _worker_pass(harness)
    assert len(harness.session.requests) == calls + 1  # the other chat's answer alone
    now[0] += 125  # the flood wait is over
    for _ in range(3):  # the held-back try was rescheduled after the wait: let it come due
        await _due_now(harness)
        await _worker_pass(harness)
    answers = interfere.texts()
    assert [STOCK_ANSWER_MARK in text for text in answers] == [True, False]
    assert ORDER_ANSWER_MARK in answers[1], "in the order the customer wrote"
    assert {row.status for row in await harness.rows(InboundMessage)} == {"answered"}


async def test_an_update_id_reused_after_a_week_is_a_new_message(
    harness: Harness, interfere: Interfere
) -> None:
    first = harness.updates.text(DEMO_USER_ID, STOCK_QUESTION, update_id=4242)
    await harness.feed(first)
    await harness.feed(first)  # Telegram delivering it again: a duplicate
    assert len(interfere.texts(STOCK_ANSWER_MARK)) == 1
    [row] = await harness.rows(InboundMessage)
    await _age(harness, row.id, timedelta(days=7))

    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, ORDER_QUESTION, update_id=4242))
    assert any(ORDER_ANSWER_MARK in text for text in texts_to(calls, DEMO_USER_ID))
    rows = sorted(await harness.rows(InboundMessage), key=lambda r: r.id or 0)
    assert [(r.update_id, r.status) for r in rows] == [(None, "answered"), (4242, "answered")]


async def test_a_crash_after_the_delivery_repeats_nothing(
    harness: Harness, app: App, interfere: Interfere
) -> None:
    """The process dies after Telegram took the answer, before the outcome was written: the
    delivery mark is already in the outbound log, so the next run sends nothing again."""
    close = app.inbox.close

    async def died(*_args: Any, **_kwargs: Any) -> None:
        return None

    app.inbox.close = died  # type: ignore[method-assign]
    await harness.say(DEMO_USER_ID, STOCK_QUESTION)
    app.inbox.close = close  # type: ignore[method-assign]
    row = await _row(harness)
    assert row.status == "received", "the outcome was never written"
    [mark] = await harness.rows(OutboundMessage)
    assert mark.status == "sent" and STOCK_ANSWER_MARK in mark.text and mark.inbound_id == row.id

    await _due_now(harness)  # the lease of the dead process runs out
    assert await _worker_pass(harness) == 1
    row = await _row(harness)
    assert row.status == "answered" and "not handled again" in (row.status_reason or "")
    assert len(interfere.texts(STOCK_ANSWER_MARK)) == 1
    assert len(await harness.rows(OutboundMessage)) == 1


async def test_a_send_telegram_accepts_during_the_shutdown_counts_as_delivered(
    harness: Harness, interfere: Interfere
) -> None:
    """Telegram is slow and the drain's deadline cancels handling while the answer is on its way:
    the call is let finish, so the log knows the customer has it and the restart sends nothing."""
    slow = asyncio.Event()
    interfere.mark, interfere.action = STOCK_ANSWER_MARK, slow.wait
    handling = asyncio.create_task(
        harness.app.dispatcher.feed_update(harness.bot, harness.updates.text(DEMO_USER_ID, STOCK_QUESTION))
    )
    await asyncio.wait_for(interfere.reached.wait(), 30)
    draining = asyncio.create_task(harness.app.dispatcher.drain(within=0))
    while not handling.cancelling():  # noqa: ASYNC110  # the drain's cancellation has no event
        await asyncio.sleep(0)
    slow.set()  # Telegram answers the call that was in flight
    await draining
    row = await _row(harness)
    assert row.status == "answered"
    [sent] = await harness.rows(OutboundMessage)
    assert sent.status == "sent" and STOCK_ANSWER_MARK in sent.text
    harness.app.dispatcher.scheduler.capacity = 4
    await _due_now(harness)
    await _worker_pass(harness)
    assert len(interfere.texts(STOCK_ANSWER_MARK)) == 1


async def test_a_chats_later_message_waits_for_an_earlier_one_waiting_for_its_retry(
    harness: Harness, interfere: Interfere
) -> None:
    """However long the earlier message has waited (here longer than an update may take), the
    later one is not answered before it."""
    for _ in range(8):
        harness.session.queue_error(SendMessage, error_code=502, description="Bad Gateway")
    await harness.say(DEMO_USER_ID, STOCK_QUESTION)
    first = await _row(harness)
    assert first.status == "received"
    await _age(harness, first.id, timedelta(minutes=5))

    replies = await harness.say(DEMO_USER_ID, ORDER_QUESTION)
    assert not any(ORDER_ANSWER_MARK in text for text in replies), "not before the earlier message"
    for _ in range(3):
        await _due_now(harness)
        await _worker_pass(harness)
    answers = [text for text in interfere.texts() if text != APOLOGY]
    assert [STOCK_ANSWER_MARK in answers[0], ORDER_ANSWER_MARK in answers[1]] == [True, True]
    assert len(answers) == 2
    assert {row.status for row in await harness.rows(InboundMessage)} == {"answered"}


async def test_a_pool_timeout_before_the_handler_leaves_the_update_for_its_next_try(
    harness: Harness, app: App, interfere: Interfere
) -> None:
    admission = await app.dispatcher.admit(
        harness.bot, harness.updates.text(DEMO_USER_ID, STOCK_QUESTION), claim=False
    )
    assert isinstance(admission.receipt, InboundMessage)
    check = app.inbox.earlier_in_flight

    async def pool_exhausted(row: InboundMessage) -> int | None:
        raise PoolTimeoutError("QueuePool limit of size 5 overflow 10 reached, connection timed out")

    app.inbox.earlier_in_flight = pool_exhausted  # type: ignore[method-assign,assignment]
    assert await app.dispatcher.handle_stored(harness.bot, admission.receipt)
    app.inbox.earlier_in_flight = check  # type: ignore[method-assign]
    row = await _row(harness)
    assert row.status == "received" and "TimeoutError" in (row.error or "")
    assert texts_to(harness.session.requests, DEMO_USER_ID) == []

    await _due_now(harness)
    assert await _worker_pass(harness) == 1
    assert (await _row(harness)).status == "answered"
    assert len(interfere.texts(STOCK_ANSWER_MARK)) == 1


class RefuseAnswers(BaseRequestMiddleware):
    """Innermost: Telegram answers 502 to every sendMessage whose text contains `mark`."""

    def __init__(self, mark: str) -> None:
        self.mark: str | None = mark

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        if self.mark is not None and isinstance(method, SendMessage) and self.mark in method.text:
            raise TelegramServerError(method=method, message="Bad Gateway")
        return await make_request(bot, method)


async def test_a_notice_before_the_answer_is_not_the_answer(harness: Harness, interfere: Interfere) -> None:
    """A long message: the "I read only the first 4096 characters" note goes out, then Telegram
    refuses the stock answer for every try. The note is not the answer: the update is not answered
    (it was not), and the next try answers."""
    refuse = RefuseAnswers(STOCK_ANSWER_MARK)
    harness.bot.session.middleware(refuse)
    await harness.say(DEMO_USER_ID, STOCK_QUESTION + " " + "가" * 5000)
    row = await _row(harness)
    assert row.status == "received"
    assert ["4096" in text for text in interfere.texts() if text != APOLOGY] == [True]

    refuse.mark = None  # Telegram takes sends again
    await _due_now(harness)
    assert await _worker_pass(harness) == 1
    assert (await _row(harness)).status == "answered"
    assert len(interfere.texts(STOCK_ANSWER_MARK)) == 1


async def test_what_a_run_owed_is_sent_as_stored_without_running_the_handlers_again(
    harness: Harness, app: App, interfere: Interfere
) -> None:
    """An earlier run delivered the first message of a reply and Telegram refused the second for
    now (its call kept): the next try sends that message as it was, and nothing else."""
    admission = await app.dispatcher.admit(harness.bot, harness.updates.text(DEMO_USER_ID, STOCK_QUESTION))
    assert isinstance(admission.receipt, InboundMessage) and admission.receipt.id is not None
    inbound_id = admission.receipt.id
    owed = SendMessage(chat_id=DEMO_USER_ID, text="second part of the reply", parse_mode="HTML")
    first = SentMessage("sendMessage", DEMO_USER_ID, "first part of the reply")
    refused = SentMessage(
        "sendMessage",
        DEMO_USER_ID,
        owed.text,
        status="failed",
        error="TelegramServerError: Bad Gateway",
        retryable=True,
        payload=stored_call(owed),
    )
    async with app.session_factory() as session:
        await add_outbound(session, [delivery_mark(inbound_id, DEMO_USER_ID, s) for s in (first, refused)])
        await session.commit()

    await _due_now(harness)  # the earlier run's process is gone; its lease ran out
    assert await _worker_pass(harness) == 1
    row = await _row(harness)
    assert row.status == "answered" and "not handled again" in (row.status_reason or "")
    assert interfere.texts() == ["second part of the reply"], "the owed message alone, as stored"
    assert interfere.delivered[0].parse_mode == "HTML"
    statuses = [r.status for r in sorted(await harness.rows(OutboundMessage), key=lambda r: r.id or 0)]
    assert statuses == ["sent", "resent", "sent"]


async def test_an_update_after_an_outage_waits_behind_the_journaled_ones(
    fast: Harness, database_url: str, interfere_fast: Interfere
) -> None:
    """The database down: the chat's first message goes to the journal. When the database is back,
    the chat's next message is stored behind it (the journal is replayed first) and answered after."""
    async with held_lock(database_url):
        await fast.say(DEMO_USER_ID, STOCK_QUESTION)
    assert fast.app.inbox.journal.pending()
    await fast.say(DEMO_USER_ID, ORDER_QUESTION)  # the database answers again
    assert not fast.app.inbox.journal.pending()
    rows = sorted(await fast.rows(InboundMessage), key=lambda r: r.id or 0)
    assert [r.text for r in rows] == [STOCK_QUESTION, ORDER_QUESTION], "stored in the order they came"
    for _ in range(3):
        await _due_now(fast)
        await InboxWorker(fast.app.dispatcher, fast.bot).run_once()
    answers = [text for text in interfere_fast.texts() if text != APOLOGY]
    assert len(answers) == 2 and STOCK_ANSWER_MARK in answers[0] and ORDER_ANSWER_MARK in answers[1]


async def test_an_outcome_with_nowhere_to_go_is_written_when_the_database_answers(
    fast: Harness, database_url: str, interfere_fast: Interfere, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer goes out just as the database locks and the journal's disk fills: neither takes
    the delivery mark nor the outcome. The database back, the inbox worker's next pass writes the
    outcome (no lease has run out, nothing is handled again), so a restart finds it answered."""
    outage = contextlib.AsyncExitStack()

    async def refuse(record: object) -> None:
        raise JournalWriteError("[Errno 28] No space left on device")

    async def break_storage() -> None:
        await outage.enter_async_context(held_lock(database_url))
        monkeypatch.setattr(fast.app.inbox.journal, "append", refuse)

    interfere_fast.mark, interfere_fast.action = STOCK_ANSWER_MARK, break_storage
    try:
        await fast.say(DEMO_USER_ID, STOCK_QUESTION)
    finally:
        await outage.aclose()
    monkeypatch.undo()
    assert len(interfere_fast.texts(STOCK_ANSWER_MARK)) == 1
    assert (await _row(fast)).status == InboundStatus.RECEIVED, "nothing took the outcome"
    await InboxWorker(fast.app.dispatcher, fast.bot).run_once()
    row = await _row(fast)
    assert row.status == InboundStatus.ANSWERED, "the worker's pass wrote the outcome it held"
    assert len(interfere_fast.texts(STOCK_ANSWER_MARK)) == 1, "and sent nothing again"


async def test_a_delivery_mark_the_database_cannot_take_at_once_is_journaled_and_outlives_a_crash(
    fast: Harness, settings: Settings, database_url: str
) -> None:
    """The database locked the moment a reply was delivered: its mark goes to the journal at once.
    The process then dies before any outcome is written; the next process replays the journal
    first and finds the reply delivered, so the customer does not get it again."""
    admission = await fast.app.dispatcher.admit(fast.bot, fast.updates.text(DEMO_USER_ID, STOCK_QUESTION))
    assert isinstance(admission.receipt, InboundMessage) and admission.receipt.id is not None
    inbound_id = admission.receipt.id
    sent = SentMessage("sendMessage", DEMO_USER_ID, "SKU-7890: 12 in stock")
    async with held_lock(database_url):
        await fast.app.inbox.mark_delivered(inbound_id, DEMO_USER_ID, sent)
    assert fast.app.inbox.journal.pending(), "journaled, not left to memory"
    assert sent.logged, "the outcome will not log it a second time"

    restarted = await build_app(settings.model_copy(update={"db_lock_timeout_ms": 200}), upgrade=False)
    try:
        after = Harness(restarted, updates=fast.updates)
        seen = Interfere()
        after.bot.session.middleware(seen)
        await _due_now(after)
        await InboxWorker(restarted.dispatcher, after.bot).run_once()
        assert not restarted.inbox.journal.pending()
        assert seen.texts() == [], "nothing sent again"
        stored = await _row(after)
        assert stored.status == "answered" and "not handled again" in (stored.status_reason or "")
        marks = [r for r in await after.rows(OutboundMessage) if r.inbound_id == inbound_id]
        assert [m.text for m in marks] == ["SKU-7890: 12 in stock"]
    finally:
        await restarted.close()


async def test_the_local_chat_says_a_message_was_not_stored_and_goes_on(
    fast: Harness, database_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """`csbot chat` with the database locked and the journal's disk full: no traceback, one error
    line saying so, and the next message (storage back) is answered."""
    chat = LocalChat(fast.app, user_id=DEMO_USER_ID)

    async def refuse(record: object) -> None:
        raise JournalWriteError("[Errno 28] No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(fast.app.inbox.journal, "append", refuse)
        async with held_lock(database_url):
            assert await chat.send(STOCK_QUESTION) == []
    assert any("message not stored" in r.getMessage() for r in caplog.records if r.levelname == "ERROR")
    assert any(STOCK_ANSWER_MARK in reply for reply in await chat.send(STOCK_QUESTION))
