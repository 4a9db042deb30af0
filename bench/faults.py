"""Fault bench: are customer messages lost, left unanswered or answered twice under faults?

Drives N updates from many users through csbot's own polling loop (`bot.serving.serve`:
store, then confirm, then handle, 50 at a time) against a fake Telegram that
re-delivers whatever was not confirmed, with a real database (SQLite by default,
`--database-url` for PostgreSQL), while injecting in one run:

- Telegram 429 (with retry_after) and 500 on 30% of sendMessage calls, and
  failures of sendMessageDraft (the streaming preview);
- a database outage of a few seconds (PostgreSQL refuses connections and drops
  open ones; an embedded SQLite file cannot go away, so its write lock is held);
- a lock held longer than the busy/lock timeout;
- re-delivered updates, NUL bytes and 10,000-character texts;
- a SIGTERM (a real signal to this process) in the middle, then a restart on the
  same database and the same fake Telegram;
- a return request whose confirmation is delivered several times.

When faults stop, Telegram accepts sends again and the restarted process's
inbox worker gets its chance; then every update is checked:
lost = no inbound row; unanswered = the customer got neither an answer nor an
apology; duplicated = answered by two different handling runs, or a return
request made twice. Last line: `updates=<N> lost=<n> unanswered=<n> duplicated=<n>`.

    .venv/bin/python -m bench.faults [--updates 1000] [--database-url postgresql://...]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import signal
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aiogram import Bot
from aiogram.methods import SendMessage, SendMessageDraft, TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import Update
from sqlmodel import func, select

from bench.databases import fresh_database
from bench.db_faults import database_outage, held_lock
from bot.app import App, build_app
from bot.config import Settings
from bot.dispatcher import create_bot
from bot.fake_updates import UpdateFactory
from bot.inbox_worker import InboxWorker
from bot.middlewares.telegram_retry import TelegramRetryMiddleware
from bot.recording_session import LOCAL_BOT_TOKEN, QueuedResponse, RecordingSession
from bot.serving import serve
from db.models import InboundMessage, ReturnRequest
from services.conversation_log import current_interaction
from services.inbox import STORAGE_ERRORS
from services.texts import t
from services.update_context import current_update

DEMO_USER_ID = 700_000_001
APOLOGY_KEYS = ("received_later", "internal_error")
QUESTIONS = [
    "SKU-7890 재고 있나요?",
    "where is my order?",
    "What payment methods do you accept?",
    "배송은 얼마나 걸려요?",
    "hello",
    "주문 20240115-001234 배송 조회",
    "Is the merino sweater in stock?",
    "환불 규정 알려주세요",
]


@dataclass
class Delivery:
    update_id: int
    attempt: int
    text: str


class FakeTelegram(RecordingSession):
    """Telegram as the bot sees it, with 429/500 on a share of sends and failing previews."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng
        self.send_fault_rate = 0.0
        self.draft_fault_rate = 0.0
        self.delivered: list[Delivery] = []
        """Every sendMessage Telegram accepted, with the update (and handling run) it answered."""
        self.refused: Counter[str] = Counter()

    def next_fault(self, method: TelegramMethod[Any]) -> QueuedResponse | None:
        rate = self.draft_fault_rate if isinstance(method, SendMessageDraft) else self.send_fault_rate
        if not isinstance(method, (SendMessage, SendMessageDraft)) or self.rng.random() >= rate:
            return super().next_fault(method)
        if self.rng.random() < 0.5:
            self.refused["429"] += 1
            payload = {"ok": False, "error_code": 429, "description": "Too Many Requests: retry after 1"}
            return QueuedResponse(None, 429, {**payload, "parameters": {"retry_after": 1}})
        self.refused["500"] += 1
        return QueuedResponse(
            None, 500, {"ok": False, "error_code": 500, "description": "Internal Server Error"}
        )

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109  # aiogram's signature
    ) -> TelegramType:
        result = await super().make_request(bot, method, timeout)
        if isinstance(method, SendMessage):
            update = current_update.get()
            interaction = current_interaction.get()
            if update is not None:
                attempt = interaction.attempt if interaction is not None else 0
                self.delivered.append(Delivery(update.update_id, attempt, method.text))
        return result


def _script(updates: UpdateFactory, count: int, users: int, rng: random.Random) -> list[Update]:
    script = []
    for index in range(count):
        user_id = 800_000_000 + index % users if index % 10 else DEMO_USER_ID
        question = QUESTIONS[index % len(QUESTIONS)]
        roll = rng.random()
        if roll < 0.02:
            question = question.replace(" ", " \x00 ", 1)
        elif roll < 0.03:
            question = question + " " + "가" * 10_000
        script.append(updates.text(user_id, question))
    return script


async def _return_flow(app: App, bot: Bot, session: FakeTelegram, updates: UpdateFactory) -> list[Update]:
    """Walk the demo customer through a return with faults off; return the confirming callback."""
    saved = session.send_fault_rate
    session.send_fault_rate = 0.0
    try:
        calls_before = len(session.requests)
        await app.dispatcher.feed_update(bot, updates.text(DEMO_USER_ID, "/return"))
        for _ in range(6):
            markup = [getattr(call, "reply_markup", None) for call in session.requests[calls_before:]]
            buttons = [
                button.callback_data
                for keyboard in markup
                if keyboard is not None and hasattr(keyboard, "inline_keyboard")
                for row in keyboard.inline_keyboard
                for button in row
                if button.callback_data
            ]
            if not buttons:
                break
            callback = updates.callback(DEMO_USER_ID, buttons[0])
            calls_before = len(session.requests)
            await app.dispatcher.feed_update(bot, callback)
            if "confirm" in (buttons[0] or ""):
                return [callback]
        return []
    finally:
        session.send_fault_rate = saved


async def _count(app: App, model: type[Any]) -> int:
    async with app.session_factory() as db:
        return int((await db.exec(select(func.count()).select_from(model))).one())


async def run(args: argparse.Namespace) -> dict[str, int]:
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="csbot-faults-"))
    database_url = await fresh_database(args.database_url, workdir, name="faults")
    settings = Settings(
        database_url=database_url,
        journal_path=str(workdir / "journal.jsonl"),
        db_lock_timeout_ms=300,
        update_timeout=15.0,
        max_attempts=8,
        _env_file=None,  # type: ignore[call-arg]
    )
    telegram = FakeTelegram(rng=rng)
    updates = UpdateFactory()
    script = _script(updates, args.updates, args.users, rng)
    redelivered = rng.sample(script, max(1, len(script) // 20))
    marks = {
        name: int(len(script) * share) for name, share in (("outage", 0.2), ("lock", 0.4), ("sigterm", 0.6))
    }
    report: Counter[str] = Counter()
    started = time.monotonic()

    async def run_instance(app: App, bot: Bot) -> int:
        app.inbox.policy = replace(app.inbox.policy, retry_base=0.2)
        append = app.inbox.journal.append

        async def counted(record: dict[str, Any]) -> None:
            report[f"journaled_{record.get('type', '?')}s"] += 1
            await append(record)

        app.inbox.journal.append = counted  # type: ignore[method-assign]
        return await serve(app.dispatcher, bot, concurrency=args.concurrency, shutdown_timeout=1.0)

    async def stored_at_least(app: App, count: int) -> None:
        while await _count(app, InboundMessage) < count:  # noqa: ASYNC110  # the bot under test has no event for it
            await asyncio.sleep(0.05)

    app = await build_app(settings, seed=True)
    bot = create_bot(LOCAL_BOT_TOKEN, session=telegram, retry=TelegramRetryMiddleware(budget=20.0))
    confirm = await _return_flow(app, bot, telegram, updates)  # ids before the script's, as in time
    script = _script(updates, args.updates, args.users, rng)
    redelivered = rng.sample(script[: marks["sigterm"]], max(1, len(script) // 20))  # Telegram repeats
    base_rows = await _count(app, InboundMessage)
    telegram.send_fault_rate, telegram.draft_fault_rate = 0.3, 0.3
    telegram.deliver(*script[: marks["sigterm"]], *confirm, *confirm)
    serving = asyncio.create_task(run_instance(app, bot))

    await asyncio.wait_for(stored_at_least(app, base_rows + marks["outage"]), 120)
    async with database_outage(database_url):
        report["outage_s"] = 3
        await asyncio.sleep(3)
    await asyncio.wait_for(stored_at_least(app, base_rows + marks["lock"]), 120)
    async with held_lock(database_url, table="products"):
        await asyncio.sleep(1.5)
    telegram.deliver(*redelivered[: len(redelivered) // 2], *confirm)
    await asyncio.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)
    report["exit_code_at_sigterm"] = await serving
    await app.close()

    app = await build_app(settings)  # the restart: same database, same journal, same Telegram
    telegram.deliver(*script[marks["sigterm"] :], *redelivered[len(redelivered) // 2 :], *confirm)
    serving = asyncio.create_task(run_instance(app, bot))
    await asyncio.wait_for(stored_at_least(app, base_rows + len(script)), 300)
    await asyncio.sleep(2.0)
    telegram.send_fault_rate = telegram.draft_fault_rate = 0.0  # Telegram accepts sends again
    worker = InboxWorker(app.dispatcher, bot)
    for _ in range(200):
        async with app.session_factory() as db:
            waiting = (
                await db.exec(
                    select(func.count())
                    .select_from(InboundMessage)
                    .where(InboundMessage.status == "received")
                )
            ).one()
        if not waiting and not app.inbox.journal.pending():
            break
        with contextlib.suppress(*STORAGE_ERRORS):  # as InboxWorker.run does: the next pass tries again
            await worker.run_once()
        await asyncio.sleep(0.3)
    os.kill(os.getpid(), signal.SIGTERM)
    report["exit_code_at_end"] = await serving

    async with app.session_factory() as db:
        rows = (await db.exec(select(InboundMessage))).all()
        returns = int((await db.exec(select(func.count()).select_from(ReturnRequest))).one())
    await app.close()

    stored = {row.update_id for row in rows}
    for error, count in Counter(
        (row.error or "")[:90] for row in rows if row.status != "answered"
    ).most_common(5):
        report[f"failed: {error}"] = count
    statuses = Counter(row.status for row in rows)
    apologies = {t(key, language) for key in APOLOGY_KEYS for language in ("ko", "en")}
    answered_by: dict[int, set[int]] = defaultdict(set)
    reached: set[int] = set()
    for delivery in telegram.delivered:
        reached.add(delivery.update_id)
        if delivery.text not in apologies:
            answered_by[delivery.update_id].add(delivery.attempt)
    ids = [update.update_id for update in script]
    by_id = {row.update_id: row for row in rows}
    lost = sum(1 for update_id in ids if update_id not in stored)
    silent = [update_id for update_id in ids if update_id not in reached]
    unanswered = len(silent)
    for update_id in silent[:5]:
        row = by_id.get(update_id)
        report[
            f"unanswered #{update_id}: {row.status if row else 'no row'} {(row.error or '') if row else ''}"[
                :120
            ]
        ] = row.attempts if row else 0
    twice = [update_id for update_id in ids if len(answered_by[update_id]) > 1]
    duplicated = len(twice) + max(0, returns - 1)
    for error, count in Counter((by_id[u].error or "no error")[:90] for u in twice).most_common(5):
        report[f"answered twice: {error}"] = count
    report.update(
        {
            "updates": len(ids),
            "redelivered": len(redelivered) + 3 * len(confirm),
            "sends_refused_429": telegram.refused["429"],
            "sends_refused_500": telegram.refused["500"],
            "answered": statuses["answered"],
            "failed": statuses["failed"],
            "abandoned": statuses["abandoned"],
            "still_received": statuses["received"],
            "handled_more_than_once": sum(1 for row in rows if row.attempts > 1),
            "return_requests": returns,
            "seconds": round(time.monotonic() - started),
            "lost": lost,
            "unanswered": unanswered,
            "duplicated": duplicated,
        }
    )
    return dict(report)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=1000)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL (default: a fresh SQLite file)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(
        level=getattr(logging, os.environ.get("BENCH_LOG", "CRITICAL"))
    )  # the faults are deliberate: their log lines are noise here
    report = asyncio.run(run(args))
    width = max(len(key) for key in report)
    print(f"{'measure':<{width}}  value")
    for key, value in report.items():
        if key not in ("updates", "lost", "unanswered", "duplicated"):
            print(f"{key:<{width}}  {value}")
    print(
        f"updates={report['updates']} lost={report['lost']} "
        f"unanswered={report['unanswered']} duplicated={report['duplicated']}"
    )


if __name__ == "__main__":
    main()
