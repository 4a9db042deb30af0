"""The outgoing limiter: Telegram's limits kept for every call, final answers before previews,
and one budget for all processes of a bot through Redis, kept by each process alone while
Redis does not answer."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiogram import Bot
from aiogram.methods import EditMessageText, ForwardMessage, SendChatAction, SendMessage, SendMessageDraft

from bench.redis_proxy import RedisProxy
from bot.middlewares.telegram_limits import (
    OutgoingLimiter,
    TelegramLimits,
    as_preview,
    limiter_for,
)
from bot.rate_windows import FailOpenWindows, LocalWindows, RateWindows, RedisWindows, Window
from bot.recording_session import LOCAL_BOT_TOKEN, RecordingSession
from handlers.streaming import PreviewDropped

REDIS_URL = "redis://127.0.0.1:6379/0"


class Clock:
    """Virtual time: a sleep moves it on, so tests of 30-per-second limits take no real time."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def in_any_window(times: list[float], seconds: float) -> int:
    """The most events in any window of `seconds` (closed at its end, as the windows count)."""
    times = sorted(times)
    return max((sum(1 for t in times if end - seconds < t <= end) for end in times), default=0)


# --- one contract for both window stores ---------------------------------------------------


def _require_redis() -> None:
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        pytest.skip(f"no Redis at {REDIS_URL}: {error}")


@pytest.fixture
async def redis_client() -> AsyncIterator[Any]:
    _require_redis()
    from redis.asyncio import BlockingConnectionPool, Redis

    # A few connections that callers wait for, connected without a tight deadline: 90 sends at
    # once, each opening its own connection within 1 s, fail on a loaded machine.
    pool = BlockingConnectionPool.from_url(
        REDIS_URL, max_connections=8, timeout=60, socket_connect_timeout=30
    )
    client = Redis(connection_pool=pool)
    yield client
    await client.aclose()
    await pool.aclose()


@pytest.fixture(params=["local", "redis"])
async def windows(request: pytest.FixtureRequest) -> AsyncIterator[RateWindows]:
    if request.param == "local":
        yield LocalWindows()
        return
    _require_redis()
    from redis.asyncio import Redis

    client = Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    yield RedisWindows(client, prefix=f"test-h12-{uuid.uuid4().hex[:8]}")
    await client.aclose()


async def test_a_window_admits_its_limit_then_says_how_long_to_wait(windows: RateWindows) -> None:
    window = Window(3, 0.5)
    assert [await windows.acquire("k", window) for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = await windows.acquire("k", window)
    assert 0 < wait <= 0.5
    assert await windows.acquire("other", window) == 0.0, "keys are counted apart"
    await asyncio.sleep(wait + 0.02)
    assert await windows.acquire("k", window) == 0.0, "the oldest left the window"


async def test_headroom_keeps_slots_free_for_others(windows: RateWindows) -> None:
    window = Window(3, 5.0)
    assert await windows.acquire("k", window, headroom=1) == 0.0
    assert await windows.acquire("k", window, headroom=1) == 0.0
    assert await windows.acquire("k", window, headroom=1) > 0, "the last slot is kept"
    assert await windows.acquire("k", window) == 0.0, "and taken by a call without headroom"


async def test_an_event_settled_is_counted_from_its_settling(windows: RateWindows) -> None:
    """Two keys admitted together; one settled a quarter second later: its window now runs from
    the settling, the other's still from the admission."""
    window = Window(1, 30.0)
    assert await windows.acquire("settled", window, mark="a") == 0.0
    assert await windows.acquire("kept", window, mark="a") == 0.0
    await asyncio.sleep(0.25)
    await windows.settle([("settled", window)], "a")
    settled_wait = await windows.acquire("settled", window, mark="b")
    kept_wait = await windows.acquire("kept", window, mark="b")
    assert settled_wait - kept_wait >= 0.2, (settled_wait, kept_wait)
    assert settled_wait <= 30.0


def test_a_settled_event_that_left_its_window_counts_again() -> None:
    """A call slower than the window: the receiver counts the event on arrival, so it is back."""
    clock = Clock()
    windows = LocalWindows(clock)
    window = Window(1, 1.0)
    assert windows.acquire_now("k", window, mark="slow") == 0.0
    clock.now += 2.5
    windows.settle_now([("k", window)], "slow")
    assert windows.used("k", window) == 1
    assert windows.acquire_now("k", window, mark="next") == pytest.approx(1.0)
    clock.now += 1.0
    assert windows.acquire_now("k", window, mark="next") == 0.0


def test_local_windows_forget_idle_keys() -> None:
    clock = Clock()
    windows = LocalWindows(clock)
    for chat in range(3000):
        windows.acquire_now(f"chat:{chat}", Window(1, 1.0))
    clock.now += 120
    windows.acquire_now("fresh", Window(1, 1.0))
    for chat in range(3000, 5000):
        windows.acquire_now(f"chat:{chat}", Window(1, 1.0))
    assert windows.used("chat:1", Window(1, 1.0)) == 0
    assert len(windows._events) < 4000


# --- the limiter ---------------------------------------------------------------------------


def limited_bot(
    clock: Clock, windows: RateWindows | None = None
) -> tuple[Bot, RecordingSession, list[float]]:
    session = RecordingSession()
    sent_at: list[float] = []
    original = session.make_request

    async def stamped(bot: Bot, method: Any, timeout: int | None = None) -> Any:  # noqa: ASYNC109
        sent_at.append(clock())
        return await original(bot, method, timeout)

    session.make_request = stamped  # type: ignore[method-assign]
    bot = Bot(LOCAL_BOT_TOKEN, session=session)
    bot.session.middleware(OutgoingLimiter(windows or LocalWindows(clock), sleep=clock.sleep))
    return bot, session, sent_at


async def test_final_messages_to_many_chats_keep_30_per_second() -> None:
    clock = Clock()
    bot, session, sent_at = limited_bot(clock)
    for chat in range(90):
        await bot.send_message(10_000 + chat, "answer")
    assert len(session.sent(SendMessage)) == 90, "none dropped: final messages wait their turn"
    assert in_any_window(sent_at, 1.0) <= 30
    assert clock.now - 1000.0 >= 2.0, "90 messages at 30 a second take two seconds at least"


async def test_one_chat_gets_about_one_a_second_and_a_group_20_a_minute() -> None:
    clock = Clock()
    bot, _, sent_at = limited_bot(clock)
    for _ in range(9):
        await bot.send_message(42, "answer")
    assert in_any_window(sent_at, 3.0) <= 3
    sent_at.clear()
    for _ in range(25):
        await bot.send_message(-100_5, "answer")
    assert in_any_window(sent_at, 60.0) <= 20
    assert max(sent_at) - min(sent_at) >= 60.0


async def test_previews_are_dropped_not_delayed_and_the_final_message_still_goes() -> None:
    clock = Clock()
    bot, session, _ = limited_bot(clock)
    await bot.send_message_draft(chat_id=42, draft_id=1, text="Hel")
    await bot.send_message_draft(chat_id=42, draft_id=1, text="Hello")
    started = clock.now
    with pytest.raises(PreviewDropped):
        await bot.send_message_draft(chat_id=42, draft_id=1, text="Hello, w")
    assert clock.now == started, "a preview never waits"
    await bot.send_message(42, "Hello, world")
    assert [type(call) for call in session.requests] == [SendMessageDraft, SendMessageDraft, SendMessage]
    with as_preview(), pytest.raises(PreviewDropped):
        await bot.edit_message_text(text="streamed edit", chat_id=42, message_id=7)
    await bot.edit_message_text(text="final edit", chat_id=42, message_id=7)
    assert isinstance(session.requests[-1], EditMessageText)


async def test_previews_leave_the_global_budget_to_final_messages() -> None:
    clock = Clock()
    bot, session, _ = limited_bot(clock)
    for chat in range(24):
        await bot.send_message(20_000 + chat, "answer")
    with pytest.raises(PreviewDropped):
        await bot.send_message_draft(chat_id=30_000, draft_id=1, text="preview")
    for chat in range(6):
        await bot.send_message(20_100 + chat, "answer")
    assert len(session.sent(SendMessage)) == 30 and clock.now == 1000.0


async def test_a_waiting_final_message_goes_before_any_preview() -> None:
    clock = Clock()
    bot, session, _ = limited_bot(clock)
    for chat in range(30):
        await bot.send_message(20_000 + chat, "answer")
    release = asyncio.Event()

    async def slow_sleep(seconds: float) -> None:
        await release.wait()
        clock.now += seconds

    limiter = next(m for m in bot.session.middleware._middlewares if isinstance(m, OutgoingLimiter))
    limiter._sleep = slow_sleep
    final = asyncio.create_task(bot.send_message(40_000, "final"))
    await asyncio.sleep(0)
    clock.now += 1.5  # the window has room again, but the final message was first in line
    with pytest.raises(PreviewDropped):
        await bot.send_message_draft(chat_id=40_001, draft_id=1, text="preview")
    release.set()
    await final
    assert isinstance(session.requests[-1], SendMessage) and session.requests[-1].chat_id == 40_000


async def test_a_slow_call_holds_its_slot_until_it_comes_back() -> None:
    """The first message spends 0.9 s on its way (a loaded machine, a slow network) and Telegram
    counts it on arrival: the messages after it keep the limit as Telegram counts, not only as
    the limiter decided. Counted from their admission, the third would arrive 0.1 s after the
    first and be refused."""
    clock = Clock()
    session = RecordingSession()
    arrived: list[float] = []
    delays = iter([0.9])
    original = session.make_request

    async def on_its_way(bot: Bot, method: Any, timeout: int | None = None) -> Any:  # noqa: ASYNC109
        clock.now += next(delays, 0.0)
        arrived.append(clock())
        return await original(bot, method, timeout)

    session.make_request = on_its_way  # type: ignore[method-assign]
    bot = Bot(LOCAL_BOT_TOKEN, session=session)
    limits = TelegramLimits(overall=Window(2, 1.0))
    bot.session.middleware(OutgoingLimiter(LocalWindows(clock), limits, margin=0.0, sleep=clock.sleep))
    for chat in range(4):
        await bot.send_message(80_000 + chat, "answer")
    assert len(arrived) == 4
    assert in_any_window(arrived, 1.0) <= 2, arrived
    assert arrived[2] >= arrived[0] + 1.0


async def test_forwards_count_and_typing_indicators_do_not() -> None:
    clock = Clock()
    bot, session, _ = limited_bot(clock)
    for _ in range(10):
        await bot.send_chat_action(42, "typing")
    assert clock.now == 1000.0
    for message_id in range(3):
        await bot.forward_message(chat_id=-100_5, from_chat_id=42, message_id=message_id)
    assert len(session.sent(SendChatAction)) == 10 and len(session.sent(ForwardMessage)) == 3
    limiter = next(m for m in bot.session.middleware._middlewares if isinstance(m, OutgoingLimiter))
    assert limiter.sent["forwardMessage"] == 3 and "sendChatAction" not in limiter.sent


async def test_two_processes_share_one_global_budget_through_redis(redis_client: Any) -> None:
    """Two limiters (two processes) on one Redis prefix, 45 final messages each to distinct
    chats: together they keep 30 per second, as Telegram counts them for the bot."""
    prefix = f"test-h12-{uuid.uuid4().hex[:8]}"
    sent_at: list[float] = []

    def process() -> Bot:
        session = RecordingSession()
        original = session.make_request

        async def stamped(bot: Bot, method: Any, timeout: int | None = None) -> Any:  # noqa: ASYNC109
            sent_at.append(time.monotonic())
            return await original(bot, method, timeout)

        session.make_request = stamped  # type: ignore[method-assign]
        bot = Bot(LOCAL_BOT_TOKEN, session=session)
        limits = TelegramLimits(overall=Window(30, 1.0))
        bot.session.middleware(OutgoingLimiter(RedisWindows(redis_client, prefix=prefix), limits))
        return bot

    first, second = process(), process()

    async def send_all(bot: Bot, base: int) -> None:
        await asyncio.gather(*(bot.send_message(base + chat, "answer") for chat in range(45)))

    started = time.monotonic()
    await asyncio.gather(send_all(first, 50_000), send_all(second, 60_000))
    assert len(sent_at) == 90
    assert time.monotonic() - started >= 2.0, "90 messages at 30 a second"
    assert in_any_window(sent_at, 0.95) <= 30  # a little slack for Redis's clock against ours


# --- Redis that does not answer: the limiter fails open ------------------------------------


@pytest.fixture
async def redis_proxy() -> AsyncIterator[RedisProxy]:
    _require_redis()
    proxy = RedisProxy("127.0.0.1", 6379)
    await proxy.start()
    yield proxy
    await proxy.close()


@pytest.mark.parametrize("outage", ["frozen", "refusing"])
async def test_messages_go_out_on_local_windows_while_redis_does_not_answer(
    redis_proxy: RedisProxy, redis_client: Any, outage: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis behind a proxy that freezes (no byte moves, nothing closes) or refuses connections.
    Every message still goes out, decided by this process's windows (which keep the limits);
    Redis is tried once per cool-down, not once per message; after it is back and the cool-down
    has passed, the shared windows decide again. One warning, one info line."""
    from redis.asyncio import Redis

    client = Redis.from_url(redis_proxy.url, socket_timeout=3, socket_connect_timeout=3)
    clock, breaker_clock = Clock(), Clock()
    prefix = f"test-h12-{uuid.uuid4().hex[:8]}"
    windows = FailOpenWindows(
        RedisWindows(client, prefix=prefix),
        LocalWindows(clock),
        timeout=0.5,
        cooldown=5.0,
        clock=breaker_clock,
    )
    bot, session, sent_at = limited_bot(clock, windows)
    try:
        for chat in range(5):
            await bot.send_message(70_000 + chat, "before")
        assert (windows.shared_calls, windows.local_calls) == (10, 0), "a chat's and the bot's window each"

        if outage == "frozen":
            redis_proxy.freeze()
        else:
            await redis_proxy.refuse()
        with caplog.at_level(logging.INFO, logger="bot.rate_windows"):
            for chat in range(40):
                await bot.send_message(71_000 + chat, "during")
            assert len(session.sent(SendMessage)) == 45, "every message went out"
            assert windows.shared_calls - 10 < 3, "Redis tried once per cool-down, not per message"
            assert windows.local_calls >= 79 and windows.on_local
            assert in_any_window(sent_at[5:], 1.0) <= 30, "the local windows keep the limit"

            await redis_proxy.restore()
            breaker_clock.now += 5.0  # the cool-down passes
            shared_before = windows.shared_calls
            for chat in range(10):
                await bot.send_message(72_000 + chat, "after")
        assert windows.shared_calls - shared_before == 20 and not windows.on_local, "Redis decides again"
        assert await redis_client.zcard(f"{prefix}:rate:bot:{bot.id}:chat:72009") == 1
        assert await redis_client.zcard(f"{prefix}:rate:bot:{bot.id}:chat:71039") == 0
        assert len(session.sent(SendMessage)) == 55
        lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "bot.rate_windows"]
        assert [level for level, _ in lines] == [logging.WARNING, logging.INFO], lines
    finally:
        await client.aclose()


async def test_the_serving_limiter_does_not_wait_on_a_frozen_redis_per_message(
    redis_proxy: RedisProxy,
) -> None:
    """`csbot run`'s limiter, on a Redis client with the default 3 s operation timeout."""
    from redis.asyncio import Redis

    client = Redis.from_url(redis_proxy.url, socket_timeout=3, socket_connect_timeout=3)
    limiter = limiter_for(client, prefix=f"test-h12-{uuid.uuid4().hex[:8]}", redis_timeout=3.0)
    session = RecordingSession()
    bot = Bot(LOCAL_BOT_TOKEN, session=session)
    bot.session.middleware(limiter)
    try:
        await bot.send_message(73_000, "before")
        redis_proxy.freeze()
        for chat in range(20):
            await bot.send_message(73_001 + chat, "during")
        assert len(session.sent(SendMessage)) == 21
        assert isinstance(limiter.windows, FailOpenWindows)
        assert limiter.windows.shared_calls <= 3, "one Redis timeout per cool-down, not one per message"
        assert limiter.windows.local_calls >= 38
    finally:
        await redis_proxy.restore()
        await client.aclose()
