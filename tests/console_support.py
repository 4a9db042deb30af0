"""The admin console served on loopback next to the test harness's bot, and a signed-in client."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web
from pydantic import SecretStr

from bot.console import standalone_application
from bot.console.wiring import console_deps
from services.settings import Settings
from tests.harness import ADMIN_ID, SUPPORT_CHAT_ID, Harness

CONSOLE_SECRET = "console-secret-for-tests"
LINK = re.compile(r"https?://\S+/admin/login/(\S+)")


def console_settings(database_url: str, tmp_path: Path, **overrides: object) -> Settings:
    return Settings(
        database_url=database_url,
        journal_path=str(tmp_path / "journal.jsonl"),
        admin_ids=frozenset({ADMIN_ID}),
        support_chat_id=SUPPORT_CHAT_ID,
        console_secret=SecretStr(CONSOLE_SECRET),
        _env_file=None,  # type: ignore[call-arg]
        **overrides,  # type: ignore[arg-type]
    )


@asynccontextmanager
async def console_server(harness: Harness, settings: Settings, *, alone: bool = False) -> AsyncIterator[str]:
    """The console in the bot's process (`csbot run`), or as `csbot admin` serves it (`alone`:
    no canary routing of its own); yields the base URL (http://127.0.0.1:port)."""
    deps = console_deps(
        settings,
        harness.app.session_factory,
        bot=harness.bot,
        answerer=harness.app.answerer,
        canary=None if alone else harness.app.canary,
    )
    runner = web.AppRunner(standalone_application(deps))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def login_path(harness: Harness, user_id: int = ADMIN_ID) -> str | None:
    """What `/console` sends this user: the link's path (the host is the configured one), or None."""
    for text in await harness.say(user_id, "/console"):
        match = LINK.search(text)
        if match:
            return urlsplit(match.group(0)).path
    return None


def client() -> aiohttp.ClientSession:
    # unsafe: keep cookies set by an IP-address host (127.0.0.1), as a browser does.
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def sign_in(http: aiohttp.ClientSession, base: str, path: str) -> aiohttp.ClientResponse:
    async with http.post(base + path, allow_redirects=False) as response:
        await response.read()
        return response


async def csrf_of(http: aiohttp.ClientSession, base: str, page: str = "/admin/faq/new") -> str:
    async with http.get(base + page) as response:
        html = await response.text()
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match, "no CSRF token on a signed-in page"
    return match.group(1)
