"""The local journal: a record is whole or refused, replay never blocks on one bad record, and
several processes share one journal file.

A nearly full disk is a shim around `os.write` that writes only what is left of a byte budget
on the journal's files and then fails with ENOSPC (as the kernel does), or a real file size
limit (RLIMIT_FSIZE) in a child process; the database outage is a real one (bench/db_faults.py).
"""

from __future__ import annotations

import asyncio
import errno
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from sqlalchemy.exc import OperationalError

from bench.db_faults import database_outage
from bot.app import App, build_app
from bot.serving import serve
from db.journal import Journal, JournalWriteError, decode, encode
from db.models import InboundMessage
from services.settings import Settings
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, OTHER_USER_ID, Harness, texts_to
from tests.journal_appender import appender
from tests.test_nothing_lost import STOCK_ANSWER_MARK, STOCK_QUESTION, _worker_pass, eventually
from tests.test_webhook import PATH, SECRET, webhook_server

_real_write = os.write


class NearlyFullDisk:
    """`os.write` on the journal's files (the journal, its quarantine, the probe) takes at most
    `free` more bytes: the write that reaches the limit is short, the next fails with ENOSPC.
    `free = None`: room again. `chunk` caps every write (a short write with room to spare)."""

    def __init__(self, journal: Path, free: int | None = None, chunk: int | None = None) -> None:
        self._prefix = str(journal)
        self.free = free
        self.chunk = chunk
        self.refused = 0

    def _ours(self, descriptor: int) -> bool:
        try:
            return os.readlink(f"/proc/self/fd/{descriptor}").startswith(self._prefix)
        except OSError:
            return False

    def write(self, descriptor: int, data: Any) -> int:
        if not self._ours(descriptor):
            return _real_write(descriptor, data)
        data = bytes(data)
        if self.chunk is not None:
            data = data[: self.chunk]
        if self.free is None:
            return _real_write(descriptor, data)
        if self.free <= 0:
            self.refused += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = _real_write(descriptor, data[: self.free])
        self.free -= written
        return written


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal.jsonl")


def disk(monkeypatch: pytest.MonkeyPatch, journal: Journal, **limits: int | None) -> NearlyFullDisk:
    shim = NearlyFullDisk(journal.path, **limits)
    monkeypatch.setattr(os, "write", shim.write)
    return shim


def lines_of(path: Path) -> list[dict[str, Any] | None]:
    return [decode(line)[0] for line in path.read_bytes().splitlines()]


def _update(update_id: int, text: str = "hello") -> dict[str, Any]:
    arrival = {
        "bot_id": 42,
        "update_id": update_id,
        "user_id": DEMO_USER_ID,
        "chat_id": DEMO_USER_ID,
        "kind": "text",
        "text": text,
        "raw": "{}",
    }
    return {"type": "update", "arrival": arrival}


# --- whole or refused -----------------------------------------------------------------------


async def test_a_short_write_is_continued_until_the_record_is_whole(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk(monkeypatch, journal, chunk=7)  # the kernel may write part of what it is given
    first, second = _update(1), _update(2, "a longer message, written seven bytes at a time")
    await journal.append(first)
    await journal.append(second)
    assert lines_of(journal.path) == [first, second]


async def test_a_disk_filling_up_mid_record_refuses_it_and_leaves_nothing_torn(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, third = _update(1), _update(2), _update(3)
    shim = disk(monkeypatch, journal, free=len(encode(first)) + 20)
    await journal.append(first)
    with pytest.raises(JournalWriteError) as refused:
        await journal.append(second)  # 20 bytes fit, the rest does not
    assert refused.value.errno == errno.ENOSPC and "nothing of the record was kept" in str(refused.value)
    assert journal.path.read_bytes() == encode(first), "cut back to its size before the append"
    assert journal.refusal is not None and await journal.check() is not None, "still full"

    shim.free = None  # room again
    assert await journal.check() is None and journal.refusal is None
    await journal.append(third)
    batch = await journal.read()
    assert [entry.record for entry in batch.entries] == [first, third]


async def test_a_full_disk_refuses_at_once(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    disk(monkeypatch, journal, free=0)
    with pytest.raises(JournalWriteError):
        await journal.append(_update(1))
    assert not journal.pending()


async def test_a_torn_or_damaged_record_is_refused_alone(journal: Journal) -> None:
    first, second, third = _update(1), _update(2), _update(3)
    await journal.append(first)
    damaged = encode(second).replace(b'"update_id":2', b'"update_id":9')  # still valid JSON
    with journal.path.open("ab") as file:
        file.write(damaged + encode(third)[:25])  # then a crash mid-append: no newline
    fourth = _update(4)
    await journal.append(fourth)  # starts on a line of its own
    batch = await journal.read()
    assert [entry.record for entry in batch.entries] == [first, None, None, fourth]
    assert [entry.problem for entry in batch.entries][1:3] == [
        "checksum mismatch: a torn or damaged record"
    ] * 2
    assert batch.entries[2].line == encode(third)[:25]


async def test_plain_json_lines_of_older_versions_are_still_read(journal: Journal) -> None:
    journal.path.write_text(json.dumps(_update(1)) + "\n")
    await journal.append(_update(2))
    assert [entry.record for entry in (await journal.read()).entries] == [_update(1), _update(2)]


_FILE_SIZE_LIMIT = """
import asyncio, json, resource, signal, sys
from pathlib import Path
from db.journal import Journal, JournalWriteError

async def main(path):
    journal = Journal(Path(path))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the kernel then fails the write with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, resource.RLIM_INFINITY))
    taken = 0
    try:
        while True:
            await journal.append({"type": "update", "n": taken, "pad": "x" * 150})
            taken += 1
    except JournalWriteError as error:
        refused = error.errno
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    await journal.append({"type": "update", "n": taken, "pad": "after"})
    print(json.dumps({"taken": taken, "refused": refused}))

asyncio.run(main(sys.argv[1]))
"""


def test_a_real_file_size_limit_is_a_short_write_then_a_refusal(tmp_path: Path) -> None:
    """RLIMIT_FSIZE: the kernel writes what fits below the limit, then refuses with EFBIG."""
    path = tmp_path / "journal.jsonl"
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_FILE_SIZE_LIMIT), str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["refused"] == errno.EFBIG and report["taken"] == 1000 // len(encode(_pad(0)))
    records = lines_of(path)
    assert [record and record["n"] for record in records] == list(range(report["taken"] + 1))


def _pad(n: int) -> dict[str, Any]:
    return {"type": "update", "n": n, "pad": "x" * 150}


# --- two processes, one journal ---------------------------------------------------------------


def test_two_processes_share_one_journal_without_losing_a_record(tmp_path: Path) -> None:
    """Both append as fast as they can; one also reads and discards now and then. Every record
    is either in what discard took or still in the journal, once."""
    path = tmp_path / "journal.jsonl"
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [
        context.Process(
            target=appender, args=(str(path), name, 1000, every, str(tmp_path / f"{name}.taken"), start)
        )
        for name, every in (("a", 0), ("b", 37))
    ]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    taken = [json.loads(line) for line in (tmp_path / "b.taken").read_text().splitlines()]
    left = asyncio.run(Journal(path).read()).entries
    assert all(entry.problem is None for entry in left)
    seen = [(record["by"], record["n"]) for record in [*taken, *(entry.record or {} for entry in left)]]
    assert sorted(seen) == sorted([("a", n) for n in range(1000)] + [("b", n) for n in range(1000)])
    assert taken, "the discards ran while the other process appended"
    for name in ("a", "b"):  # each process's records stay in their order
        assert [n for by, n in seen if by == name] == list(range(1000))


# --- the inbox on a refusing journal ------------------------------------------------------------


@pytest.fixture
async def fast_app(settings: Settings) -> AsyncIterator[App]:
    """The held lock (SQLite's outage) fails an insert in a fifth of a second."""
    fast = settings.model_copy(update={"db_lock_timeout_ms": 200})
    app = await build_app(fast, upgrade=False, seed=True)
    app.inbox.policy = replace(app.inbox.policy, retry_base=0.0)
    yield app
    await app.close()


@pytest.fixture
def fast(fast_app: App) -> Harness:
    return Harness(fast_app)


async def _post(base: str, update: Any) -> int:
    body = json.loads(update.model_dump_json(exclude_unset=True))
    async with (
        aiohttp.ClientSession() as http,
        http.post(base + PATH, json=body, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}) as response,
    ):
        return response.status


async def _readiness(base: str) -> tuple[int, list[str]]:
    async with aiohttp.ClientSession() as http, http.get(base + "/readyz") as response:
        return response.status, (await response.json()).get("problems", [])


async def test_the_webhook_answers_503_for_what_neither_database_nor_journal_took(
    settings: Settings, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Database down, the journal's disk filling up: a 200 only for an update that is whole in
    the journal; the rest get 503 (Telegram sends them again) and /readyz says why."""
    quick = settings.model_copy(update={"db_lock_timeout_ms": 100})
    harness = Harness(await build_app(quick, upgrade=False, seed=True))
    updates = [harness.updates.text(DEMO_USER_ID + n, f"hello {n}") for n in range(4)]
    shim = disk(monkeypatch, harness.app.inbox.journal)
    try:
        async with webhook_server(harness) as (_, base):
            async with database_outage(database_url):
                assert await _post(base, updates[0]) == 200
                shim.free = 50  # the next record's first 50 bytes fit, the rest does not
                statuses = [await _post(base, update) for update in updates[1:]]
                assert statuses == [503, 503, 503]
                status, problems = await _readiness(base)
                assert status == 503 and any(problem.startswith("journal: ") for problem in problems)
                shim.free = None  # room again: Telegram's retries are taken
                assert [await _post(base, update) for update in updates[1:]] == [200] * 3
            assert await harness.app.inbox.replay_journal() == 4
            assert await _readiness(base) == (200, [])
            rows = await harness.rows(InboundMessage)
            assert sorted(row.update_id or 0 for row in rows) == [update.update_id for update in updates]
    finally:
        await harness.app.close()


async def test_polling_leaves_what_was_not_stored_unconfirmed_and_keeps_running(
    fast: Harness, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Database down and the journal's disk full: the update is not confirmed, polling backs
    off and tries again (no exit); once the disk has room it is journaled, then answered."""
    first, second = fast.updates.text(DEMO_USER_ID, STOCK_QUESTION), fast.updates.text(OTHER_USER_ID, "hello")
    shim = disk(monkeypatch, fast.app.inbox.journal, free=0)
    serving: asyncio.Task[int] | None = None
    try:
        async with database_outage(database_url):
            fast.session.deliver(first, second)
            serving = asyncio.create_task(
                serve(fast.app.dispatcher, fast.bot, concurrency=4, shutdown_timeout=5)
            )
            await eventually(lambda: shim.refused >= 2, within=120)  # the first try and one more
            assert not serving.done(), "polling keeps running"
            assert fast.session.confirmed_below <= first.update_id, "nothing confirmed that is nowhere"
            shim.free = None
            await eventually(lambda: fast.session.confirmed_below > second.update_id, within=120)
            assert fast.app.inbox.journal.pending()
        await eventually(lambda: bool(texts_to(fast.session.requests, OTHER_USER_ID)[1:]), within=120)
        await eventually(lambda: bool(texts_to(fast.session.requests, DEMO_USER_ID)[1:]), within=120)
    finally:
        if serving is not None:
            if not serving.done():  # its signal handler is in place only while it runs
                os.kill(os.getpid(), signal.SIGTERM)
            assert await asyncio.wait_for(serving, 60) == 0
    answers = texts_to(fast.session.requests, DEMO_USER_ID)
    assert answers[0] == t("received_later", Language.KO) and STOCK_ANSWER_MARK in answers[1]
    assert all(row.status == "answered" for row in await fast.rows(InboundMessage))


async def test_an_outcome_the_journal_refuses_leaves_the_row_leased_for_another_try(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = harness.app.inbox

    async def database_gone(*_args: Any, **_kwargs: Any) -> None:
        raise OperationalError("UPDATE", {}, ConnectionResetError("connection lost"))

    monkeypatch.setattr(inbox, "_write", database_gone)
    disk(monkeypatch, inbox.journal, free=0)
    replies = await harness.say(DEMO_USER_ID, STOCK_QUESTION)  # handling ends normally
    assert STOCK_ANSWER_MARK in replies[0]
    [row] = await harness.rows(InboundMessage)
    assert row.status == "received" and row.lease_until is not None and row.attempts == 1


# --- replay ---------------------------------------------------------------------------------------


async def test_replay_quarantines_what_the_database_rejects_and_answers_the_rest(
    fast: Harness, database_url: str
) -> None:
    """A record the database refuses for a data reason (an update id beyond BIGINT; SQLite: an
    OverflowError) and a damaged line wait in the journal; then a real outage journals three
    updates. Replay moves the two bad records aside and the three are answered."""
    journal = fast.app.inbox.journal
    await journal.append(_update(2**63))
    with journal.path.open("ab") as file:
        file.write(encode(_update(7)).replace(b'"update_id":7', b'"update_id":8'))
    updates = [fast.updates.text(user, STOCK_QUESTION) for user in (700_300_001, 700_300_002, 700_300_003)]
    async with database_outage(database_url):
        for update in updates:
            await fast.feed(update)
    assert await fast.app.inbox.replay_journal() == 3
    assert not journal.pending()
    bad, damaged = [json.loads(line) for line in journal.quarantine_path.read_text().splitlines()]
    assert decode(bad["line"].encode())[0] == _update(2**63) and bad["reason"]
    assert damaged["reason"] == "checksum mismatch: a torn or damaged record"
    assert await _worker_pass(fast) == 3
    for update in updates:
        assert STOCK_ANSWER_MARK in texts_to(fast.session.requests, update.message.from_user.id)[-1]  # type: ignore[union-attr]


async def test_a_transient_error_pauses_replay_and_keeps_the_rest_in_order(
    fast: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = fast.app.inbox
    records = [_update(update_id) for update_id in (11, 12, 13)]
    for record in records:
        await inbox.journal.append(record)
    replay, calls = inbox._replay, 0

    async def second_fails_once(session: Any, record: dict[str, Any]) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise OperationalError("INSERT", {}, ConnectionResetError("connection lost"))
        await replay(session, record)

    monkeypatch.setattr(inbox, "_replay", second_fails_once)
    assert await inbox.replay_journal() == 1
    assert [entry.record for entry in (await inbox.journal.read()).entries] == records[1:]
    assert await inbox.replay_journal() == 2
    assert not inbox.journal.pending() and not inbox.journal.quarantine_path.exists()
    assert sorted(row.update_id or 0 for row in await fast.rows(InboundMessage)) == [11, 12, 13]


def test_the_inbox_tells_data_faults_from_transient_ones() -> None:
    from sqlalchemy.exc import DataError, DBAPIError, IntegrityError

    from services.inbox.durable import replay_fault

    class Driver(Exception):
        def __init__(self, sqlstate: str) -> None:
            self.sqlstate = sqlstate

    assert replay_fault(OverflowError("Python int too large to convert to SQLite INTEGER"))
    assert replay_fault(KeyError("arrival"))
    assert replay_fault(DBAPIError("INSERT", {}, Driver("22003")))  # numeric value out of range
    assert replay_fault(DBAPIError("INSERT", {}, Driver("23502")))  # not-null violation
    assert replay_fault(DataError("INSERT", {}, Exception("sqlite")))
    assert replay_fault(IntegrityError("INSERT", {}, Exception("sqlite")))
    assert not replay_fault(OperationalError("INSERT", {}, Driver("57P01")))  # admin shutdown
    assert not replay_fault(OperationalError("INSERT", {}, Exception("database is locked")))
    assert not replay_fault(ConnectionRefusedError())
    assert not replay_fault(JournalWriteError(errno.ENOSPC, "full"))
