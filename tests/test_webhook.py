"""The webhook and health checks over real HTTP on loopback, with the real dispatcher and database."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest
from aiogram import Bot
from aiohttp import web

from bench.db_faults import database_outage, held_lock
from bench.redis_proxy import RedisProxy
from bot.app import build_app
from bot.fake_updates import UpdateFactory
from bot.http_server import SECRET_HEADER, HttpFront
from bot.recording_session import LOCAL_BOT_TOKEN
from bot.webhook_body import MAX_NESTING, NotAnUpdate, nesting_exceeds, read_update
from db.models import InboundMessage
from services.settings import Settings
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, Harness, texts_to
from tests.test_nothing_lost import eventually
from tests.test_state_store import redis_answers

SECRET = "s3cret_for-tests"
PATH = "/telegram/hook"


@asynccontextmanager
async def webhook_server(harness: Harness) -> AsyncIterator[tuple[HttpFront, str]]:
    front = HttpFront(
        harness.app.dispatcher,
        harness.bot,
        engine=harness.app.engine,
        state_store=harness.app.state_store,
        concurrency=8,
        metrics=harness.app.metrics,
        webhook_path=PATH,
        webhook_secret=SECRET,
    )
    runner = web.AppRunner(front.application())
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield front, f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@pytest.fixture
async def front(harness: Harness) -> AsyncIterator[tuple[HttpFront, str]]:
    async with webhook_server(harness) as served:
        yield served


async def _post(base: str, update: dict[str, object], secret: str | None = SECRET) -> int:
    headers = {SECRET_HEADER: secret} if secret is not None else {}
    async with (
        aiohttp.ClientSession() as http,
        http.post(base + PATH, json=update, headers=headers) as response,
    ):
        return response.status


def _json(harness: Harness, text: str) -> dict[str, object]:
    return json.loads(harness.updates.text(DEMO_USER_ID, text).model_dump_json(exclude_unset=True))


async def test_an_update_without_the_secret_is_refused_and_not_stored(
    harness: Harness, front: tuple[HttpFront, str]
) -> None:
    _, base = front
    assert await _post(base, _json(harness, "SKU-7890 재고 있나요?"), secret=None) == 401
    assert await _post(base, _json(harness, "SKU-7890 재고 있나요?"), secret="wrong") == 401
    assert await harness.rows(InboundMessage) == []


async def test_200_means_stored_then_answered_once(harness: Harness, front: tuple[HttpFront, str]) -> None:
    _, base = front
    update = _json(harness, "SKU-7890 재고 있나요?")
    assert await _post(base, update) == 200
    assert len(await harness.rows(InboundMessage)) == 1, "stored before the 200"
    await eventually(lambda: bool(texts_to(harness.session.requests, DEMO_USER_ID)))
    assert await _post(base, update) == 200  # Telegram repeats it: acknowledged, not answered again
    await asyncio.sleep(0.2)
    [answer] = texts_to(harness.session.requests, DEMO_USER_ID)
    assert "SKU-7890" in answer


async def test_database_down_still_gets_a_200_from_the_journal(settings: Settings, database_url: str) -> None:
    quick = settings.model_copy(update={"db_lock_timeout_ms": 100})  # the held lock fails the insert fast
    harness = Harness(await build_app(quick, upgrade=False, seed=True))
    try:
        async with webhook_server(harness) as (_, base), held_lock(database_url):
            assert await _post(base, _json(harness, "SKU-7890 재고 있나요?")) == 200
            assert harness.app.inbox.journal.pending(), "kept in the journal, so the 200 was honest"
            await eventually(lambda: bool(texts_to(harness.session.requests, DEMO_USER_ID)))
            assert texts_to(harness.session.requests, DEMO_USER_ID) == [t("received_later", Language.KO)]
    finally:
        await harness.app.close()


async def test_health_and_readiness(harness: Harness, front: tuple[HttpFront, str]) -> None:
    http_front, base = front
    async with aiohttp.ClientSession() as http:
        async with http.get(base + "/healthz") as response:
            assert response.status == 200
        async with http.get(base + "/readyz") as response:
            assert response.status == 200 and (await response.json())["status"] == "ready"
        http_front.draining = True
        async with http.get(base + "/readyz") as response:
            assert response.status == 503 and "draining for shutdown" in (await response.json())["problems"]
        async with http.post(
            base + PATH, json=_json(harness, "hi"), headers={SECRET_HEADER: SECRET}
        ) as response:
            assert response.status == 503, "Telegram will send it again, to an instance that is not stopping"
    assert await harness.rows(InboundMessage) == []


@pytest.mark.skipif(not redis_answers(), reason="no Redis server at 127.0.0.1:6379")
async def test_an_outage_every_instance_shares_keeps_the_instance_ready(
    settings: Settings, database_url: str
) -> None:
    """The database down (the journal takes the updates) or Redis refusing: /readyz stays 200 and
    lists what is degraded, so a balancer does not take every instance out at once."""
    proxy = RedisProxy()
    with_redis = settings.model_copy(
        update={"redis_url": await proxy.start(), "redis_prefix": f"csbot-test-{uuid.uuid4().hex}"}
    )
    harness = Harness(await build_app(with_redis, upgrade=False, seed=True))
    try:
        async with webhook_server(harness) as (_, base), aiohttp.ClientSession() as http:
            await proxy.refuse()
            async with database_outage(database_url), http.get(base + "/readyz") as response:
                body = await response.json()
            assert response.status == 200 and body["status"] == "ready", body
            assert any(entry.startswith("redis: ") for entry in body["degraded"]), body
            if not database_url.startswith("sqlite"):  # a locked SQLite file still answers SELECT 1
                assert any(entry.startswith("database: ") for entry in body["degraded"]), body
            await proxy.restore()
            async with http.get(base + "/readyz") as response:
                assert (response.status, await response.json()) == (200, {"status": "ready"})
    finally:
        await harness.app.close()
        await proxy.close()


async def test_metrics_count_outcomes_latency_and_telegram_errors(
    harness: Harness, front: tuple[HttpFront, str]
) -> None:
    from aiogram.methods import SendMessage

    _, base = front
    harness.session.queue_error(SendMessage, error_code=400, description="Bad Request: chat not found")
    assert await _post(base, _json(harness, "SKU-7890 재고 있나요?")) == 200
    await eventually(lambda: len(harness.session.sent(SendMessage)) == 2)  # the refused reply, the apology
    assert await _post(base, _json(harness, "where is my order?")) == 200
    await eventually(lambda: len(harness.session.sent(SendMessage)) == 3)
    await asyncio.sleep(0.2)  # the outcome is counted just before it is written
    async with aiohttp.ClientSession() as http, http.get(base + "/metrics") as response:
        assert response.status == 200 and response.content_type == "text/plain"
        page = await response.text()
    assert 'csbot_updates_total{intent="stock",route="stock",status="failed"} 1.0' in page
    assert 'csbot_updates_total{intent="shipping",route="shipping",status="answered"} 1.0' in page
    assert 'csbot_update_seconds_count{intent="stock"} 1.0' in page
    assert 'csbot_updates_received_total{kind="text",stored="inbox"} 2.0' in page
    assert 'csbot_telegram_errors_total{code="400",method="sendMessage"} 1.0' in page
    assert "csbot_inbox_backlog 0.0" in page and "csbot_handoffs_open 0.0" in page


# --- bodies that are no update we can store: 400, wrong secrets: 401, never a 500 -------------


async def raw_post(base: str, body: bytes, secret: bytes | None = SECRET.encode(), path: str = PATH) -> int:
    """POST exactly these bytes (aiohttp's client would not send a header that is not UTF-8)."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    head = [
        f"POST {path} HTTP/1.1".encode(),
        f"Host: {host}".encode(),
        b"Content-Type: application/json",
        f"Content-Length: {len(body)}".encode(),
        b"Connection: close",
    ]
    if secret is not None:
        head.append(SECRET_HEADER.encode() + b": " + secret)
    writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
    await writer.drain()
    status_line = await reader.readline()
    writer.close()
    await writer.wait_closed()
    return int(status_line.split()[1])


def bad_bodies(updates: UpdateFactory) -> dict[str, bytes]:
    """Bodies that are no update csbot can store, each named by what is wrong with it."""

    def update() -> dict[str, Any]:
        return json.loads(updates.text(DEMO_USER_ID, "hello").model_dump_json(exclude_unset=True))

    huge_id, huge_chat = update(), update()
    huge_id["update_id"] = 2**63
    huge_chat["message"]["chat"]["id"] = 2**64 + 7
    return {
        "unknown update type": json.dumps({"update_id": 5, "some_future_thing": {"x": 1}}).encode(),
        "nested 50000 deep": b'{"update_id": 6, "message": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
        "update_id of 2**63": json.dumps(huge_id).encode(),
        "chat id beyond 64 bits": json.dumps(huge_chat).encode(),
        "not JSON": b"{update_id: 7",
    }


async def test_bodies_that_are_no_update_get_400_and_store_nothing(
    harness: Harness, front: tuple[HttpFront, str], caplog: pytest.LogCaptureFixture
) -> None:
    _, base = front
    bodies = bad_bodies(harness.updates)
    statuses, logged = {}, {}
    for name, body in bodies.items():
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            statuses[name] = await raw_post(base, body)
        logged[name] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert statuses == dict.fromkeys(bodies, 400)
    for name, lines in logged.items():
        [line] = lines  # one line per refusal, and no traceback
        assert line.name == "bot.http_server" and "refused" in line.getMessage(), name
        assert SECRET not in line.getMessage() + str(line.__dict__), name
    assert await harness.rows(InboundMessage) == []
    assert await _post(base, _json(harness, "SKU-7890 재고 있나요?")) == 200, "still serving"
    await eventually(lambda: bool(texts_to(harness.session.requests, DEMO_USER_ID)))


async def test_secrets_that_do_not_match_get_401_whatever_their_bytes(
    harness: Harness, front: tuple[HttpFront, str], caplog: pytest.LogCaptureFixture
) -> None:
    _, base = front
    body = json.dumps(_json(harness, "SKU-7890 재고 있나요?")).encode()
    for secret in (b"\xff\xfe\x80", "s3cret_für-tests".encode(), SECRET.encode() + b"\xc3", b"", None):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            assert await raw_post(base, body, secret=secret) == 401, secret
        [line] = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert line.name == "bot.http_server" and "secret" in line.getMessage()
        assert SECRET not in line.getMessage() + str(line.__dict__)
    assert await harness.rows(InboundMessage) == []
    assert await raw_post(base, body) == 200


def test_brackets_and_quotes_inside_strings_do_not_count_as_nesting() -> None:
    bot = Bot(LOCAL_BOT_TOKEN)
    text = '[{"\\"' * 500 + "]}" * 3
    update = UpdateFactory().text(DEMO_USER_ID, text).model_dump_json(exclude_unset=True).encode()
    assert read_update(update, bot).message is not None
    assert read_update(update, bot).message.text == text  # type: ignore[union-attr]
    assert not nesting_exceeds(b"[" * MAX_NESTING + b"]" * MAX_NESTING)
    assert nesting_exceeds(b"[" * (MAX_NESTING + 1))
    with pytest.raises(NotAnUpdate, match="64-bit"):
        read_update(b'{"update_id": 1, "message": {"message_id": -9223372036854775809}}', bot)
    with pytest.raises(NotAnUpdate, match="not an object"):
        read_update(b"[1]", bot)
