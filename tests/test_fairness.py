"""One chat's burst waits in its own line: other customers are answered meanwhile, in order."""

from __future__ import annotations

import asyncio
from typing import Any

from aiogram.methods import SendMessage
from sqlmodel import select

from db.models import InboundMessage, OutboundMessage
from tests.harness import DEMO_USER_ID, Harness

BUSY_CHAT = DEMO_USER_ID
OTHERS = [700_100_001 + index for index in range(5)]


async def test_a_chat_sending_many_messages_does_not_hold_up_the_others(harness: Harness) -> None:
    dispatcher = harness.app.dispatcher
    dispatcher.scheduler.capacity = 3
    # Telegram answers nobody until every update has arrived: how many wait then does not depend
    # on how fast the machine happens to answer the first ones.
    telegram_answers = asyncio.Event()
    make_request = harness.session.make_request

    async def held_request(*args: Any, **kwargs: Any) -> Any:
        await telegram_answers.wait()
        return await make_request(*args, **kwargs)

    harness.session.make_request = held_request  # type: ignore[method-assign]
    burst = [harness.updates.text(BUSY_CHAT, f"SKU-7890 재고 있나요? #{n}") for n in range(30)]
    others = [harness.updates.text(user, "What payment methods do you accept?") for user in OTHERS]
    for update in burst:
        await dispatcher.dispatch(harness.bot, update)  # the poller's path: stored, then queued
    for update in others:
        await dispatcher.dispatch(harness.bot, update)
    assert dispatcher.scheduler.waiting >= 15, "the burst waits in its chat's line, not in slots"
    telegram_answers.set()
    async with asyncio.timeout(120):
        await dispatcher.scheduler.idle()

    replies = [call.chat_id for call in harness.session.requests if isinstance(call, SendMessage)]
    busy_positions = [index for index, chat in enumerate(replies) if chat == BUSY_CHAT]
    assert len(busy_positions) == len(burst)
    for user in OTHERS:
        # Each waits for at most a slot: a few of the burst's replies, not the burst.
        assert replies.index(user) < busy_positions[3], f"{user} waited behind the burst: {replies}"

    async with harness.app.session_factory() as session:
        rows = (await session.exec(select(InboundMessage).where(InboundMessage.chat_id == BUSY_CHAT))).all()
        order = {row.id: row.update_id or 0 for row in rows}
        sent = (
            await session.exec(
                select(OutboundMessage)
                .where(OutboundMessage.chat_id == BUSY_CHAT)
                .order_by(OutboundMessage.id)  # type: ignore[arg-type]
            )
        ).all()
    assert {row.status for row in rows} == {"answered"}
    answered_updates = [order[row.inbound_id] for row in sent]
    assert answered_updates == sorted(answered_updates), "the chat's messages were answered in order"
