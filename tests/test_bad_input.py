"""Bad input gets a polite reply, and nothing is lost: every message is stored."""

from __future__ import annotations

from aiogram.methods import SendMessage

from db.models import InboundMessage, OutboundMessage
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, Harness


async def test_blank_text(harness: Harness) -> None:
    # No words, nothing said before: the Telegram app's language (the harness's customers use Korean).
    assert await harness.say(DEMO_USER_ID, "   ") == [t("empty_text", Language.KO)]
    [row] = await harness.rows(InboundMessage)
    assert row.text == "   " and row.route == "bad-input"


async def test_sticker_and_photo(harness: Harness) -> None:
    await harness.feed(harness.updates.sticker(DEMO_USER_ID))
    calls = await harness.feed(harness.updates.photo(DEMO_USER_ID, caption="이거 파손됐어요"))
    assert [c.text for c in calls if isinstance(c, SendMessage)] == [t("unsupported_content", Language.KO)]
    rows = await harness.rows(InboundMessage)
    assert [(r.kind, r.text) for r in rows] == [("sticker", ""), ("photo", "이거 파손됐어요")]
    assert len(await harness.rows(OutboundMessage)) == 2


async def test_ten_thousand_characters(harness: Harness) -> None:
    text = "SKU-7890 재고 있나요? " + "가" * 10_000
    replies = await harness.say(DEMO_USER_ID, text)
    assert replies[0] == t("too_long", Language.KO, limit=4096)
    assert "SKU-7890" in replies[1]
    [row] = await harness.rows(InboundMessage)
    assert row.text == text, "the whole message is kept for the admins"


async def test_malformed_ids_get_a_clear_request(harness: Harness) -> None:
    [reply] = await harness.say(DEMO_USER_ID, "where is order 2024-0115?")
    assert reply.startswith("Your recent orders. Send an order number for details:")
    [reply] = await harness.say(DEMO_USER_ID, "is SKU-99999999 in stock?")
    assert reply == t("sku_unknown", Language.EN, skus="SKU-99999999")
    [reply] = await harness.say(DEMO_USER_ID, "track order #77")
    assert "20240115-001234" in reply  # no usable id: the customer's own orders are listed


async def test_unknown_order_number(harness: Harness) -> None:
    assert await harness.say(DEMO_USER_ID, "order 20231301-999999 배송 조회") == [
        harness.said("order_not_found", Language.KO, reference="20231301-999999")
    ]


async def test_a_refused_reply_is_stored_with_its_text_and_apologised_for(harness: Harness) -> None:
    """A 4xx other than 429 would fail again: no retry, the reply kept as failed, the apology sent."""
    harness.session.queue_error(SendMessage, error_code=400, description="Bad Request: something odd")
    replies = await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    assert replies[-1] == t("internal_error", Language.KO)
    [row] = await harness.rows(InboundMessage)
    assert row.text == "SKU-7890 재고 있나요?"
    assert row.intent == "stock" and row.status == "failed"
    assert row.error is not None and "TelegramBadRequest" in row.error
    refused, apology = await harness.rows(OutboundMessage)
    assert (
        refused.status == "failed" and "SKU-7890" in refused.text and "something odd" in (refused.error or "")
    )
    assert apology.status == "sent" and apology.text == t("internal_error", Language.KO)


async def test_handler_crash_is_stored_and_apologised_for(harness: Harness, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A bug (not a Telegram error) in a service: same outcome."""
    from handlers import inquiries

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("database on fire")

    monkeypatch.setattr(inquiries, "answer_inquiry", broken)
    assert await harness.say(DEMO_USER_ID, "where is my order?") == [t("internal_error", Language.EN)]
    [row] = await harness.rows(InboundMessage)
    assert row.error == "RuntimeError: database on fire"
