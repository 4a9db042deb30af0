"""Three `csbot run --webhook` processes behind one (simulated) load balancer, sharing PostgreSQL and
Redis: a chat's replies come in order whichever instance got each update, a return form is
finished across instances, and a process killed mid-update loses nothing and repeats nothing.
"""

from __future__ import annotations

import asyncio
import signal
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bench.fake_bot_api import FakeBotAPI
from bench.instances import free_port, wait_ready
from bot.app import build_app
from bot.fake_updates import UpdateFactory
from db.models import InboundMessage, ReturnRequest
from services.settings import Settings
from tests.harness import DEMO_USER_ID, Harness
from tests.test_run_process import _start, _until
from tests.test_state_store import redis_answers

SECRET = "instances_secret"
SKUS = ("SKU-7890", "SKU-1204", "SKU-5521")
CHATS = (620_000_001, 620_000_002, 620_000_003, 620_000_004)
SLOW_CHAT = 620_000_009

pytestmark = pytest.mark.skipif(not redis_answers(), reason="no Redis server at 127.0.0.1:6379")


@pytest.fixture
async def telegram() -> AsyncIterator[FakeBotAPI]:
    api = FakeBotAPI(slow_seconds=60)
    await api.start()
    yield api
    await api.close()


@pytest.fixture
async def shop(settings: Settings) -> Settings:
    if not settings.database_url.startswith("postgresql"):
        pytest.skip("several instances share a PostgreSQL database (SQLite is one process's file)")
    app = await build_app(settings, upgrade=False, seed=True)  # the demo shop, as a real shop's data
    await app.close()
    return settings


async def _instances(
    tmp_path: Path, telegram: FakeBotAPI, settings: Settings, count: int
) -> list[tuple[asyncio.subprocess.Process, str]]:
    prefix = f"csbot-instances-{uuid.uuid4().hex}"
    started = []
    for index in range(count):
        port = free_port()
        workdir = tmp_path / f"instance-{index}"
        workdir.mkdir()
        process = await _start(
            workdir,
            telegram,
            "--demo",  # its shop is the demo, seeded into the shared database
            "--webhook",
            "--no-migrate",
            CSBOT_DATABASE_URL=settings.database_url,
            CSBOT_DEMO_DATABASE_URL=settings.database_url,
            CSBOT_REDIS_URL="redis://127.0.0.1:6379/0",
            CSBOT_REDIS_PREFIX=prefix,
            CSBOT_WEBHOOK_URL="https://bot.example/hook",
            CSBOT_WEBHOOK_SECRET=SECRET,
            CSBOT_HTTP_HOST="127.0.0.1",
            CSBOT_HTTP_PORT=str(port),
            # A lease of 2 x 5 + 5 s: a killed instance's update is free soon; not shorter, since a
            # reply may wait its turn at the per-chat Telegram limit (three quick form steps).
            CSBOT_UPDATE_TIMEOUT="5",
        )
        started.append((process, f"http://127.0.0.1:{port}"))
    async with aiohttp.ClientSession() as http:
        for _, base in started:
            await wait_ready(http, base)
    return started


async def _post(http: aiohttp.ClientSession, base: str, update: Any) -> None:
    payload = update.model_dump(mode="json", exclude_unset=True)
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    async with http.post(f"{base}/hook", json=payload, headers=headers) as response:
        assert response.status == 200


async def _stop(processes: list[tuple[asyncio.subprocess.Process, str]]) -> None:
    for process, _ in processes:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
    for process, _ in processes:
        await asyncio.wait_for(process.communicate(), 30)


async def test_three_instances_keep_order_share_forms_and_survive_a_kill(
    tmp_path: Path, telegram: FakeBotAPI, shop: Settings
) -> None:
    instances = await _instances(tmp_path, telegram, shop, 3)
    updates = UpdateFactory(first_update_id=1000)
    bases = [base for _, base in instances]
    try:
        async with aiohttp.ClientSession() as http:
            # Interleaved chats, round-robin over the instances.
            turn = 0
            for sku in SKUS:
                for chat in CHATS:
                    await _post(http, bases[turn % 3], updates.text(chat, f"{sku} 재고 있나요?"))
                    turn += 1
            await _until(lambda: all(len(telegram.texts_to(chat)) == len(SKUS) for chat in CHATS), 90)
            for chat in CHATS:
                answered = [next(sku for sku in SKUS if sku in text) for text in telegram.texts_to(chat)]
                assert answered == list(SKUS), f"chat {chat}: replies in the order asked"

            # A return form, one step on each instance in turn.
            await _post(http, bases[0], updates.text(DEMO_USER_ID, "/return"))
            for step in range(1, 6):
                await _until(
                    lambda: any(sent.buttons() for sent in telegram.delivered if sent.chat_id == DEMO_USER_ID)
                )
                last = [sent for sent in telegram.delivered if sent.chat_id == DEMO_USER_ID][-1]
                if not last.buttons():
                    break
                seen = len(telegram.delivered)
                await _post(http, bases[step % 3], updates.callback(DEMO_USER_ID, last.buttons()[0][1]))
                await _until(lambda: len(telegram.delivered) > seen)  # noqa: B023  # awaited at once

            # Kill an instance while its reply is on the way: another one answers, once.
            telegram.slow_chats.add(SLOW_CHAT)
            await _post(http, bases[2], updates.text(SLOW_CHAT, "SKU-7890 재고 있나요?"))
            await _until(
                lambda: any(
                    m == "sendmessage" and p.get("chat_id") == str(SLOW_CHAT) for m, p in telegram.calls
                )
            )
            instances[2][0].kill()
            await instances[2][0].wait()
            telegram.slow_chats.clear()
            await _until(lambda: len(telegram.texts_to(SLOW_CHAT)) == 1, 60)
            await asyncio.sleep(1.0)
            assert len(telegram.texts_to(SLOW_CHAT)) == 1, "answered once, by a surviving instance"
    finally:
        await _stop(instances)

    harness = Harness(await build_app(shop, upgrade=False))
    try:
        returns = await harness.rows(ReturnRequest)
        assert len(returns) == 1 and returns[0].rma_number, "the form finished across instances, filed once"
        rows = await harness.rows(InboundMessage)
        assert all(row.status == "answered" for row in rows), [(r.update_id, r.status) for r in rows]
    finally:
        await harness.app.close()
