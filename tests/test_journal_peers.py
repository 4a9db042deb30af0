"""Instances of one bot hear of each other's journals through Redis (bot/journal_peers.py), so a
chat's message stored directly after an outage waits for the chat's earlier message still in
another instance's journal.

Real Redis at 127.0.0.1:6379 (skipped without it), real databases, two apps on one database.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from bench.db_faults import held_lock
from bot.app import App, build_app
from bot.inbox_worker import InboxWorker
from bot.journal_peers import RedisJournalPeers
from services.settings import Settings
from tests.clock import ManualClock
from tests.harness import DEMO_USER_ID, Harness
from tests.test_inbound_states import (
    APOLOGY,
    ORDER_ANSWER_MARK,
    ORDER_QUESTION,
    STOCK_ANSWER_MARK,
    STOCK_QUESTION,
    Interfere,
    _due_now,
)
from tests.test_state_store import REDIS_URL, redis_answers

needs_redis = pytest.mark.skipif(not redis_answers(), reason="no Redis server at 127.0.0.1:6379")


@needs_redis
async def test_an_instance_sees_another_instances_journal_until_it_is_replayed(tmp_path: Path) -> None:
    redis = Redis.from_url(REDIS_URL)
    prefix, clock = f"csbot-test-{uuid.uuid4().hex}", ManualClock(1_000_000.0)
    one = RedisJournalPeers(redis, prefix=prefix, journal=tmp_path / "a" / "journal.jsonl", clock=clock)
    two = RedisJournalPeers(redis, prefix=prefix, journal=tmp_path / "b" / "journal.jsonl", clock=clock)
    try:
        assert not await one.others_holding() and not await two.others_holding()
        await one.holding()
        assert await two.others_holding(), "the other instance holds journaled updates"
        assert not await one.others_holding(), "an instance does not wait for its own journal"
        await one.released()
        assert not await two.others_holding()
        await one.holding()
        clock.now += 61  # its process died with the journal and was not restarted: the note goes stale
        assert not await two.others_holding()
    finally:
        await redis.delete(f"{prefix}:journals")
        await redis.aclose()


async def test_with_redis_down_nothing_waits_for_other_journals(tmp_path: Path) -> None:
    """Nothing listens on the port: every call answers at once with "no other journal", none raises."""
    redis = Redis.from_url("redis://127.0.0.1:9/0", socket_connect_timeout=0.2)
    peers = RedisJournalPeers(redis, prefix="csbot-test", journal=tmp_path / "journal.jsonl")
    try:
        await peers.holding()
        assert not await peers.others_holding()
        await peers.released()
        assert peers.breaker.state != "closed", "Redis is left alone for a while"
    finally:
        await redis.aclose()


@pytest.fixture
async def instances(settings: Settings, tmp_path: Path) -> AsyncIterator[tuple[Harness, Harness]]:
    """Two webhook instances on one database and one Redis, each with its own journal."""
    shared = settings.model_copy(
        update={
            "db_lock_timeout_ms": 200,
            "redis_url": REDIS_URL,
            "redis_prefix": f"csbot-test-{uuid.uuid4().hex}",
            "webhook_url": "https://shop.example/telegram",
            "webhook_secret": "s" * 32,
        }
    )
    apps: list[App] = []
    try:
        for name in ("a", "b"):
            (tmp_path / name).mkdir()
            config = shared.model_copy(update={"journal_path": str(tmp_path / name / "journal.jsonl")})
            apps.append(await build_app(config, upgrade=False, seed=not apps))
        first = Harness(apps[0])
        yield first, Harness(apps[1], updates=first.updates)  # one Telegram: one sequence of ids
    finally:
        for app in apps:
            await app.close()


@needs_redis
async def test_a_message_stored_directly_waits_for_the_chats_earlier_one_in_another_journal(
    instances: tuple[Harness, Harness], database_url: str
) -> None:
    """Instance A journals a chat's first message during an outage; the database back, the chat's
    next message reaches instance B, whose journal is empty. B stores it and lets it wait: A
    replays, and the chat reads its answers in the order it wrote."""
    first, second = instances
    seen = Interfere()
    for harness in instances:
        harness.bot.session.middleware(seen)
    async with held_lock(database_url):
        await first.say(DEMO_USER_ID, STOCK_QUESTION)
    assert first.app.inbox.journal.pending()
    await second.say(DEMO_USER_ID, ORDER_QUESTION)  # the database answers again
    assert [text for text in seen.texts() if text != APOLOGY] == [], "the later message waits"
    await InboxWorker(first.app.dispatcher, first.bot).run_once()  # A replays its journal
    assert not first.app.inbox.journal.pending()
    assert not await second.app.inbox.peers.others_holding()
    for _ in range(3):
        await _due_now(second)
        await InboxWorker(second.app.dispatcher, second.bot).run_once()
    answers = [text for text in seen.texts() if text != APOLOGY]
    assert len(answers) == 2, answers
    assert STOCK_ANSWER_MARK in answers[0] and ORDER_ANSWER_MARK in answers[1], "in the order written"


@needs_redis
async def test_without_another_journal_a_message_is_answered_at_once(
    instances: tuple[Harness, Harness],
) -> None:
    _, second = instances
    seen = Interfere()
    second.bot.session.middleware(seen)
    await second.say(DEMO_USER_ID, ORDER_QUESTION)
    assert len(seen.texts(ORDER_ANSWER_MARK)) == 1
