"""Throughput of 1 vs N `csbot run --webhook` processes on this machine, side by side in one run.

Each setting starts its processes on loopback against a fake Bot API server, a fresh
PostgreSQL schema and Redis, posts the same updates (many chats, stock questions)
round-robin with bounded concurrency, and times until every customer got the answer.
On a 2-core machine more processes mainly add contention; the ratio says how much.

    .venv/bin/python -m bench.instances [--updates 600] [--processes 3]
        [--database-url postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys
import tempfile
import time
import uuid
from pathlib import Path

import aiohttp

from bench.fake_bot_api import FakeBotAPI
from bot.app import build_app
from bot.fake_updates import UpdateFactory
from db import migrate
from db.engine import create_engine
from services.settings import Settings

SECRET = "bench_secret"
QUESTIONS = ("SKU-7890 재고 있나요?", "Is SKU-1204 in stock?", "SKU-5521 재고?")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _fresh_shop(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        await migrate.recreate(engine)
    finally:
        await engine.dispose()
    app = await build_app(Settings(database_url=database_url, _env_file=None), upgrade=False, seed=True)  # type: ignore[call-arg]
    await app.close()


async def _start(
    workdir: Path, telegram: FakeBotAPI, database_url: str, prefix: str
) -> tuple[asyncio.subprocess.Process, str]:
    port = free_port()
    await asyncio.to_thread(workdir.mkdir, parents=True, exist_ok=True)
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("CSBOT_", "DATABASE_URL"))}
    environment.update(
        {
            "CSBOT_BOT_TOKEN": "123456:bench",
            "CSBOT_TELEGRAM_API_URL": telegram.url,
            "CSBOT_DATABASE_URL": database_url,
            "CSBOT_DEMO_DATABASE_URL": database_url,  # its shop is the demo, seeded there
            "CSBOT_REDIS_URL": "redis://127.0.0.1:6379/0",
            "CSBOT_REDIS_PREFIX": prefix,
            "CSBOT_WEBHOOK_URL": "https://bot.example/hook",
            "CSBOT_WEBHOOK_SECRET": SECRET,
            "CSBOT_HTTP_HOST": "127.0.0.1",
            "CSBOT_HTTP_PORT": str(port),
            "CSBOT_LOG_LEVEL": "WARNING",
        }
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        "--demo",
        "--webhook",
        "--no-migrate",
        cwd=workdir,
        env=environment,
        stderr=asyncio.subprocess.DEVNULL,
    )
    return process, f"http://127.0.0.1:{port}"


async def wait_ready(http: aiohttp.ClientSession, base: str) -> None:
    """Until the instance's /readyz says 200 (it imports, migrates and warms up first)."""
    async with asyncio.timeout(90):
        while True:
            try:
                async with http.get(f"{base}/readyz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.2)


async def measure(processes: int, updates: int, database_url: str, workdir: Path) -> float:
    """Updates per second for `processes` instances, from the first post to the last answer."""
    await _fresh_shop(database_url)
    telegram = FakeBotAPI()
    await telegram.start()
    started = [
        await _start(workdir / f"{processes}-{i}", telegram, database_url, f"bench-{uuid.uuid4().hex}")
        for i in range(processes)
    ]
    try:
        async with aiohttp.ClientSession() as http:
            for _, base in started:
                await wait_ready(http, base)
            factory = UpdateFactory()
            chats = [700_500_000 + index for index in range(max(1, updates // 3))]
            payloads = [
                factory.text(chats[index % len(chats)], QUESTIONS[index % len(QUESTIONS)]).model_dump(
                    mode="json", exclude_unset=True
                )
                for index in range(updates)
            ]
            limit = asyncio.Semaphore(20)

            async def post(index: int) -> None:
                async with limit:
                    base = started[index % processes][1]
                    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
                    async with http.post(f"{base}/hook", json=payloads[index], headers=headers) as response:
                        assert response.status == 200

            began = time.perf_counter()
            await asyncio.gather(*(post(index) for index in range(updates)))
            async with asyncio.timeout(600):
                while len(telegram.delivered) < updates:  # noqa: ASYNC110  # other processes answer
                    await asyncio.sleep(0.05)
            return updates / (time.perf_counter() - began)
    finally:
        for process, _ in started:
            process.send_signal(signal.SIGTERM)
        for process, _ in started:
            await process.wait()
        await telegram.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=600)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    url = Settings(database_url=args.database_url, _env_file=None).database_url  # type: ignore[call-arg]
    workdir = Path(tempfile.mkdtemp(prefix="csbot-instances-"))
    one = await measure(1, args.updates, url, workdir)
    many = await measure(args.processes, args.updates, url, workdir)
    print(
        f"1 process: {one:.1f} updates/s; {args.processes} processes: {many:.1f} updates/s (cores: {os.cpu_count()})"
    )
    print(f"processes={args.processes} throughput_ratio={many / one:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
