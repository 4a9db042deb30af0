"""`csbot run` as a deployment runs it: a real process, real HTTP to a Bot API server, real signals.

The Bot API server is a fake on loopback (bench/fake_bot_api.py) that, like
Telegram, re-delivers what was not confirmed. A deploy sends SIGTERM while a
reply is still on its way; the next process answers what the first could not
finish, once.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest

from bench.fake_bot_api import FakeBotAPI
from bench.instances import free_port, wait_ready
from bench.redis_proxy import RedisProxy
from bot.fake_updates import UpdateFactory
from services.text.sentences import Language
from tests.test_state_store import redis_answers
from tests.test_webhook import bad_bodies, raw_post

SLOW_CUSTOMER = 610_000_001
OTHER_CUSTOMER = 610_000_002


@pytest.fixture
async def telegram() -> AsyncIterator[FakeBotAPI]:
    api = FakeBotAPI(slow_seconds=30)
    await api.start()
    yield api
    await api.close()


TOKEN = "123456:fake-token-for-loopback"


async def _start(tmp_path: Path, telegram: FakeBotAPI, *args: str, **env: str) -> asyncio.subprocess.Process:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("CSBOT_", "DATABASE_URL"))}
    environment.update(
        {
            "CSBOT_BOT_TOKEN": TOKEN,
            "CSBOT_TELEGRAM_API_URL": telegram.url,
            "CSBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'shop.db'}",
            "CSBOT_SHUTDOWN_TIMEOUT": "1",
            **env,
        }
    )
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        *args,
        cwd=tmp_path,
        env=environment,
        stderr=asyncio.subprocess.PIPE,
    )


async def _start_webhook(
    tmp_path: Path, telegram: FakeBotAPI, secret: str, *args: str, **env: str
) -> tuple[asyncio.subprocess.Process, str]:
    """`csbot run --webhook` on a free loopback port; the process and its base URL."""
    port = free_port()
    process = await _start(
        tmp_path,
        telegram,
        "--webhook",
        *args,
        CSBOT_WEBHOOK_URL="https://bot.example/tg/hook",
        CSBOT_WEBHOOK_SECRET=secret,
        CSBOT_HTTP_HOST="127.0.0.1",
        CSBOT_HTTP_PORT=str(port),
        CSBOT_LOG_FORMAT="json",
        **env,
    )
    return process, f"http://127.0.0.1:{port}"


async def _until(condition: Callable[[], bool], within: float = 180) -> None:
    async with asyncio.timeout(within):
        while not condition():  # noqa: ASYNC110  # another process makes progress: nothing to wait on here
            await asyncio.sleep(0.05)


async def test_sigterm_mid_reply_then_restart_answers_everything_once(
    tmp_path: Path, telegram: FakeBotAPI
) -> None:
    updates = UpdateFactory()
    slow = updates.text(SLOW_CUSTOMER, "SKU-7890 재고 있나요?")
    fast = updates.text(OTHER_CUSTOMER, "What payment methods do you accept?")
    telegram.slow_chats.add(SLOW_CUSTOMER)
    telegram.deliver(*(u.model_dump(mode="json", exclude_unset=True) for u in (slow, fast)))

    first = await _start(tmp_path, telegram)
    await _until(lambda: len(telegram.texts_to(OTHER_CUSTOMER)) == 1)
    await _until(lambda: telegram.confirmed_below > fast.update_id)  # both stored, then confirmed
    first.send_signal(signal.SIGTERM)
    _, stderr = await asyncio.wait_for(first.communicate(), 120)  # a bound for a hang, not a pace
    assert TOKEN.encode() not in stderr, "the bot token is a secret: never in a log line"
    assert first.returncode == 1, stderr.decode()[-2000:]
    assert "interrupted" in stderr.decode()
    assert telegram.texts_to(SLOW_CUSTOMER) == []

    telegram.slow_chats.clear()  # Telegram is quick again; nothing is delivered anew
    second = await _start(tmp_path, telegram)
    await _until(lambda: len(telegram.texts_to(SLOW_CUSTOMER)) == 1)
    second.send_signal(signal.SIGTERM)
    _, stderr = await asyncio.wait_for(second.communicate(), 120)
    assert TOKEN.encode() not in stderr, "the bot token is a secret: never in a log line"
    assert second.returncode == 0, stderr.decode()[-2000:]
    [answer] = telegram.texts_to(SLOW_CUSTOMER)
    assert "SKU-7890" in answer
    assert len(telegram.texts_to(OTHER_CUSTOMER)) == 1, "the first process's answer is not repeated"


async def test_webhook_mode_end_to_end(tmp_path: Path, telegram: FakeBotAPI) -> None:
    """`csbot run --webhook --set-webhook`: the webhook is registered with its secret, a posted update
    is answered through the Bot API server, readiness is reported, SIGTERM stops it cleanly."""
    secret = "hook_secret-123"
    process, base = await _start_webhook(
        tmp_path, telegram, secret, "--set-webhook", CSBOT_ADMIN_IDS="900000001"
    )
    async with aiohttp.ClientSession() as http:
        await wait_ready(http, base)
        [(_, registered)] = [call for call in telegram.calls if call[0] == "setwebhook"]
        assert registered["url"] == "https://bot.example/tg/hook" and registered["secret_token"] == secret
        assert "message" in json.loads(registered["allowed_updates"])
        update = (
            UpdateFactory()
            .text(OTHER_CUSTOMER, "SKU-7890 재고 있나요?")
            .model_dump(mode="json", exclude_unset=True)
        )
        async with http.post(f"{base}/tg/hook", json=update) as refused:
            assert refused.status == 401
        async with http.post(
            f"{base}/tg/hook", json=update, headers={"X-Telegram-Bot-Api-Secret-Token": secret}
        ) as ok:
            assert ok.status == 200
        await _until(lambda: len(telegram.texts_to(OTHER_CUSTOMER)) == 1)
        await asyncio.sleep(0.3)  # counted as the outcome is written
        async with http.get(f"{base}/metrics") as metrics:
            page = await metrics.text()
        assert 'csbot_updates_total{intent="stock",route="stock",status="answered"} 1.0' in page
    process.send_signal(signal.SIGTERM)
    _, stderr = await asyncio.wait_for(process.communicate(), 120)
    assert TOKEN.encode() not in stderr, "the bot token is a secret: never in a log line"
    assert process.returncode == 0, stderr.decode()[-2000:]
    assert "SKU-7890" in telegram.texts_to(OTHER_CUSTOMER)[0]
    assert not any(method == "getupdates" for method, _ in telegram.calls), "a webhook process does not poll"
    assert [method for method, _ in telegram.calls].count("getme") == 1, "one getMe per run"
    menus = [params for method, params in telegram.calls if method == "setmycommands"]
    assert {params.get("language_code") for params in menus} >= {None, Language.KO, "ja"}
    [admin_menu] = [
        params for params in menus if '"chat_id":900000001' in params.get("scope", "").replace(" ", "")
    ]
    assert '"stats"' in admin_menu["commands"] and all(
        '"stats"' not in p["commands"] for p in menus if p is not admin_menu
    )
    logged = [json.loads(line) for line in stderr.decode().splitlines() if line.startswith("{")]
    assert any(
        line.get("update_id") == update["update_id"] and line.get("user_id") == OTHER_CUSTOMER
        for line in logged
    ), "JSON log lines of an update carry its ids"


async def test_webhook_answers_bad_bodies_400_and_bad_secrets_401_then_keeps_serving(
    tmp_path: Path, telegram: FakeBotAPI
) -> None:
    """Against `csbot run --webhook` on SQLite: no body and no secret header gets a 500 (which
    Telegram would repeat forever); each refusal is one warning line without the secret; the
    process stays ready and answers the next real update."""
    secret = "hook_secret-456"
    process, base = await _start_webhook(tmp_path, telegram, secret)
    updates = UpdateFactory()
    bodies = bad_bodies(updates)
    good = updates.text(OTHER_CUSTOMER, "SKU-7890 재고 있나요?").model_dump_json(exclude_unset=True).encode()
    wrong_secrets = {"not UTF-8": b"\xff\xfe\x80", "non-ASCII": "hook_sécret-456".encode(), "empty": b""}
    try:
        async with aiohttp.ClientSession() as http:
            await wait_ready(http, base)
            statuses = {
                name: await raw_post(base, body, secret.encode(), path="/tg/hook")
                for name, body in bodies.items()
            }
            secret_statuses = {
                name: await raw_post(base, good, wrong, path="/tg/hook")
                for name, wrong in wrong_secrets.items()
            }
            async with http.get(f"{base}/readyz") as ready:
                assert ready.status == 200
            assert await raw_post(base, good, secret.encode(), path="/tg/hook") == 200
            await _until(lambda: len(telegram.texts_to(OTHER_CUSTOMER)) == 1)
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 120)
        assert TOKEN.encode() not in stderr, "the bot token is a secret: never in a log line"
    assert statuses == dict.fromkeys(bodies, 400)
    assert secret_statuses == dict.fromkeys(wrong_secrets, 401)
    assert process.returncode == 0, stderr.decode()[-2000:]
    assert "SKU-7890" in telegram.texts_to(OTHER_CUSTOMER)[0]
    text = stderr.decode()
    assert secret not in text and "Traceback" not in text
    logged = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    refusals = [line for line in logged if "refused" in line["event"]]
    assert len(refusals) == len(bodies) + len(wrong_secrets), refusals
    assert all(line["level"].lower() == "warning" for line in refusals), refusals
    assert not [line for line in logged if line["level"].lower() in ("error", "critical")]


@pytest.mark.skipif(not redis_answers(), reason="no Redis server at 127.0.0.1:6379")
@pytest.mark.parametrize("outage", ["frozen", "refusing"])
async def test_redis_down_delays_answers_but_never_stops_messages(
    tmp_path: Path, telegram: FakeBotAPI, outage: str
) -> None:
    """`csbot run --webhook` with CSBOT_REDIS_URL, Redis behind a proxy that freezes or refuses:
    conversation state cannot be read, so each customer is told to wait (the outgoing limiter
    sends that without Redis) and is answered once Redis is back. The limiter warns once, not
    once per message.

    A frozen Redis runs the commands it was sent once it thaws, among them a chat lock's SET
    whose sender gave up: that lock is released once Redis answers (bot/fsm_storage.py)."""
    proxy = RedisProxy("127.0.0.1", 6379)
    await proxy.start()
    secret = "hook_secret-789"
    process, base = await _start_webhook(
        tmp_path,
        telegram,
        secret,
        CSBOT_REDIS_URL=proxy.url,
        CSBOT_REDIS_PREFIX=f"test-run-{uuid.uuid4().hex[:8]}",
        CSBOT_UPDATE_TIMEOUT="5",
    )
    updates = UpdateFactory()
    customers = (610_000_011, 610_000_012, 610_000_013)

    def post(customer: int) -> Awaitable[int]:
        body = updates.text(customer, "SKU-7890 재고 있나요?").model_dump_json(exclude_unset=True).encode()
        return raw_post(base, body, secret.encode(), path="/tg/hook")

    try:
        async with aiohttp.ClientSession() as http:
            await wait_ready(http, base)
            assert await post(customers[0]) == 200
            await _until(lambda: len(telegram.texts_to(customers[0])) == 1)
            if outage == "frozen":
                proxy.freeze()
            else:
                await proxy.refuse()
            assert [await post(customer) for customer in customers[1:]] == [200, 200], "stored"
            await _until(lambda: all(telegram.texts_to(customer) for customer in customers[1:]))
            assert all(len(telegram.texts_to(customer)) == 1 for customer in customers[1:])
            await proxy.restore()
            await _until(lambda: all(len(telegram.texts_to(customer)) == 2 for customer in customers[1:]))
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 120)
        assert TOKEN.encode() not in stderr, "the bot token is a secret: never in a log line"
        await proxy.close()
    assert process.returncode == 0, stderr.decode()[-2000:]
    for customer in customers[1:]:
        told, answer = telegram.texts_to(customer)
        assert "SKU-7890" not in told and "SKU-7890" in answer
    logged = [json.loads(line) for line in stderr.decode().splitlines() if line.startswith("{")]
    limiter = [line["level"] for line in logged if line["logger"] == "bot.rate_windows"]
    assert limiter in (["WARNING"], ["WARNING", "INFO"]), limiter
