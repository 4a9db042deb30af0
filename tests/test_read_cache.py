"""The per-update reads served from caches: an answer is reused, and every change is seen at once."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from aiogram.methods import ForwardMessage, SendMessage
from sqlalchemy import event

from bot.app import build_app
from services.handoff import sessions as handoff
from services.inbox.read_cache import MISSING, KeyedCache, caches_for
from services.settings import Settings
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, OTHER_USER_ID, SUPPORT_CHAT_ID, Harness

REDIS_URL = "redis://127.0.0.1:6379/0"


def _statements(harness: Harness) -> list[str]:
    seen: list[str] = []
    event.listen(
        harness.app.engine.sync_engine,
        "before_cursor_execute",
        lambda _c, _cur, statement, *_: seen.append(statement),
    )
    return seen


async def test_repeated_reads_come_from_the_cache(harness: Harness) -> None:
    await harness.say(DEMO_USER_ID, "What payment methods do you accept?")
    seen = _statements(harness)
    [answer] = await harness.say(DEMO_USER_ID, "where is order 20240115-001234?")
    assert "20240115-001234" in answer
    assert not [s for s in seen if "customers.telegram_user_id =" in s or "FROM handoff_sessions" in s]
    assert any("FROM orders" in s for s in seen), "the order itself is read fresh"


async def test_linking_a_customer_is_seen_by_the_next_message(harness: Harness) -> None:
    before, *_entries = await harness.say(OTHER_USER_ID, "where is my order?")
    assert before == t("need_contact", Language.EN)
    caches = caches_for(harness.app.engine.sync_engine)
    assert caches.customers.get(OTHER_USER_ID) is None, "the stranger's 'nobody' is cached"
    link = harness.updates.contact(OTHER_USER_ID, "+82 10-9876-5432", contact_user_id=OTHER_USER_ID)
    await harness.feed(link)
    [after] = await harness.say(OTHER_USER_ID, "where is order 20240116-009999?")
    assert "Lotte Global" in after


async def test_a_handoff_opened_and_closed_elsewhere_is_seen_at_once(harness: Harness) -> None:
    """Opened and closed in sessions of their own (an admin tool, another handler): the customer's
    next message follows each change, though the open/closed answer was cached before."""
    await harness.say(DEMO_USER_ID, "What payment methods do you accept?")
    assert harness.app and caches_for(harness.app.engine.sync_engine).handoffs.get(DEMO_USER_ID) is None
    async with harness.app.session_factory() as session:
        await handoff.open_handoff(session, user_id=DEMO_USER_ID, chat_id=DEMO_USER_ID, language=Language.EN)
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "SKU-7890 재고 있나요?"))
    assert [(type(c), getattr(c, "chat_id", None)) for c in calls] == [(ForwardMessage, SUPPORT_CHAT_ID)]
    async with harness.app.session_factory() as session:
        assert await handoff.close_handoff(session, DEMO_USER_ID)
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "SKU-7890 재고 있나요?"))
    assert [type(c) for c in calls if isinstance(c, (SendMessage, ForwardMessage))] == [SendMessage]


async def test_a_write_rolled_back_changes_nothing_and_a_read_during_a_change_is_not_kept(
    harness: Harness,
) -> None:
    await harness.say(DEMO_USER_ID, "What payment methods do you accept?")
    cache = caches_for(harness.app.engine.sync_engine).handoffs
    generation = cache.generation
    async with harness.app.session_factory() as session:
        await handoff.open_handoff(session, user_id=DEMO_USER_ID, chat_id=DEMO_USER_ID, language=Language.EN)
    assert cache.get(DEMO_USER_ID) is MISSING and cache.generation > generation
    cache.put(DEMO_USER_ID, None, generation=generation)  # a read that began before the change
    assert cache.get(DEMO_USER_ID) is MISSING, "an answer read before a change is not stored after it"


def test_the_cache_is_bounded_and_expires() -> None:
    now = [0.0]
    cache: KeyedCache[int, str] = KeyedCache(ttl=10.0, max_entries=2, clock=lambda: now[0])
    for key in (1, 2, 3):
        cache.put(key, f"v{key}", generation=cache.generation)
    assert (cache.get(1), cache.get(2), cache.get(3)) == (MISSING, "v2", "v3")
    now[0] = 11.0
    assert cache.get(3) is MISSING


@pytest.fixture
def redis_prefix() -> str:
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        pytest.skip(f"no Redis at {REDIS_URL}: {error}")
    return f"test-h12-cache-{uuid.uuid4().hex[:8]}"


async def test_another_process_hears_of_a_change_over_redis(
    settings: Settings, redis_prefix: str, tmp_path: Path
) -> None:
    """Two processes on one database (two apps, two engines): a hand-off opened by one is seen
    by the other, whose cache said 'no hand-off' a moment before."""
    shared = settings.model_copy(update={"redis_url": REDIS_URL, "redis_prefix": redis_prefix})
    first = await build_app(shared, upgrade=False, seed=True)
    second = await build_app(
        shared.model_copy(update={"journal_path": str(tmp_path / "second.jsonl")}), upgrade=False
    )
    try:
        other = Harness(second)
        await other.say(DEMO_USER_ID, "What payment methods do you accept?")
        cache = caches_for(second.engine.sync_engine).handoffs
        assert cache.get(DEMO_USER_ID) is None
        async with first.session_factory() as session:
            await handoff.open_handoff(
                session, user_id=DEMO_USER_ID, chat_id=DEMO_USER_ID, language=Language.EN
            )
        async with asyncio.timeout(5):
            while cache.get(DEMO_USER_ID) is not MISSING:  # noqa: ASYNC110  # pub/sub has no event to await
                await asyncio.sleep(0.01)
        calls = await other.feed(other.updates.text(DEMO_USER_ID, "SKU-7890 재고 있나요?"))
        assert [(type(c), getattr(c, "chat_id", None)) for c in calls] == [(ForwardMessage, SUPPORT_CHAT_ID)]
    finally:
        await second.close()
        await first.close()
