"""Hand-off round trip: customer -> support chat -> staff reply -> customer, across restarts."""

from __future__ import annotations

from aiogram.methods import ForwardMessage, SendMessage

from bot.app import build_app
from bot.config import Settings
from db.models import HandoffLink, HandoffSession
from services.texts import t
from tests.harness import DEMO_USER_ID, SUPPORT_CHAT_ID, Harness, texts_to


def staff_reply_to(harness: Harness, support_message_id: int, text: str):  # type: ignore[no-untyped-def]
    replied = {
        "message_id": support_message_id,
        "date": 0,
        "chat": harness.updates.chat(SUPPORT_CHAT_ID, chat_type="supergroup"),
        "text": "forwarded",
    }
    return harness.updates.text(4242, text, chat_id=SUPPORT_CHAT_ID, chat_type="supergroup", reply_to=replied)


async def open_handoff(harness: Harness) -> int:
    """Ask for a person; return the support-chat message id staff would reply to."""
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "상담원 연결해 주세요"))
    assert [c.chat_id for c in calls if isinstance(c, ForwardMessage)] == [SUPPORT_CHAT_ID]
    links = await harness.rows(HandoffLink)
    assert len(links) == 2, "the header and the forwarded message are both remembered"
    return max(link.support_message_id for link in links)


async def test_round_trip_reaches_the_customer(harness: Harness) -> None:
    forwarded_id = await open_handoff(harness)
    calls = await harness.feed(staff_reply_to(harness, forwarded_id, "주문 확인해 드릴게요"))
    assert texts_to(calls, DEMO_USER_ID) == [t("staff_reply", "ko", text="주문 확인해 드릴게요")]


async def test_messages_during_handoff_go_to_people_not_the_bot(harness: Harness) -> None:
    await open_handoff(harness)
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "SKU-7890 재고 있나요?"))
    assert [type(c) for c in calls] == [ForwardMessage]
    calls = await harness.feed(harness.updates.sticker(DEMO_USER_ID))
    assert [type(c) for c in calls] == [ForwardMessage]


async def test_mapping_survives_a_restart(harness: Harness, settings: Settings) -> None:
    forwarded_id = await open_handoff(harness)
    await harness.app.close()
    restarted = Harness(await build_app(settings, upgrade=False), updates=harness.updates)
    try:
        calls = await restarted.feed(staff_reply_to(restarted, forwarded_id, "Back after the restart"))
        assert texts_to(calls, DEMO_USER_ID) == [t("staff_reply", "ko", text="Back after the restart")]
        calls = await restarted.feed(restarted.updates.text(DEMO_USER_ID, "thanks"))
        assert [type(c) for c in calls] == [ForwardMessage]
    finally:
        await restarted.app.close()


async def test_customer_returns_to_the_bot(harness: Harness) -> None:
    await open_handoff(harness)
    assert await harness.say(DEMO_USER_ID, "/bot") == [t("handoff_ended", "ko")]
    replies = await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    assert "SKU-7890" in replies[0]
    [closed] = await harness.rows(HandoffSession)
    assert closed.closed_at is not None


async def test_staff_close_ends_the_handoff(harness: Harness) -> None:
    forwarded_id = await open_handoff(harness)
    calls = await harness.feed(staff_reply_to(harness, forwarded_id, "/close"))
    assert texts_to(calls, DEMO_USER_ID) == [t("handoff_ended", "ko")]
    assert "SKU-7890" in (await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?"))[0]


async def test_staff_reply_to_an_unrelated_message_goes_nowhere(harness: Harness) -> None:
    await open_handoff(harness)
    calls = await harness.feed(staff_reply_to(harness, 1, "hello?"))
    assert not [c for c in calls if isinstance(c, SendMessage) and c.chat_id == DEMO_USER_ID]


async def test_unreachable_support_chat_is_told_and_logged(harness: Harness) -> None:
    harness.session.queue_error(SendMessage, error_code=403, description="Forbidden: bot was kicked")
    replies = await harness.say(DEMO_USER_ID, "talk to a human please")
    assert replies == [t("handoff_forward_failed", "en")]
    [request] = await harness.rows(HandoffSession)
    assert request.closed_at is not None, "the request is recorded, and the customer is not stuck"
    assert "SKU-7890" in (await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?"))[0]
