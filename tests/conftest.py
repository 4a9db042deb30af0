"""Fixtures: a real database per test (SQLite always, PostgreSQL when configured) and
the real dispatcher fed with fake updates through a recording bot session."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import URL, make_url, text
from sqlmodel import SQLModel
from xdist.remote import Producer
from xdist.scheduler import LoadFileScheduling

from bot.app import App, build_app
from db import migrate
from db.engine import create_engine
from services.llm.gateway import LLMGateway
from services.settings import Settings
from tests.harness import ADMIN_ID, SUPPORT_CHAT_ID, Harness

PG_ENV = "CSBOT_TEST_DATABASE_URL"

PROCESS_MODULES = frozenset(
    {"test_run_process", "test_instances", "test_bench", "test_import_bench", "test_inbox_browser"}
)
"""Test modules whose every test runs csbot (or a bench) as its own process."""
REDIS_MODULES = frozenset({"test_instances", "test_journal_peers", "test_state_store"})
"""Test modules whose every test needs Redis; elsewhere a test using a Redis fixture is marked."""


CASE_BY_CASE_MODULES = frozenset({"test_guard_corpora"})
"""Test modules of many slow, independent cases (a corpus part each), which pytest-xdist deals out
case by case, last, to even out the workers' ends; every other module runs whole on one worker
(`--dist loadfile`, as `./dev test` asks), so its module fixtures start once."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> LoadFileScheduling | None:
    """`--dist loadfile`, but each case of `CASE_BY_CASE_MODULES` is a work unit of its own: one
    worker would otherwise run a whole corpus while the other waits."""
    if config.getoption("dist") != "loadfile":
        return None

    class CaseByCaseScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")
            return nodeid if module in CASE_BY_CASE_MODULES else super()._split_scope(nodeid)

    return CaseByCaseScheduling(config, log)


def _module(item: pytest.Item) -> str:
    return item.module.__name__.rsplit(".", 1)[-1] if isinstance(item, pytest.Function) else ""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark tests by what they need (pyproject's `markers`), so `-m` can pick or leave them; the
    cases of `CASE_BY_CASE_MODULES` go last (xdist deals out the largest work units first, and of
    equal ones the first collected: a slow file of one test would otherwise end the run alone)."""
    items.sort(key=lambda item: _module(item) in CASE_BY_CASE_MODULES)
    for item in items:
        module = _module(item)
        fixtures = getattr(item, "fixturenames", ())
        callspec = getattr(item, "callspec", None)
        if module in PROCESS_MODULES:
            item.add_marker(pytest.mark.process)
        if module in ("test_console_browser", "test_inbox_browser"):
            item.add_marker(pytest.mark.browser)
        if "postgres_url" in fixtures or (callspec is not None and "postgresql" in callspec.id):
            item.add_marker(pytest.mark.postgresql)
        if module in REDIS_MODULES or any("redis" in name for name in fixtures):
            item.add_marker(pytest.mark.redis)


def _run(coroutine: object) -> None:
    asyncio.run(coroutine)  # type: ignore[arg-type]


async def _migrate(url: str, *, reset_schema: bool) -> None:
    engine = create_engine(url)
    try:
        await (migrate.recreate(engine) if reset_schema else migrate.upgrade(engine))
    finally:
        await engine.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Migrated once; each test gets a copy (much faster than migrating per test)."""
    path = tmp_path_factory.mktemp("template") / "csbot.db"
    _run(_migrate(f"sqlite+aiosqlite:///{path}", reset_schema=False))
    return path


@pytest.fixture(scope="session")
def postgres_url() -> str:
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(
            f"PostgreSQL run skipped: set {PG_ENV} (e.g. postgresql+asyncpg://postgres@127.0.0.1:5432/test)"
        )
    url = _worker_database(Settings(database_url=url).database_url)
    _run(_migrate(url, reset_schema=True))
    return url


def _worker_database(url: str) -> str:
    """Under pytest-xdist each worker gets its own database (created on first use), because
    the suite drops and truncates the schema of the database it runs against."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    parsed = make_url(url)
    worker_url = parsed.set(database=f"{parsed.database}_{worker}")
    _run(_create_database(parsed, str(worker_url.database)))
    return worker_url.render_as_string(hide_password=False)


async def _create_database(base: URL, name: str) -> None:
    connection = await asyncpg.connect(
        base.set(drivername="postgresql").render_as_string(hide_password=False)
    )
    try:
        exists = await connection.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name)
        if not exists:
            await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()


async def _truncate_all(url: str) -> None:
    engine = create_engine(url)
    try:
        names = ", ".join(table.name for table in SQLModel.metadata.sorted_tables)
        async with engine.begin() as connection:
            await connection.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    finally:
        await engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> Iterator[str]:
    if request.param == "sqlite":
        path = tmp_path / "csbot.db"
        shutil.copy(sqlite_template, path)
        yield f"sqlite+aiosqlite:///{path}"
        return
    url = request.getfixturevalue("postgres_url")
    _run(_truncate_all(url))
    yield url


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=database_url,
        journal_path=str(tmp_path / "journal.jsonl"),
        admin_ids=frozenset({ADMIN_ID}),
        support_chat_id=SUPPORT_CHAT_ID,
        _env_file=None,  # type: ignore[call-arg]
    )


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[App]:
    built = await build_app(settings, upgrade=False, seed=True)
    yield built
    await built.close()


@pytest.fixture
def harness(app: App) -> Harness:
    return Harness(app)


@pytest.fixture
async def gateways() -> AsyncIterator[list[LLMGateway]]:
    """Gateways a test builds over its model double, closed after it (tests of the answerer)."""
    made: list[LLMGateway] = []
    yield made
    for gateway in made:
        await gateway.close()
