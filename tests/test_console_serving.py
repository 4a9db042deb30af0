"""Where the console is served: `csbot admin` on a port of its own, and /admin on the bot's HTTP server."""

from __future__ import annotations

import asyncio
import signal
import socket
import sys
from pathlib import Path

import aiohttp
from aiohttp import web

from bot.console import create_console
from bot.console.wiring import console_deps
from bot.http_server import HttpFront
from tests.cli_runner import environment as cli_environment
from tests.console_support import CONSOLE_SECRET
from tests.harness import ADMIN_ID, Harness
from tests.test_cli import csbot
from tests.test_cli_bad_input import assert_one_line


def test_csbot_admin_without_admins_stops_with_one_line(tmp_path: Path) -> None:
    assert_one_line(csbot(tmp_path, "admin", CSBOT_CONSOLE_SECRET=CONSOLE_SECRET), "CSBOT_ADMIN_IDS")


def test_csbot_admin_without_a_signing_key_stops_with_one_line(tmp_path: Path) -> None:
    assert_one_line(csbot(tmp_path, "admin", CSBOT_ADMIN_IDS=str(ADMIN_ID)), "CSBOT_CONSOLE_SECRET")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_csbot_admin_serves_the_console_until_told_to_stop(tmp_path: Path) -> None:
    port = _free_port()
    environment = cli_environment(
        tmp_path, {"CSBOT_ADMIN_IDS": str(ADMIN_ID), "CSBOT_CONSOLE_SECRET": CONSOLE_SECRET}
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "admin",
        "--port",
        str(port),
        cwd=tmp_path,
        env=environment,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), timeout=60)
        assert f"admin console at http://127.0.0.1:{port}/admin" in line.decode()
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/", allow_redirects=False) as response:
                assert (response.status, response.headers["Location"]) == (303, "/admin/")
            async with http.get(f"http://127.0.0.1:{port}/admin/conversations") as response:
                assert response.status == 403
        process.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(process.wait(), timeout=30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_the_bots_http_server_serves_the_console_at_admin(harness: Harness) -> None:
    settings = harness.app.dispatcher["settings"]
    front = HttpFront(
        harness.app.dispatcher,
        harness.bot,
        engine=harness.app.engine,
        state_store=harness.app.state_store,
        concurrency=4,
        console=create_console(console_deps(settings, harness.app.session_factory, bot=harness.bot)),
    )
    runner = web.AppRunner(front.application())
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    base = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(base + "/healthz") as response:
                assert response.status == 200
            async with http.get(base + "/admin/faq") as response:
                assert response.status == 403 and "No access" in await response.text()
            async with http.get(base + "/admin/static/console.css") as response:
                assert response.status == 200
    finally:
        await runner.cleanup()
