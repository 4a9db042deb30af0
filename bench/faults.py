"""Fault bench: what the customer sees when everything around csbot fails at once.

Real `csbot run` processes answer many chats through a fake Bot API server on
loopback (bench/fake_bot_api.py: it re-delivers what getUpdates did not confirm
and records a message as delivered only once its response reached the bot). On
PostgreSQL three `csbot run --webhook` instances share the database and Redis,
and updates are posted to them as Telegram posts a webhook (tried again, on the
next instance, until one answers 200; a chat's next update once its previous one
was accepted). On SQLite, an embedded file of one process, one polling process
runs instead. Every chat asks, in turn, about the demo shop's five products (one
question per product, English or Korean), so the answer to each message is
recognisable by its SKU whichever process sent it.

Injected in one run, while updates stream:

- 429 (retry after 1 s) or 500 on 30% of sendMessage calls, 30% of
  sendMessageDraft previews failing, for the whole run until the calm at the end;
- a database outage (PostgreSQL refuses connections and drops open ones; the
  SQLite file's write lock is held), and a lock held past the lock timeout;
- updates delivered again, NUL bytes and 10,000-character texts;
- Redis frozen (connections open, no byte moves), then Redis refusing
  connections, through a proxy in front of it (bench/redis_proxy.py);
- SIGKILL of one process three times, each while a reply of it is in flight
  (held by the fake Bot API), with a restart;
- the journal on a nearly full, then on a full file system (a small tmpfs) while
  the database is down, so updates must go to the journal or be refused;
- 429 with retry_after 60 on one chat, then on every chat for a while;
- SIGTERM of a process, then its restart;
- a return request whose confirmation is delivered several times;
- an update_id used again a week later: once the first message is answered its
  inbound row is dated a week back, and a new message with the same update_id and
  a later date is sent; it must be answered.

Then faults stop and the bench waits for the answers (a bounded time). Counts, as
the customer sees them:

- answered: the update's real answer (the stock answer naming its SKU) reached
  the Bot API server; an apology ("we got your message", "something went wrong")
  or the "too long" notice is never an answer;
- unanswered: an update whose real answer never arrived;
- duplicated: an update whose answer was delivered more than once (across
  attempts and processes), plus every return request filed beyond the first;
- out_of_order: a chat whose answers arrived in another order than its messages;
- lost: an update with no inbound row at the end;
- recovery_s: seconds from the end of the last fault to the last real answer.

Faults a machine cannot inject (no Redis, no tmpfs mount) are listed as skipped.
The last line is `updates=N lost=L unanswered=U duplicated=D out_of_order=O kills=K`;
the exit code is 1 when lost, unanswered or out_of_order is not 0 or duplicated > kills.

    .venv/bin/python -m bench.faults [--updates 300] [--seed 1] [--quick]
        [--database-url postgresql://postgres@127.0.0.1:5432/h_bench]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import re
import signal
import socket
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlmodel import func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bench.databases import fresh_database
from bench.db_faults import database_outage, held_lock
from bench.fake_bot_api import FakeBotAPI, Sent
from bench.fault_fleet import BOT_ID, Fleet, PollingTelegram, Stuck, WebhookTelegram
from bench.redis_proxy import RedisProxy
from bench.small_fs import SmallFileSystem
from bot.app import build_app
from bot.fake_updates import UpdateFactory
from db.engine import create_engine
from db.models import InboundMessage, ReturnRequest
from services.settings import Settings
from services.text.sentences import Language, t
from services.text.split import TELEGRAM_LIMIT

SKUS = ("SKU-7890", "SKU-1204", "SKU-5521", "SKU-3300", "SKU-2045")
PHRASES = ("{sku} 재고 있나요?", "Is {sku} in stock?", "{sku} 재고 있어요?", "Do you have {sku} in stock?")
ANSWER_SKU = re.compile(r"\((SKU-\d{4})\)")
DEMO_USER_ID = 700_000_001
FIRST_CHAT = 810_000_000
REUSE_CHAT = 809_999_999
KILL_CHAT = 809_999_900
FLOOD_CHAT = 809_999_950
APOLOGY_KEYS = ("received_later", "internal_error")
LANGUAGES = (Language.KO, Language.EN, Language.JA)


@dataclass
class Question:
    update: dict[str, Any]
    update_id: int
    chat_id: int
    index: int
    sku: str


@dataclass
class Timing:
    """Durations of the faults; `--quick` shrinks them (and the flood's retry_after with them)."""

    outage: float = 3.0
    lock: float = 1.5
    redis: float = 4.0
    flood_chat: float = 60.0
    flood_all: float = 60.0
    flood_overlap: float = 30.0
    settle: float = 150.0
    deadline: float = 900.0


@dataclass
class Run:
    args: argparse.Namespace
    timing: Timing
    rng: random.Random
    telegram: FakeBotAPI
    fleet: Fleet
    feed: WebhookTelegram | PollingTelegram
    database_url: str
    proxy: RedisProxy | None
    small_fs: SmallFileSystem | None
    skipped: list[str] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)
    step: str = "starting"
    step_started: float = field(default_factory=time.monotonic)
    step_seconds: dict[str, float] = field(default_factory=dict)
    kills: int = 0
    last_fault_end: float = 0.0
    extra_questions: list[Question] = field(default_factory=list)
    """Questions of chats of their own (the SIGKILLs', the flood's): one message, nothing before it."""

    def lone_question(self, factory: UpdateFactory, chat_id: int, sku: str) -> Question:
        update = factory.text(chat_id, f"{sku} 재고 있나요?").model_dump(
            mode="json", exclude_unset=True, by_alias=True
        )
        question = Question(update, int(update["update_id"]), chat_id, 0, sku)
        self.extra_questions.append(question)
        return question

    def at(self, step: str) -> None:
        now = time.monotonic()
        self.step_seconds[self.step] = round(now - self.step_started, 1)
        self.step, self.step_started = step, now
        logging.getLogger("bench.faults").warning("step: %s", step)


def _script(factory: UpdateFactory, count: int, rng: random.Random) -> list[Question]:
    """Chats of five questions each (one per product, in a random order), interleaved round by round
    so a chat's questions are spread over the whole run and its faults."""
    chats = max(1, -(-count // len(SKUS)))
    plans = {FIRST_CHAT + chat: rng.sample(SKUS, len(SKUS)) for chat in range(chats)}
    order: list[tuple[int, int]] = []
    for index in range(len(SKUS)):
        round_chats = list(plans)
        rng.shuffle(round_chats)
        order += [(chat, index) for chat in round_chats]
    questions = []
    for chat, index in order[:count]:
        sku = plans[chat][index]
        text = rng.choice(PHRASES).format(sku=sku)
        roll = rng.random()
        if roll < 0.03:
            text = text.replace(" ", " \x00 ", 1)
        elif roll < 0.05:
            text = text + " " + "가" * 10_000
        update = factory.text(chat, text).model_dump(mode="json", exclude_unset=True, by_alias=True)
        questions.append(Question(update, int(update["update_id"]), chat, index, sku))
    return questions


async def _until(run: Run, what: str, condition: Any, within: float) -> None:
    """Wait for another process's progress (there is no event to await across processes)."""
    try:
        async with asyncio.timeout(within):
            while not condition():  # noqa: ASYNC110  # other processes make the progress
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise Stuck(f"{what}: not within {within:.0f} s (at step: {run.step})") from None


def _answers(telegram: FakeBotAPI, chat_id: int) -> list[Sent]:
    return [sent for sent in telegram.delivered if sent.chat_id == chat_id and ANSWER_SKU.search(sent.text)]


async def _stream(run: Run, questions: list[Question], seconds: float) -> None:
    """Hand `questions` to Telegram spread over `seconds` (a customer base typing, not a burst)."""
    if not questions:
        await asyncio.sleep(seconds)
        return
    pause = seconds / len(questions)
    for question in questions:
        run.feed.deliver(question.update)
        await asyncio.sleep(pause)


async def _return_walk(run: Run, factory: UpdateFactory) -> dict[str, Any] | None:
    """The demo customer starts a return and picks the first button at each step, faults off; the
    confirming callback is returned unsent, for the faulty part of the run."""
    telegram = run.telegram
    seen = len(telegram.texts_to(DEMO_USER_ID))
    run.feed.deliver(
        factory.text(DEMO_USER_ID, "/return").model_dump(mode="json", exclude_unset=True, by_alias=True)
    )
    for _ in range(8):
        await _until(
            run,
            "a reply in the return form",
            lambda: len(telegram.texts_to(DEMO_USER_ID)) > seen,  # noqa: B023  # awaited at once
            30,
        )
        last = [sent for sent in telegram.delivered if sent.chat_id == DEMO_USER_ID][-1]
        buttons = last.buttons()
        if not buttons:
            return None
        data = buttons[0][1]
        callback = factory.callback(DEMO_USER_ID, data).model_dump(
            mode="json", exclude_unset=True, by_alias=True
        )
        if "confirm" in data:
            return callback
        seen = len(telegram.texts_to(DEMO_USER_ID))
        run.feed.deliver(callback)
    return None


async def _backdate(database_url: str, update_id: int, days: int) -> bool:
    engine = create_engine(database_url)
    try:
        async with AsyncSession(engine) as db:
            row = (
                await db.exec(
                    select(InboundMessage).where(
                        InboundMessage.bot_id == BOT_ID, InboundMessage.update_id == update_id
                    )
                )
            ).first()
            if row is None:
                return False
            row.created_at = row.created_at - timedelta(days=days)
            db.add(row)
            await db.commit()
            return True
    finally:
        await engine.dispose()


async def _kill_in_flight(run: Run, question: Question) -> None:
    """SIGKILL the process whose reply to `question`'s chat is being held, then restart it."""
    telegram, fleet = run.telegram, run.fleet
    telegram.slow_chats.add(question.chat_id)
    calls_before = len(telegram.calls)
    run.feed.deliver(question.update)
    victim = None
    try:
        await _until(
            run,
            f"a reply to chat {question.chat_id} in flight",
            lambda: any(
                method == "sendmessage" and params.get("chat_id") == str(question.chat_id)
                for method, params in telegram.calls[calls_before:]
            ),
            30,
        )
        port = next(
            telegram.call_ports[calls_before + offset]
            for offset, (method, params) in enumerate(telegram.calls[calls_before:])
            if method == "sendmessage" and params.get("chat_id") == str(question.chat_id)
        )
        victim = fleet.by_port(port)
    except Stuck:
        run.notes["kills_without_a_reply_in_flight"] = run.notes.get("kills_without_a_reply_in_flight", 0) + 1
    victim = victim or run.rng.choice([i for i in fleet.instances if i.alive] or fleet.instances)
    assert victim.process is not None
    victim.process.kill()
    await victim.process.wait()
    run.kills += 1
    telegram.release_slow()  # the held answer is written to a closed connection: not delivered
    restarted = time.monotonic()
    await fleet.start(victim)
    await fleet.wait_ready(victim)
    run.notes.setdefault("restart_to_ready_s", []).append(round(time.monotonic() - restarted, 1))


@contextlib.asynccontextmanager
async def _database_down(run: Run) -> Any:
    async with database_outage(run.database_url):
        yield


async def _faults(run: Run, questions: list[Question], factory: UpdateFactory) -> None:
    telegram, fleet, timing = run.telegram, run.fleet, run.timing
    slices = _slices(questions, 12)

    run.at("a week-old update_id: its first message")
    reuse_first = factory.text(REUSE_CHAT, "SKU-7890 재고 있나요?").model_dump(
        mode="json", exclude_unset=True
    )
    reuse_id = int(reuse_first["update_id"])
    run.feed.deliver(reuse_first)
    await _until(
        run, "the first message of the reused update_id answered", lambda: _answers(telegram, REUSE_CHAT), 60
    )
    run.notes["reuse_backdated"] = await _backdate(run.database_url, reuse_id, days=7)

    run.at("the return form, up to its confirmation")
    confirm = await _return_walk(run, factory)
    if confirm is None:
        run.skipped.append("return confirmation delivered several times (the form offered no confirmation)")
    confirms = [confirm] if confirm is not None else []
    run.notes["return_confirmation"] = confirm is not None

    run.at("Telegram refuses a share of sends")
    telegram.send_fault_rate = telegram.draft_fault_rate = 0.3
    await _stream(run, slices[0], 2.0)

    run.at("database outage")
    async with _database_down(run):
        await _stream(run, slices[1], timing.outage)

    run.at("a lock held past the lock timeout")
    async with held_lock(run.database_url, table="products"):
        await _stream(run, slices[2], timing.lock)
    redelivered = run.rng.sample(
        [q.update for q in questions[: sum(map(len, slices[:3]))]], max(1, len(questions) // 20)
    )
    run.feed.deliver(*redelivered, *confirms, *confirms)
    run.notes["redelivered"] = len(redelivered) + 2 * len(confirms)

    if run.proxy is not None:
        run.at("Redis frozen")
        run.proxy.freeze()
        await _stream(run, slices[3], timing.redis)
        run.at("Redis refusing")
        await run.proxy.refuse()
        await _stream(run, slices[4], timing.redis)
        await run.proxy.restore()
    else:
        run.feed.deliver(*(q.update for q in slices[3] + slices[4]))

    kills = 1 if run.args.quick else 3
    for kill in range(kills):
        run.at(f"SIGKILL {kill + 1} of {kills} with a reply in flight")
        run.feed.deliver(*(q.update for q in slices[5 + kill]))
        await _kill_in_flight(run, run.lone_question(factory, KILL_CHAT + kill, SKUS[kill]))
    run.feed.deliver(*(q.update for part in slices[5 + kills : 8] for q in part))

    if run.small_fs is not None:
        run.at("journal on a nearly full file system, database down")
        run.small_fs.fill(leave=8 * 1024)
        async with _database_down(run):
            await _stream(run, slices[8], timing.outage)
        run.at("journal on a full file system, database down")
        run.small_fs.fill(leave=0)
        async with _database_down(run):
            await _stream(run, slices[9], timing.outage)
        run.small_fs.empty()
    else:
        run.feed.deliver(*(q.update for q in slices[8] + slices[9]))

    run.at("flood wait on one chat, then on every chat")
    flooded = run.lone_question(factory, FLOOD_CHAT, "SKU-2045")
    telegram.flood_chats[flooded.chat_id] = time.monotonic() + timing.flood_chat
    run.feed.deliver(flooded.update)
    half = len(slices[10]) // 2
    await _stream(run, slices[10][:half], timing.flood_overlap)
    telegram.flood_all_until = time.monotonic() + timing.flood_all
    await _stream(run, slices[10][half:], timing.flood_all / 2)
    if run.args.quick:  # a start takes tens of seconds on a busy machine: one restart (the kill's) only
        run.skipped.append("SIGTERM then restart (--quick: the SIGKILL's restart only)")
    else:
        run.at("SIGTERM and restart, during the flood wait")
        victim = fleet.instances[-1]
        run.notes["exit_code_at_sigterm"] = await fleet.restart(victim, signal.SIGTERM)
    run.feed.deliver(*(q.update for q in slices[11]), *confirms)

    run.at("the reused update_id a week later")
    reuse_second = factory.text(REUSE_CHAT, "SKU-1204 재고 있나요?", update_id=reuse_id)
    second = reuse_second.model_dump(mode="json", exclude_unset=True, by_alias=True)
    # The week is the database's (the first row is dated back); the message is dated now, later than the first.
    second["message"]["date"] = max(int(time.time()), int(reuse_first["message"]["date"]) + 1)
    run.feed.deliver(second)
    run.notes["reused_update_id"] = reuse_id

    await asyncio.sleep(
        max(0.0, max(telegram.flood_all_until, *telegram.flood_chats.values()) - time.monotonic())
    )
    telegram.send_fault_rate = telegram.draft_fault_rate = 0.0
    telegram.flood_chats.clear()
    run.last_fault_end = time.monotonic()


def _slices(items: list[Question], count: int) -> list[list[Question]]:
    size, extra = divmod(len(items), count)
    slices, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        slices.append(items[start:end])
        start = end
    return slices


def _extras() -> dict[str, str]:
    """The texts that are never an answer, by their text key."""
    texts = {t(key, language): key for key in APOLOGY_KEYS for language in LANGUAGES}
    texts.update({t("too_long", language, limit=TELEGRAM_LIMIT): "too_long" for language in LANGUAGES})
    return texts


def _count(run: Run, questions: list[Question], rows: list[InboundMessage], returns: int) -> dict[str, Any]:
    telegram = run.telegram
    by_chat: dict[int, list[Question]] = defaultdict(list)
    questions = questions + run.extra_questions
    for question in questions:
        by_chat[question.chat_id].append(question)
    reuse_id = run.notes.get("reused_update_id")
    reuse = Question({}, reuse_id if reuse_id is not None else -1, REUSE_CHAT, 1, "SKU-1204")
    reuse_first = Question({}, reuse.update_id, REUSE_CHAT, 0, "SKU-7890")
    by_chat[REUSE_CHAT] = [reuse_first, reuse]
    deliveries: Counter[tuple[int, str]] = Counter()
    first_at: dict[tuple[int, str], float] = {}
    extras: Counter[str] = Counter()
    apologies = _extras()
    for sent in telegram.delivered:
        found = ANSWER_SKU.search(sent.text)
        if found is None:
            key = apologies.get(sent.text, "other")
            extras[key] += 1
            continue
        deliveries[(sent.chat_id, found.group(1))] += 1
        first_at.setdefault((sent.chat_id, found.group(1)), sent.at)
    unanswered, duplicated, out_of_order = [], [], []
    for chat, asked in by_chat.items():
        for question in asked:
            times = deliveries[(chat, question.sku)]
            if times == 0:
                unanswered.append(question)
            elif times > 1:
                duplicated.append(question)
        arrival = sorted((first_at[(chat, q.sku)], q.index) for q in asked if (chat, q.sku) in first_at)
        if [index for _, index in arrival] != sorted(index for _, index in arrival):
            out_of_order.append(chat)
    stored_ids = {row.update_id for row in rows}
    lost = [q for q in questions if q.update_id not in stored_ids]
    if reuse_id is not None and not any(
        row.update_id == reuse_id and "SKU-1204" in (row.text or "") for row in rows
    ):
        lost.append(reuse)
    confirmation = 1 if run.notes.get("return_confirmation") else 0
    unfiled = int(confirmation and returns == 0)  # the customer confirmed the return; nothing was filed
    real_answers = [sent.at for sent in telegram.delivered if ANSWER_SKU.search(sent.text)]
    by_update = {row.update_id: row for row in rows}
    report: dict[str, Any] = {
        "mode": "3 webhook instances" if run.fleet.webhook else "1 polling process",
        **run.notes,
        "sends_refused": dict(sorted(telegram.refused.items())),
        "extra_messages": dict(sorted(extras.items())),
        "statuses": dict(Counter(row.status for row in rows)),
        "return_requests": returns,
        "recovery_s": round(max(real_answers, default=run.last_fault_end) - run.last_fault_end, 1)
        if run.last_fault_end
        else "the faults did not end",
    }
    if unfiled:
        report["unanswered return confirmation"] = "confirmed, but no return request was filed"
    for question in unanswered[:5]:
        row = by_update.get(question.update_id)
        report[f"unanswered #{question.update_id} chat {question.chat_id} {question.sku}"] = (
            f"{row.status} attempts={row.attempts} {(row.error or row.status_reason or '')[:80]}"
            if row is not None
            else "no inbound row"
        )
    for question in duplicated[:5]:
        row = by_update.get(question.update_id)
        report[f"duplicated #{question.update_id} chat {question.chat_id}"] = (
            f"{deliveries[(question.chat_id, question.sku)]} times, attempts={row.attempts if row else '?'}"
        )
    for chat in out_of_order[:3]:
        report[f"out of order chat {chat}"] = " ".join(
            f"{q.sku}@{first_at[(chat, q.sku)] - run.last_fault_end:+.1f}s"
            if (chat, q.sku) in first_at
            else f"{q.sku}@never"
            for q in by_chat[chat]
        )
    report.update(
        {
            "updates": len(questions) + 2 + confirmation,  # with the reused update_id's two messages
            "lost": len(lost),
            "unanswered": len(unanswered) + unfiled,
            "duplicated": len(duplicated) + max(0, returns - 1),
            "out_of_order": len(out_of_order),
            "kills": run.kills,
        }
    )
    return report


def _redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


async def run(args: argparse.Namespace) -> dict[str, Any]:
    timing = Timing()
    if args.quick:
        timing = Timing(
            outage=1.5,
            lock=1.0,
            redis=1.5,
            flood_chat=5.0,
            flood_all=4.0,
            flood_overlap=2.0,
            settle=180.0,  # ends as soon as every answer is in: a bound for a stuck run, not a pace
            deadline=float(os.environ.get("BENCH_DEADLINE", "600")),
        )
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="csbot-faults-"))
    database_url = await fresh_database(args.database_url, workdir, name="faults")
    seeded = await build_app(Settings(database_url=database_url, _env_file=None), seed=True)  # type: ignore[call-arg]
    await seeded.close()
    webhook = database_url.startswith("postgresql")
    skipped = (
        [] if webhook else ["3 webhook instances (SQLite is one process's file: one polling process runs)"]
    )
    environment = {
        "CSBOT_DATABASE_URL": database_url,
        "CSBOT_SHUTDOWN_TIMEOUT": "2",
        "CSBOT_UPDATE_TIMEOUT": "5",
        "CSBOT_MAX_ATTEMPTS": "8",
        "CSBOT_DB_LOCK_TIMEOUT_MS": "300",
        "CSBOT_REDIS_TIMEOUT": "1",
        "CSBOT_LOG_LEVEL": os.environ.get("BENCH_CHILD_LOG", "WARNING"),
    }
    proxy = None
    if _redis_answers():
        proxy = RedisProxy()
        environment["CSBOT_REDIS_URL"] = await proxy.start()
        environment["CSBOT_REDIS_PREFIX"] = f"faults-{uuid.uuid4().hex}"
    else:
        skipped.append("Redis frozen and refusing (no Redis at 127.0.0.1:6379)")
    small_fs, why = SmallFileSystem.mount(workdir / "journal-fs")
    if small_fs is None:
        skipped.append(f"journal on a nearly full and a full file system ({why})")
    journal_dir = small_fs.path if small_fs is not None else workdir
    telegram = FakeBotAPI(rng=rng, slow_seconds=60)
    await telegram.start()
    fleet = Fleet(telegram, workdir, environment, webhook, journal_dir)
    feed: WebhookTelegram | PollingTelegram = WebhookTelegram(fleet) if webhook else PollingTelegram(telegram)
    bench = Run(args, timing, rng, telegram, fleet, feed, database_url, proxy, small_fs, skipped)
    factory = UpdateFactory(first_update_id=10_000)
    questions = _script(factory, args.updates, rng)
    started = time.monotonic()
    stuck = None
    try:
        async with asyncio.timeout(timing.deadline):
            try:
                for _ in range(3 if webhook else 1):
                    await fleet.add()
                await asyncio.gather(*(fleet.wait_ready(instance) for instance in fleet.instances))
                await _faults(bench, questions, factory)
                bench.at("calm: waiting for every answer")
                expected = {(q.chat_id, q.sku) for q in questions + bench.extra_questions}
                expected.add((REUSE_CHAT, "SKU-1204"))
                with contextlib.suppress(Stuck):
                    await _until(
                        bench,
                        "every answer",
                        lambda: (
                            expected
                            <= {
                                (s.chat_id, m.group(1))
                                for s in telegram.delivered
                                if (m := ANSWER_SKU.search(s.text))
                            }
                        ),
                        timing.settle,
                    )
                await asyncio.sleep(1.0)  # a repeat right behind the last answer is counted too
            except Stuck as error:
                stuck = str(error)
    except TimeoutError:
        stuck = f"overall deadline of {timing.deadline:.0f} s passed at step: {bench.step}"
    finally:
        bench.at("stopping")
        await feed.close()
        codes = await asyncio.gather(*(fleet.stop(instance) for instance in fleet.instances))
        await telegram.close()
        if proxy is not None:
            await proxy.close()
        if small_fs is not None:
            small_fs.unmount()
    engine = create_engine(database_url)
    try:
        async with AsyncSession(engine) as db:
            rows = list((await db.exec(select(InboundMessage).where(InboundMessage.bot_id == BOT_ID))).all())
            returns = int((await db.exec(select(func.count()).select_from(ReturnRequest))).one())
    finally:
        await engine.dispose()
    report = _count(bench, questions, rows, returns)
    bench.at("counted")
    report["step_seconds"] = bench.step_seconds
    report["exit_codes_at_end"] = codes
    if isinstance(feed, WebhookTelegram):
        report["webhook_posts"] = feed.posts
        report["webhook_posts_refused"] = feed.refusals
        if feed.errors:
            report["stuck"] = f"webhook posting failed: {feed.errors[:3]}"
    report["seconds"] = round(time.monotonic() - started)
    if stuck is not None:
        report["stuck"] = stuck
        for instance in fleet.instances:
            report[f"log tail of instance {instance.index}"] = Fleet.tail(instance, 5)
    report["skipped"] = skipped
    return report


def failed(report: dict[str, Any]) -> bool:
    return bool(
        report["lost"]
        or report["unanswered"]
        or report["out_of_order"]
        or report["duplicated"] > report["kills"]
        or "stuck" in report
    )


def render(report: dict[str, Any]) -> list[str]:
    last = ("updates", "lost", "unanswered", "duplicated", "out_of_order", "kills")
    lines = [f"{key}: {value}" for key, value in report.items() if key not in (*last, "skipped")]
    if report["skipped"]:
        lines.append("skipped: " + "; ".join(report["skipped"]))
    lines.append(" ".join(f"{key}={report[key]}" for key in last))
    return lines


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--updates", type=int, default=300)
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL (default: a fresh SQLite file)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="short fault windows, for a test")
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    logging.basicConfig(
        level=getattr(logging, os.environ.get("BENCH_LOG", "CRITICAL")), format="%(asctime)s %(message)s"
    )  # the faults are deliberate: their log lines are noise unless BENCH_LOG asks for them
    report = asyncio.run(run(args))
    print("\n".join(render(report)))
    sys.exit(1 if failed(report) else 0)


if __name__ == "__main__":
    main()
