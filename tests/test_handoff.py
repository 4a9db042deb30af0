"""Hand-off round trip: customer -> support chat -> staff reply -> customer, across restarts."""

from __future__ import annotations

from datetime import timedelta

from aiogram.methods import ForwardMessage, SendMessage

from bot.app import build_app
from db.models import HandoffLink, HandoffSession, InboundMessage
from services.handoff.sessions import format_age
from services.settings import Settings
from services.shop.local_time import local_minute
from services.text.sentences import Language, t
from tests.harness import ADMIN_ID, DEMO_USER_ID, OTHER_USER_ID, SUPPORT_CHAT_ID, Harness, texts_to


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
    assert texts_to(calls, DEMO_USER_ID) == [t("staff_reply", Language.KO, text="주문 확인해 드릴게요")]


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
        assert texts_to(calls, DEMO_USER_ID) == [t("staff_reply", Language.KO, text="Back after the restart")]
        calls = await restarted.feed(restarted.updates.text(DEMO_USER_ID, "thanks"))
        assert [type(c) for c in calls] == [ForwardMessage]
    finally:
        await restarted.app.close()


async def test_customer_returns_to_the_bot(harness: Harness) -> None:
    await open_handoff(harness)
    assert await harness.say(DEMO_USER_ID, "/bot") == [t("handoff_ended", Language.KO)]
    replies = await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    assert "SKU-7890" in replies[0]
    [closed] = await harness.rows(HandoffSession)
    assert closed.closed_at is not None


async def test_staff_close_ends_the_handoff(harness: Harness) -> None:
    forwarded_id = await open_handoff(harness)
    calls = await harness.feed(staff_reply_to(harness, forwarded_id, "/close"))
    assert texts_to(calls, DEMO_USER_ID) == [
        t("handoff_ended", Language.KO),
        t("rating_question", Language.KO),
    ]
    assert "SKU-7890" in (await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?"))[0]


async def test_staff_reply_to_an_unrelated_message_goes_nowhere(harness: Harness) -> None:
    await open_handoff(harness)
    calls = await harness.feed(staff_reply_to(harness, 1, "hello?"))
    assert not [c for c in calls if isinstance(c, SendMessage) and c.chat_id == DEMO_USER_ID]


async def test_unreachable_support_chat_is_told_and_logged(harness: Harness) -> None:
    harness.session.queue_error(SendMessage, error_code=403, description="Forbidden: bot was kicked")
    replies = await harness.say(DEMO_USER_ID, "talk to a human please")
    assert replies == [t("handoff_forward_failed", Language.EN)]
    [request] = await harness.rows(HandoffSession)
    assert request.closed_at is not None, "the request is recorded, and the customer is not stuck"
    assert "SKU-7890" in (await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?"))[0]


# --- the staff side (issue 11): each test fails on the code before the fix ---


def support_texts(calls) -> list[str]:  # type: ignore[no-untyped-def]
    return texts_to(calls, SUPPORT_CHAT_ID)


def staff_says(harness: Harness, text: str, *, user_id: int = 4242):  # type: ignore[no-untyped-def]
    """A staff message in the support group that replies to nothing."""
    return harness.updates.text(user_id, text, chat_id=SUPPORT_CHAT_ID, chat_type="supergroup")


async def test_button_forwards_the_customers_question_not_the_bots_answer(harness: Harness) -> None:
    question = harness.updates.text(DEMO_USER_ID, "What is the meaning of life?")
    assert question.message is not None
    calls = await harness.feed(question)
    [offer] = [c for c in calls if isinstance(c, SendMessage)]
    assert offer.text == t("faq_no_match", Language.EN)
    bot_message_id = 9_999  # the bot's answer, which carries the button
    calls = await harness.feed(
        harness.updates.callback(DEMO_USER_ID, "ho", message_id=bot_message_id, message_text=offer.text)
    )
    forwards = [c for c in calls if isinstance(c, ForwardMessage)]
    assert [(f.from_chat_id, f.message_id) for f in forwards] == [(DEMO_USER_ID, question.message.message_id)]
    [header] = support_texts(calls)
    assert "Customer: What is the meaning of life?" in header


async def test_staff_reply_after_close_does_not_reach_the_customer(harness: Harness) -> None:
    forwarded_id = await open_handoff(harness)
    await harness.feed(staff_reply_to(harness, forwarded_id, "/close"))
    calls = await harness.feed(staff_reply_to(harness, forwarded_id, "one more thing"))
    assert texts_to(calls, DEMO_USER_ID) == []
    assert any("closed" in text for text in support_texts(calls)), "staff learn why it was not sent"


async def test_second_close_does_not_tell_the_customer_again(harness: Harness) -> None:
    forwarded_id = await open_handoff(harness)
    calls = await harness.feed(staff_reply_to(harness, forwarded_id, "/close"))
    assert texts_to(calls, DEMO_USER_ID) == [
        t("handoff_ended", Language.KO),
        t("rating_question", Language.KO),
    ]
    calls = await harness.feed(staff_reply_to(harness, forwarded_id, "/close"))
    assert texts_to(calls, DEMO_USER_ID) == []
    assert support_texts(calls) == ["Already closed; the customer was told then."]


async def test_close_of_an_old_forward_leaves_a_newer_handoff_open(harness: Harness) -> None:
    old_forward = await open_handoff(harness)
    await harness.say(DEMO_USER_ID, "/bot")
    await harness.feed(harness.updates.text(DEMO_USER_ID, "상담원 연결해 주세요"))
    calls = await harness.feed(staff_reply_to(harness, old_forward, "/close"))
    assert texts_to(calls, DEMO_USER_ID) == []
    sessions = sorted(await harness.rows(HandoffSession), key=lambda row: row.id or 0)
    assert [row.closed_at is None for row in sessions] == [False, True]


async def test_header_gives_staff_the_customer_orders_and_last_turns(harness: Harness) -> None:
    await harness.say(DEMO_USER_ID, "주문 20240115-001234 배송 어디쯤이에요?")
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "상담원 연결해 주세요"))
    [header] = support_texts(calls)
    assert f"Telegram user {DEMO_USER_ID}" in header
    assert "Customer: 김민지, customer id DEMO-1" in header
    assert "- 20240115-001234 " in header, "recent orders of the linked customer"
    assert "Customer: 주문 20240115-001234 배송 어디쯤이에요?" in header
    assert "\nBot: " in header, "the bot's answer is among the last turns"
    assert header.rstrip().endswith(
        "Customer: 상담원 연결해 주세요\nReply to this or any forwarded message "
        "to answer; reply /close to end."
    )


async def test_header_for_a_stranger_says_not_linked_and_shows_no_orders(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "I want to talk to a real person"))
    [header] = support_texts(calls)
    assert "Customer: not linked" in header
    assert "20240115" not in header, "nobody else's orders"


async def test_staff_chatter_is_stored_but_not_customer_log_or_stats(harness: Harness) -> None:
    forwarded_id = await open_handoff(harness)
    calls = await harness.feed(staff_says(harness, "누가 이 고객 맡을래요?"))
    assert calls == [], "the bot does not answer staff talking among themselves"
    await harness.feed(staff_reply_to(harness, forwarded_id, "주문 확인해 드릴게요"))
    [stats] = await harness.say(ADMIN_ID, "/stats")
    assert "Messages: 1\n" in stats, stats
    [log] = await harness.say(ADMIN_ID, "/logs")
    assert "상담원 연결해 주세요" in log
    assert "누가" not in log and "주문 확인해" not in log
    stored = await harness.rows(InboundMessage)
    assert len(stored) == 5, "every update is stored, staff and admin ones too: nothing is lost"
    assert {row.route for row in stored if row.chat_id == SUPPORT_CHAT_ID} == {"staff", "staff-reply"}


async def test_customer_conversation_leaves_out_what_went_to_the_support_chat(harness: Harness) -> None:
    """The brief carries the customer's phone and orders: it is not something the bot said to
    them, so neither /conversation nor the model's context may show it as a bot turn."""
    forwarded_id = await open_handoff(harness)
    await harness.feed(staff_reply_to(harness, forwarded_id, "주문 확인해 드릴게요"))
    [view] = await harness.say(ADMIN_ID, f"/conversation {DEMO_USER_ID}")
    assert "Hand-off" not in view
    assert "주문 확인해 드릴게요" in view, "the staff reply did reach the customer's chat"


async def test_handoffs_lists_open_ones_with_their_age(harness: Harness, settings: Settings) -> None:
    await open_handoff(harness)
    await harness.feed(harness.updates.text(OTHER_USER_ID, "I want to talk to a real person"))
    await harness.say(OTHER_USER_ID, "/bot")
    [listing] = await harness.say(ADMIN_ID, "/handoffs")
    lines = listing.splitlines()
    assert lines[0] == "Open hand-offs: 1"
    assert f"user {DEMO_USER_ID} (ko), waiting 0m" in lines[1]
    [opened] = [row for row in await harness.rows(HandoffSession) if row.closed_at is None]
    assert lines[1].endswith(f"since {local_minute(opened.opened_at, settings.shop_policy().timezone)}")
    assert not any(str(OTHER_USER_ID) in line for line in lines), "closed ones are not listed"
    # in the language the customer wrote in, not their Korean app's
    assert await harness.say(OTHER_USER_ID, "/handoffs") == [t("unknown_command", Language.EN)]


def test_age_reads_at_a_glance() -> None:
    assert [format_age(timedelta(minutes=m)) for m in (0, 7, 125, 60 * 24 * 3 + 250)] == [
        "0m",
        "7m",
        "2h 05m",
        "3d 4h",
    ]
