"""With CSBOT_REDIS_URL a return form in progress survives a restart (Redis at 127.0.0.1:6379)."""

from __future__ import annotations

import socket
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from aiogram.methods import SendMessage, TelegramMethod

from bot.app import build_app
from bot.fsm_storage import StateStoreUnreachable, open_state_store
from db.models import ReturnRequest
from services.settings import Settings
from tests.harness import DEMO_USER_ID, Harness, buttons

REDIS_URL = "redis://127.0.0.1:6379/0"


def redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not redis_answers(), reason="no Redis server at 127.0.0.1:6379")


@pytest.fixture
def redis_settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"redis_url": REDIS_URL, "redis_prefix": f"csbot-test-{uuid.uuid4().hex}"}
    )


@pytest.fixture
async def redis_harness(redis_settings: Settings) -> AsyncIterator[Harness]:
    app = await build_app(redis_settings, upgrade=False, seed=True)
    yield Harness(app)
    await app.close()


def last_buttons(calls: Sequence[TelegramMethod[Any]]) -> list[tuple[str, str]]:
    return buttons([c for c in calls if isinstance(c, SendMessage)][-1])


async def test_a_return_form_survives_a_restart(redis_harness: Harness, redis_settings: Settings) -> None:
    calls = await redis_harness.feed(redis_harness.updates.text(DEMO_USER_ID, "/return"))
    calls = await redis_harness.feed(redis_harness.updates.callback(DEMO_USER_ID, last_buttons(calls)[0][1]))
    item = last_buttons(calls)[0][1]
    await redis_harness.app.close()

    restarted = Harness(await build_app(redis_settings, upgrade=False), updates=redis_harness.updates)
    try:
        calls = await restarted.feed(restarted.updates.callback(DEMO_USER_ID, item))
        calls = await restarted.feed(restarted.updates.callback(DEMO_USER_ID, last_buttons(calls)[0][1]))
        calls = await restarted.feed(restarted.updates.callback(DEMO_USER_ID, last_buttons(calls)[0][1]))
        await restarted.feed(restarted.updates.callback(DEMO_USER_ID, last_buttons(calls)[0][1]))
        assert len(await restarted.rows(ReturnRequest)) == 1
    finally:
        await restarted.app.close()
    redis_harness.app.state_store = None  # already closed above


async def test_unreachable_redis_names_the_variable() -> None:
    with pytest.raises(StateStoreUnreachable, match="CSBOT_REDIS_URL"):
        await open_state_store("redis://127.0.0.1:1/0")
