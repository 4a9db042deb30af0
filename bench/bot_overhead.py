"""The bot's own cost per update: csbot vs bare aiogram vs bare aiogram + one insert-and-commit.

Drives the same text updates (many users, FAQ and stock questions; the embedded
default streams FAQ text, no LLM) through three dispatchers in one run, on one
database, through the same recording Telegram session:

- **csbot**: the real dispatcher (inbox, FSM, classification, answer, log);
- **bare aiogram**: a Dispatcher whose one handler only replies;
- **storage floor**: the bare one plus one INSERT and COMMIT per update on the
  same database: what a bot that stores each update cannot go below.

Each runs sequentially (one update after the other) and with 50 updates in
flight from distinct chats. Prints the table, the SQL statements and commits
csbot issues per update, and last:
`updates_per_s=<csbot sequential> p99_ms=<its p99> floor_ratio=<floor updates/s / csbot updates/s>`.
Figures from one run are only comparable with each other (the machine is shared).

    .venv/bin/python -m bench.bot_overhead [--updates 2000] [--users 200] [--concurrency 50]
        [--database-url postgresql+asyncpg://...  (its schema is dropped and recreated)]
        [--profile out.prof  (cProfile of csbot's sequential run)]
        [--phases  (one more sequential csbot run: ms per update in each phase, bench/phase_timer.py)]
        [--distinct  (no text repeats within 600 updates: every message is encoded, as customers' are)]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import logging
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiogram import Bot, Dispatcher, Router
from aiogram.types import Message, Update
from sqlalchemy import BigInteger, Column, Integer, MetaData, Table, Text, event, insert
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.databases import fresh_database
from bench.phase_timer import render as render_phases
from bench.phase_timer import timing_phases
from bot.app import App, build_app
from bot.dispatcher import create_bot
from bot.fake_updates import UpdateFactory
from bot.heap import settle_heap
from bot.recording_session import LOCAL_BOT_TOKEN, RecordingSession
from services.admin.figures import percentile
from services.settings import Settings

QUESTIONS = (
    "What payment methods do you accept?",
    "배송은 얼마나 걸려요?",
    "SKU-7890 재고 있나요?",
    "환불 규정 알려주세요",
    "How long does shipping take?",
    "Is SKU-1204 in stock?",
)
OPENINGS = (
    "",
    "Hi, ",
    "Hello! ",
    "Quick question: ",
    "안녕하세요, ",
    "Excuse me, ",
    "Sorry to bother you, ",
    "Hey, ",
    "Good morning. ",
    "저기요, ",
)
CLOSINGS = (
    "",
    " Thanks.",
    " Please.",
    " Thank you!",
    " 감사합니다.",
    " Thanks a lot.",
    " 부탁드려요.",
    " Asking for a friend.",
    " I'm in a hurry.",
    " Cheers.",
)
"""With `--distinct`, each question is framed by an opening and a closing: 600 texts before any
repeats, so the sentence encoder's cache of recent texts (256) never answers, as with real customers."""
FIRST_USER = 810_000_000
FLOOR_TABLE = Table(
    "bench_storage_floor",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("update_id", BigInteger, nullable=False),
    Column("chat_id", BigInteger),
    Column("text", Text),
    Column("raw_update", Text),
)
"""What the storage floor writes per update: the update itself, in a table of its own."""


@dataclass(frozen=True)
class Run:
    updates_per_s: float
    latencies_ms: list[float]
    cpu_ms: float
    """Process CPU time per update (every thread, the database driver's included): on a shared
    machine it moves far less with the neighbours' load than the wall-clock figures do."""

    def percentile(self, share: float) -> float:
        return percentile(self.latencies_ms, share) or 0.0

    def cell(self) -> str:
        return f"{self.percentile(0.5):.2f} / {self.percentile(0.95):.2f} / {self.percentile(0.99):.2f}"


Feed = Callable[[Update], Awaitable[Any]]


async def measure(feed: Feed, updates: Sequence[Update], concurrency: int) -> Run:
    """Feed every update; `concurrency` at a time, taken in order (consecutive updates, distinct chats)."""
    latencies: list[float] = []
    queue = iter(updates)

    async def worker() -> None:
        for update in queue:
            started = time.perf_counter()
            await feed(update)
            latencies.append((time.perf_counter() - started) * 1000)

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    return Run(len(updates) / elapsed, latencies, cpu * 1000 / len(updates))


def bare_dispatcher() -> Dispatcher:
    router = Router()

    @router.message()
    async def reply(message: Message) -> None:
        await message.answer("ok", parse_mode=None)

    dispatcher = Dispatcher()
    dispatcher.include_router(router)
    return dispatcher


def floor_feed(dispatcher: Dispatcher, bot: Bot, engine: AsyncEngine) -> Feed:
    """Bare aiogram plus one INSERT and COMMIT of the update, as a bot that stores each one must."""

    async def feed(update: Update) -> Any:
        message = update.message
        assert message is not None
        async with engine.begin() as connection:
            await connection.execute(
                insert(FLOOR_TABLE).values(
                    update_id=update.update_id,
                    chat_id=message.chat.id,
                    text=message.text or "",
                    raw_update=update.model_dump_json(exclude_unset=True),
                )
            )
        return await dispatcher.feed_update(bot, update)

    return feed


class StatementCounter:
    """SQL statements and commits the engine sees (the round trips an update costs)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.statements = 0
        self.commits = 0
        self.connections = 0
        event.listen(engine.sync_engine, "before_cursor_execute", self._statement)
        event.listen(engine.sync_engine, "commit", self._commit)
        event.listen(engine.sync_engine, "checkout", self._checkout)

    def _statement(self, *_: Any) -> None:
        self.statements += 1

    def _commit(self, *_: Any) -> None:
        self.commits += 1

    def _checkout(self, *_: Any) -> None:
        self.connections += 1

    def snapshot(self) -> tuple[int, int, int]:
        return self.statements, self.commits, self.connections


def texts(count: int, *, distinct: bool) -> list[str]:
    """The six questions in turn; with `distinct`, framed so no text repeats within 600 updates."""
    if not distinct:
        return [QUESTIONS[index % len(QUESTIONS)] for index in range(count)]
    framed = [
        f"{opening}{question}{closing}"
        for closing in CLOSINGS
        for opening in OPENINGS
        for question in QUESTIONS
    ]
    return [framed[index % len(framed)] for index in range(count)]


def script(
    count: int, users: int, factory: UpdateFactory, bot: Bot | None = None, *, distinct: bool = False
) -> list[Update]:
    """Round robin over users: any `users` consecutive updates come from distinct chats.

    With `bot`, each update is parsed with that bot in its context, as aiogram's polling and
    webhook parse them; else the dispatcher re-parses every update (a JSON round trip) to
    attach the bot, a cost no serving process pays.
    """
    updates = [
        factory.text(FIRST_USER + index % users, text)
        for index, text in enumerate(texts(count, distinct=distinct))
    ]
    if bot is None:
        return updates
    return [
        Update.model_validate(update.model_dump(mode="json", exclude_unset=True), context={"bot": bot})
        for update in updates
    ]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="csbot-overhead-"))
    database_url = await fresh_database(args.database_url, workdir, name="overhead")
    settings = Settings(
        database_url=database_url,
        journal_path=str(workdir / "journal.jsonl"),
        _env_file=None,  # type: ignore[call-arg]
    )
    app: App = await build_app(settings, seed=True)
    async with app.engine.begin() as connection:
        await connection.run_sync(FLOOR_TABLE.metadata.create_all)
    settle_heap()  # as `csbot run` does once started
    factory = UpdateFactory(first_update_id=1_000)
    csbot_bot = create_bot(LOCAL_BOT_TOKEN, session=RecordingSession())
    bare_bot = Bot(LOCAL_BOT_TOKEN, session=RecordingSession())
    bare, floor = bare_dispatcher(), bare_dispatcher()
    counter = StatementCounter(app.engine)

    async def csbot(update: Update) -> Any:
        return await app.dispatcher.feed_update(csbot_bot, update)

    async def bare_feed(update: Update) -> Any:
        return await bare.feed_update(bare_bot, update)

    feeds: dict[str, Feed] = {
        "csbot": csbot,
        "bare": bare_feed,
        "floor": floor_feed(floor, bare_bot, app.engine),
    }
    bots = {"csbot": csbot_bot, "bare": bare_bot, "floor": bare_bot}
    for name, feed in feeds.items():  # warm-up: indexes, pools, first-call imports
        await measure(feed, script(20, 20, factory, bots[name]), 1)
    results: dict[str, dict[str, Run]] = {"sequential": {}, "concurrent": {}}
    per_update: dict[str, tuple[float, ...]] = {}
    try:
        for mode, concurrency in (("sequential", 1), ("concurrent", args.concurrency)):
            for name, feed in feeds.items():
                updates = script(args.updates, args.users, factory, bots[name], distinct=args.distinct)
                before = counter.snapshot()
                profiler = (
                    cProfile.Profile() if args.profile and name == "csbot" and concurrency == 1 else None
                )
                if profiler is not None:
                    profiler.enable()
                results[mode][name] = await measure(feed, updates, concurrency)
                if profiler is not None:
                    profiler.disable()
                    profiler.dump_stats(args.profile)
                if name == "csbot":
                    after = counter.snapshot()
                    per_update[mode] = tuple(
                        (b - a) / len(updates) for a, b in zip(before, after, strict=True)
                    )
        phases: list[str] = []
        if args.phases:  # a run of its own: the timers' cost stays out of the table above
            updates = script(args.updates, args.users, factory, csbot_bot, distinct=args.distinct)
            with timing_phases() as spent:
                await measure(csbot, updates, 1)
            phases = render_phases(spent, len(updates))
    finally:
        await app.close()
    return {
        "backend": "PostgreSQL" if database_url.startswith("postgresql") else "SQLite",
        "results": results,
        "per_update": per_update,
        "updates": args.updates,
        "users": args.users,
        "concurrency": args.concurrency,
        "distinct": args.distinct,
        "phases": phases,
    }


def render(report: dict[str, Any]) -> list[str]:
    backend, results = report["backend"], report["results"]
    lines = [
        f"{report['updates']} text updates from {report['users']} users per run, recording Telegram session, "
        f"no LLM; {backend}; {'distinct texts' if report['distinct'] else 'six questions in turn'}",
        "",
        "| run | csbot updates/s | csbot p50 / p95 / p99 ms | bare aiogram updates/s "
        "| storage floor updates/s | floor p99 ms | bare/csbot | floor/csbot "
        "| CPU ms/update csbot / bare / floor |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, label in (("sequential", "sequential"), ("concurrent", f"{report['concurrency']} concurrent")):
        csbot, bare, floor = (results[mode][name] for name in ("csbot", "bare", "floor"))
        lines.append(
            f"| {backend}, {label} | {csbot.updates_per_s:,.0f} | {csbot.cell()} | {bare.updates_per_s:,.0f} "
            f"| {floor.updates_per_s:,.0f} | {floor.percentile(0.99):.2f} "
            f"| {bare.updates_per_s / csbot.updates_per_s:.1f}x | {floor.updates_per_s / csbot.updates_per_s:.1f}x "
            f"| {csbot.cpu_ms:.2f} / {bare.cpu_ms:.2f} / {floor.cpu_ms:.2f} |"
        )
    lines.append("")
    for mode, label in (("sequential", "sequential"), ("concurrent", f"{report['concurrency']} concurrent")):
        statements, commits, connections = report["per_update"][mode]
        lines.append(
            f"csbot per update ({label}): {statements:.2f} SQL statements, {commits:.2f} commits, "
            f"{connections:.2f} connection checkouts"
        )
    if report["phases"]:
        lines += ["", "csbot sequential, a run of its own with each phase timed:", *report["phases"]]
    sequential = results["sequential"]
    lines.append(
        f"updates_per_s={sequential['csbot'].updates_per_s:.1f} "
        f"p99_ms={sequential['csbot'].percentile(0.99):.2f} "
        f"floor_ratio={sequential['floor'].updates_per_s / sequential['csbot'].updates_per_s:.2f}"
    )
    return lines


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--updates", type=int, default=2000, help="updates per run (default 2000)")
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument(
        "--database-url", default=None, help="PostgreSQL URL; its schema is dropped (default: fresh SQLite)"
    )
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="no text repeats within 600 updates (default: six questions in turn, so the sentence "
        "encoder's cache always answers)",
    )
    parser.add_argument("--profile", default=None, help="write a cProfile of csbot's sequential run here")
    parser.add_argument(
        "--phases", action="store_true", help="one more sequential csbot run, timing each phase of an update"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=logging.CRITICAL)  # per-update log lines would be most of the cost
    report = asyncio.run(run(args))
    print("\n".join(render(report)))


if __name__ == "__main__":
    main()
