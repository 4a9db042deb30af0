"""Every bad setting and bad command-line input: one line naming it, exit code 2, no traceback.

Each case runs `csbot` through `bot.cli.main` in this process (tests/cli_runner.py), or as a
real process where the process is the point (a closed stdout, `csbot run` against a Bot API
server, an install without the `local` extra); where the point is that
nothing is created (a database file, a migrated schema), the test looks.
Telegram's answers come from the loopback Bot API server of bench/fake_bot_api.py.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from bench.fake_bot_api import FakeBotAPI
from db import migrate
from db.engine import create_engine
from tests.cli_runner import Result, csbot, secrets_of
from tests.cli_runner import environment as cli_environment

BLOCK_LOCAL_EXTRA = (
    "import runpy, sys\n"
    "sys.modules['llama_cpp'] = None  # as if the `local` extra were not installed\n"
    "sys.argv = ['csbot', *sys.argv[1:]]\n"
    "runpy.run_module('bot', run_name='__main__')\n"
)


def assert_one_line(result: Result | subprocess.CompletedProcess[str], *named: str) -> str:
    """Exit code 2 and a single stderr line naming what is wrong, with no traceback."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for name in named:
        assert name in lines[0], lines[0]
    return lines[0]


# Settings ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("CSBOT_LLM", '{"target": [{"base_url": "http://x", "model": "m"}', "not valid JSON"),
        ("CSBOT_LLM", "target=gpt", "not valid JSON"),
        ("CSBOT_REDIS_URL", "localhost:6379", "scheme"),
        ("CSBOT_REDIS_URL", "redis://localhost:six/0", "Port"),
        ("CSBOT_REDIS_URL", "redis://localhost:6379/zero", "must be a number"),
        ("CSBOT_TELEGRAM_API_URL", "api.telegram.org", "expected an http:// or https:// URL"),
        ("CSBOT_WEBHOOK_URL", "bot.example.com/telegram", "expected an http:// or https:// URL"),
        ("CSBOT_SHOP_API_URL", "https://", "expected an http:// or https:// URL"),
        (
            "CSBOT_LLM",
            '{"targets": [{"base_url": "http://127.0.0.1:9/v1", "model": "m"}]}',
            "unknown key 'targets'; did you mean 'target'?",
        ),
        (
            "CSBOT_LLM",
            '{"target": [{"base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key": ["k"]}]}',
            "(target.0.api_key): unknown key 'api_key'; did you mean 'api_keys'?",
        ),
    ],
)
def test_malformed_setting_is_one_line(tmp_path: Path, variable: str, value: str, says: str) -> None:
    result = csbot(tmp_path, "chat", **{variable: value})
    assert_one_line(result, variable, says)
    assert not (tmp_path / "shop.db").exists(), "settings are checked before the database is opened"


def test_malformed_json_in_env_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("CSBOT_LLM={oops\n", encoding="utf-8")
    assert_one_line(csbot(tmp_path, "stats"), "CSBOT_LLM", "line 1 column 2")


# Command-line options ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "option", "says"),
    [
        (("logs", "--since", "bogus"), "--since", "'bogus'"),
        (("logs", "--since", "0h"), "--since", "longer than zero"),
        (("stats", "--period", "bogus"), "--period", "'bogus'"),
        (("stats", "--period", "0d"), "--period", "longer than zero"),
        (("stats", "--period", "99999999d"), "--period", "before the year 1"),
        (("logs", "--limit", "-1"), "--limit", "1 or more"),
        (("logs", "--limit", "ten"), "--limit", "whole number"),
        (("logs", "--user", "me"), "--user", "'me'"),
    ],
)
def test_bad_option_is_one_line(tmp_path: Path, args: tuple[str, ...], option: str, says: str) -> None:
    assert_one_line(csbot(tmp_path, *args), option, says)
    assert not (tmp_path / "shop.db").exists()


def test_good_options_still_work(tmp_path: Path) -> None:
    assert csbot(tmp_path, "db", "upgrade").returncode == 0
    for args in (("logs", "--since", "2026-01-31T09:00", "--limit", "1"), ("stats", "--period", "1.5d")):
        result = csbot(tmp_path, *args)
        assert result.returncode == 0, result.stderr


# A database csbot never set up --------------------------------------------------------------------


@pytest.mark.parametrize("command", [("stats",), ("logs",), ("logs", "--json"), ("eval", "questions.tsv")])
def test_reading_a_missing_sqlite_database_creates_nothing(tmp_path: Path, command: tuple[str, ...]) -> None:
    (tmp_path / "questions.tsv").write_text("faq\ten\tHow do I pay?\n", encoding="utf-8")
    before = sorted(tmp_path.iterdir())
    result = csbot(tmp_path, *command, CSBOT_DATABASE_URL="sqlite:///./csbot.db")
    assert_one_line(result, "CSBOT_DATABASE_URL", f"no database at {(tmp_path / 'csbot.db').resolve()}")
    assert sorted(tmp_path.iterdir()) == before, "a command that reads must not create files"


@pytest.fixture(params=["sqlite", "postgresql"])
def schemaless_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An existing database with no csbot tables: an empty SQLite file, an empty PostgreSQL schema."""
    if request.param == "sqlite":
        path = tmp_path / "empty.db"
        path.touch()
        yield f"sqlite:///{path}"
        assert path.stat().st_size == 0, "nothing was written into it"
        return
    url = request.getfixturevalue("postgres_url")
    asyncio.run(_drop_schema(url))
    try:
        yield url
        assert asyncio.run(_table_count(url)) == 0, "nothing was created in it"
    finally:
        asyncio.run(_recreate(url))  # the other tests' schema, back at the latest revision


async def _drop_schema(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.execute(text("DROP SCHEMA public CASCADE"))
            await connection.execute(text("CREATE SCHEMA public"))
    finally:
        await engine.dispose()


async def _table_count(url: str) -> int:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            query = text("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
            return int((await connection.execute(query)).scalar_one())
    finally:
        await engine.dispose()


async def _recreate(url: str) -> None:
    engine = create_engine(url)
    try:
        await migrate.recreate(engine)
    finally:
        await engine.dispose()


@pytest.mark.parametrize("command", ["stats", "logs"])
def test_reading_a_database_without_the_schema_is_one_line(
    tmp_path: Path, schemaless_url: str, command: str
) -> None:
    result = csbot(tmp_path, command, CSBOT_DATABASE_URL=schemaless_url)
    assert_one_line(result, "CSBOT_DATABASE_URL", "no csbot schema", "csbot db upgrade")


# Standard output closed early (`csbot stats | head`) ----------------------------------------------


@pytest.mark.process
@pytest.mark.parametrize(
    "command",
    [
        ("stats",),
        ("stats", "--json"),
        ("logs",),
        ("classify", "SKU-7890 재고?"),
        ("export", "faq"),
        ("chat",),
        ("chat", "--json"),
    ],
)
def test_a_closed_stdout_is_no_error(tmp_path: Path, command: tuple[str, ...]) -> None:
    assert csbot(tmp_path, "db", "upgrade").returncode == 0
    environment = cli_environment(tmp_path, {})
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (`head`) is gone before csbot writes: every write is EPIPE
    try:
        result = subprocess.run(
            [sys.executable, "-m", "bot", *command],
            input="SKU-7890 재고 있나요?\n배송 언제 와요?\n",  # for chat; the others ignore it
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=environment,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr
    if command[0] != "chat":  # chat logs its start-up line; the others write nothing else
        assert result.stderr == ""


# Telegram at `csbot run` ---------------------------------------------------------------------------


def test_malformed_token_is_one_line_before_anything(tmp_path: Path) -> None:
    result = csbot(tmp_path, "run", CSBOT_BOT_TOKEN="not-a-token")
    assert_one_line(result, "CSBOT_BOT_TOKEN", "malformed")
    assert "not-a-token" not in result.stderr, "a token is a secret, even a wrong one"
    assert not (tmp_path / "shop.db").exists()


@pytest.fixture
async def telegram() -> AsyncIterator[FakeBotAPI]:
    api = FakeBotAPI()
    await api.start()
    yield api
    await api.close()


async def _run_csbot(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`csbot run` while this event loop serves the fake Bot API."""
    environment = cli_environment(tmp_path, env)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        cwd=tmp_path,
        env=environment,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), 120)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode is not None
    for secret in secrets_of(environment):
        assert secret.encode() not in stdout + stderr, "a secret in csbot run's output"
    return subprocess.CompletedProcess([], process.returncode, stdout.decode(), stderr.decode())


@pytest.mark.process
async def test_revoked_token_is_one_line_before_the_database(tmp_path: Path, telegram: FakeBotAPI) -> None:
    token = "123456:revoked-secret"
    telegram.revoked_tokens.add(token)
    result = await _run_csbot(tmp_path, CSBOT_BOT_TOKEN=token, CSBOT_TELEGRAM_API_URL=telegram.url)
    assert_one_line(result, "CSBOT_BOT_TOKEN", "refused", "Unauthorized")
    assert token not in result.stderr
    assert [method for method, _ in telegram.calls] == ["getme"]
    assert not (tmp_path / "shop.db").exists(), "no database work for a bot that cannot log in"


@pytest.mark.process
async def test_unreachable_telegram_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    result = await _run_csbot(
        tmp_path,
        CSBOT_BOT_TOKEN="123456:secret",
        CSBOT_TELEGRAM_API_URL=closed,
        CSBOT_TELEGRAM_RETRY_BUDGET="0.1",  # no retry fits: the one line only
    )
    assert_one_line(result, "cannot reach Telegram", closed, "CSBOT_TELEGRAM_API_URL")
    assert not (tmp_path / "shop.db").exists()


@pytest.mark.process
async def test_a_port_in_use_is_one_line(tmp_path: Path, telegram: FakeBotAPI) -> None:
    with socket.socket() as holder:  # another program on the port
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = await _run_csbot(
            tmp_path,
            CSBOT_BOT_TOKEN="123456:fake-token-for-loopback",
            CSBOT_TELEGRAM_API_URL=telegram.url,
            CSBOT_HTTP_HOST="127.0.0.1",
            CSBOT_HTTP_PORT=str(port),
            CSBOT_LOG_LEVEL="WARNING",
        )
    assert_one_line(result, "CSBOT_HTTP_PORT", f"port {port} on 127.0.0.1 is already in use")


def test_an_unwritable_journal_path_is_one_line_at_start(tmp_path: Path) -> None:
    """The journal matters only while the database is down: found unwritable then, updates would
    have nowhere to wait. It is checked at start, before the database is opened."""
    journal = tmp_path / "no-such-folder" / "journal.jsonl"
    result = csbot(tmp_path, "chat", stdin="", CSBOT_JOURNAL_PATH=str(journal))
    line = assert_one_line(result, "CSBOT_JOURNAL_PATH", str(journal))
    assert "No such file or directory" in line
    assert not (tmp_path / "shop.db").exists()


# The local model without the `local` extra ---------------------------------------------------------


def _csbot_without_local_extra(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = cli_environment(tmp_path, env)
    return subprocess.run(
        [sys.executable, "-c", BLOCK_LOCAL_EXTRA, *args],
        input="",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=120,
        check=False,
    )


@pytest.mark.process
@pytest.mark.parametrize(
    ("args", "env", "named"),
    [
        (("chat", "--generate"), {}, "--generate"),
        (("chat",), {"CSBOT_LOCAL_MODEL": "bundled"}, "CSBOT_LOCAL_MODEL"),
        (("run",), {"CSBOT_LOCAL_MODEL": "bundled", "CSBOT_BOT_TOKEN": "1:x"}, "CSBOT_LOCAL_MODEL"),
    ],
)
def test_local_model_without_the_extra_is_one_line(
    tmp_path: Path, args: tuple[str, ...], env: dict[str, str], named: str
) -> None:
    result = _csbot_without_local_extra(tmp_path, *args, **env)
    assert_one_line(result, named, "llama-cpp-python is not installed", "csbot[local]")
    assert not (tmp_path / "shop.db").exists()


def test_local_model_file_missing_is_one_line(tmp_path: Path) -> None:
    result = csbot(tmp_path, "chat", CSBOT_LOCAL_MODEL=str(tmp_path / "missing.gguf"))
    assert_one_line(result, "CSBOT_LOCAL_MODEL", "model file not found")
    assert not (tmp_path / "shop.db").exists()


@pytest.mark.process
def test_chat_without_the_extra_still_works(tmp_path: Path) -> None:
    """The quick start: no local model asked for, so no local extra needed."""
    result = _csbot_without_local_extra(tmp_path, "chat")
    assert result.returncode == 0, result.stderr


def test_reading_a_database_at_an_older_schema_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "old.db"

    async def migrate_to_0004() -> None:
        engine = create_engine(f"sqlite+aiosqlite:///{path}")
        try:
            await migrate.upgrade(engine, "0004")
        finally:
            await engine.dispose()

    asyncio.run(migrate_to_0004())
    result = csbot(tmp_path, "stats", CSBOT_DATABASE_URL=f"sqlite:///{path}")
    assert_one_line(result, "CSBOT_DATABASE_URL", "is at schema 0004", f"needs {migrate.head_revision()}")


@pytest.mark.process
async def test_run_refuses_a_database_holding_the_demo(tmp_path: Path, telegram: FakeBotAPI) -> None:
    shop = {"CSBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'shop.db'}"}
    # an older csbot's `chat` left the demo in the shop's own database
    seeded = await asyncio.to_thread(
        csbot, tmp_path, "db", "seed-demo", CSBOT_DEMO_DATABASE_URL=shop["CSBOT_DATABASE_URL"], **shop
    )
    assert seeded.stdout.strip() == "demo data created"
    result = await _run_csbot(
        tmp_path,
        CSBOT_BOT_TOKEN="123456:fake-token-for-loopback",
        CSBOT_TELEGRAM_API_URL=telegram.url,
        CSBOT_LOG_LEVEL="WARNING",
        **shop,
    )
    line = assert_one_line(
        result, "CSBOT_DATABASE_URL", "the database holds the demo shop", "csbot demo remove"
    )
    assert "5 products, 2 customers, 4 orders" in line


def test_demo_remove_deletes_the_demo_and_keeps_the_shops_own(tmp_path: Path) -> None:
    shop = {"CSBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'shop.db'}"}
    csbot(tmp_path, "db", "seed-demo", CSBOT_DEMO_DATABASE_URL=shop["CSBOT_DATABASE_URL"], **shop)
    (tmp_path / "own.csv").write_text("sku,name,price,stock\nOWN-1,House Blend,14000,9\n", encoding="utf-8")
    assert csbot(tmp_path, "import", "products", "own.csv", **shop).returncode == 0
    dry = csbot(tmp_path, "demo", "remove", "--dry-run", **shop)
    assert dry.stdout.strip() == "demo: would remove 5 products, 2 customers, 4 orders, 21 FAQ rows"
    removed = csbot(tmp_path, "demo", "remove", **shop)
    assert removed.stdout.strip() == "demo: removed 5 products, 2 customers, 4 orders, 21 FAQ rows"
    assert csbot(tmp_path, "demo", "remove", **shop).stdout.strip() == "demo: none in this database"
    exported = csbot(tmp_path, "export", "products", **shop).stdout.splitlines()
    assert [line.split(",")[0] for line in exported[1:]] == ["OWN-1"]
