"""Streaming verified answers to Telegram: drafts, throttling, 429s, long texts, groups, stop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest
from aiogram.methods import SendMessage, SendMessageDraft

from bot.dispatcher import create_bot
from bot.recording_session import LOCAL_BOT_TOKEN, RecordingSession
from db.models import OutboundMessage
from handlers.streaming import GenerationRegistry, ReplyStreamer
from services.llm.speculative import Step, VerifiedAnswer
from services.text.html import to_plain
from tests.clock import ManualClock
from tests.harness import DEMO_USER_ID, Harness

PREVIEW_CROWD = 15


def scripted(
    chunks: Sequence[tuple[float, str]], clock: ManualClock, *, replacement: str | None = None
) -> VerifiedAnswer:
    """An answer whose chunks arrive at the given (fake) times."""

    async def produce(answer: VerifiedAnswer) -> AsyncIterator[str]:
        for at, text in chunks:
            clock.now = at
            yield text
        if replacement is not None:
            answer.replacement = replacement

    return VerifiedAnswer(produce)


def streamer(session: RecordingSession, clock: ManualClock, *, chat_id: int = 5) -> ReplyStreamer:
    bot = create_bot(LOCAL_BOT_TOKEN, session=session)
    return ReplyStreamer(bot, chat_id, registry=GenerationRegistry(preview_crowd=PREVIEW_CROWD), clock=clock)


async def test_private_chat_drafts_at_most_once_a_second_then_commits() -> None:
    session, clock = RecordingSession(), ManualClock()
    chunks = [(t / 10, f"part{t} ") for t in range(25)]  # 25 chunks over 2.4 s
    final = await streamer(session, clock).stream(scripted(chunks, clock))
    drafts = session.sent(SendMessageDraft)
    assert len(drafts) == 3  # at 0.0, 1.0 and 2.0 s
    assert len({d.draft_id for d in drafts}) == 1 and drafts[0].draft_id != 0
    assert all(d.can_stop for d in drafts)
    assert drafts[-1].text == "".join(text for _, text in chunks[:21])
    [committed] = session.sent(SendMessage)
    assert committed.text == final.strip() == "".join(t for _, t in chunks).strip()


async def test_retry_after_slows_drafts_down() -> None:
    session, clock = RecordingSession(), ManualClock()
    session.queue_error(SendMessageDraft, error_code=429, description="Too Many Requests", retry_after=5)
    chunks = [(t / 2, "x ") for t in range(20)]  # 10 s of chunks, two a second
    await streamer(session, clock).stream(scripted(chunks, clock))
    drafts = session.sent(SendMessageDraft)
    # the first draft is refused at 0 s; nothing is tried again before 5 s, then every 2 s
    assert len(drafts) == 1 + 3
    assert len(session.sent(SendMessage)) == 1


async def test_a_long_answer_is_committed_in_parts_at_sentence_boundaries() -> None:
    session, clock = RecordingSession(), ManualClock()
    sentence = "주문은 평일 오후 2시까지 결제되면 당일 발송됩니다. "
    chunks = [(i * 0.01, sentence) for i in range(400)]
    await streamer(session, clock).stream(scripted(chunks, clock))
    parts = [m.text for m in session.sent(SendMessage)]
    assert len(parts) >= 3 and all(len(p) <= 4096 for p in parts)
    assert all(p.endswith("다.") for p in parts)
    assert " ".join(parts) == (sentence * 400).strip()
    assert all(len(d.text or "") <= 4096 for d in session.sent(SendMessageDraft))


async def test_replacement_is_what_gets_committed() -> None:
    session, clock = RecordingSession(), ManualClock()
    await streamer(session, clock).stream(
        scripted([(0, "Shipping is free. ")], clock, replacement="FAQ text.")
    )
    assert [m.text for m in session.sent(SendMessage)] == ["FAQ text."]


async def test_stop_button_cancels_generation_and_keeps_what_was_shown() -> None:
    session, clock = RecordingSession(), ManualClock()
    registry = GenerationRegistry(preview_crowd=PREVIEW_CROWD)
    bot = create_bot(LOCAL_BOT_TOKEN, session=session)
    reply = ReplyStreamer(bot, 5, registry=registry, clock=clock)
    release = asyncio.Event()

    first_shown = asyncio.Event()

    async def produce(answer: VerifiedAnswer) -> AsyncIterator[str]:
        yield "Orders ship the same day. "
        first_shown.set()
        await release.wait()  # the model keeps going until cancelled
        yield "never shown"

    task = asyncio.create_task(reply.stream(VerifiedAnswer(produce)))
    await first_shown.wait()
    draft = session.sent(SendMessageDraft)[0]
    assert registry.stop(5, draft.draft_id)
    final = await task
    assert reply.stopped and final == "Orders ship the same day. "
    assert [m.text for m in session.sent(SendMessage)] == ["Orders ship the same day."]


async def test_stop_update_reaches_the_registry_through_the_dispatcher(harness: Harness) -> None:
    from aiogram.types import Update

    registry: GenerationRegistry = harness.app.dispatcher["generations"]
    waiting = asyncio.create_task(asyncio.sleep(60))
    registry.add(DEMO_USER_ID, 77, waiting)
    update = Update.model_validate(
        {
            "update_id": 4242,
            "stopped_message_generation": {"chat": {"id": DEMO_USER_ID, "type": "private"}, "draft_id": 77},
        }
    )
    await harness.app.dispatcher.feed_update(harness.bot, update)
    with pytest.raises(asyncio.CancelledError):
        await waiting


async def test_model_text_is_escaped_html_and_the_label_is_set_apart() -> None:
    session, clock = RecordingSession(), ManualClock()
    text = "Use <b>My Page > Orders</b> & pay <script>x</script>."
    answer = scripted([(0.0, text)], clock)
    answer.report.mode.step = Step.TOKEN  # a model wrote it, so it carries the label
    await streamer(session, clock).stream(answer, label="[model] ")
    [draft] = session.sent(SendMessageDraft)
    [committed] = session.sent(SendMessage)
    assert draft.parse_mode == committed.parse_mode == "HTML"
    assert (
        draft.text == "Use &lt;b&gt;My Page &gt; Orders&lt;/b&gt; &amp; pay &lt;script&gt;x&lt;/script&gt;."
    )
    assert committed.text == "<i>[model]</i> " + draft.text
    assert to_plain(committed.text, committed.parse_mode) == "[model] " + text


async def test_a_parse_error_sends_the_same_words_as_plain_text() -> None:
    session, clock = RecordingSession(), ManualClock()
    refused = "Bad Request: can't parse entities: Unsupported start tag at byte offset 4"
    session.queue_error(SendMessageDraft, error_code=400, description=refused)
    session.queue_error(SendMessage, error_code=400, description=refused)
    await streamer(session, clock).stream(scripted([(0.0, "5 < 6 & more.")], clock))
    drafts, messages = session.sent(SendMessageDraft), session.sent(SendMessage)
    assert [(d.text, d.parse_mode) for d in drafts] == [
        ("5 &lt; 6 &amp; more.", "HTML"),
        ("5 < 6 & more.", None),
    ]
    assert [(m.text, m.parse_mode) for m in messages] == [
        ("5 &lt; 6 &amp; more.", "HTML"),
        ("5 < 6 & more.", None),
    ]


async def test_the_log_keeps_what_the_customer_read(harness: Harness) -> None:
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "How do I cancel my order?"))
    [sent] = [c for c in calls if isinstance(c, SendMessage)]
    assert sent.parse_mode == "HTML" and "My Page &gt; Orders" in sent.text
    outbound = await harness.rows(OutboundMessage)
    assert any("My Page > Orders" in row.text for row in outbound)
    assert not any("&gt;" in row.text for row in outbound)


async def test_the_shops_faq_text_goes_out_whole_without_a_preview(harness: Harness) -> None:
    """On the embedded default the answer is the FAQ entry as written: known whole at once, so a
    preview would be the same words one call (and one place in Telegram's limits) earlier."""
    calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "What payment methods do you accept?"))
    assert [type(c).__name__ for c in calls] == ["SendMessage"]
    assert "card" in calls[0].text.lower()  # type: ignore[attr-defined]


async def test_a_crowd_streaming_at_once_gets_no_previews() -> None:
    """Previews and final messages share Telegram's 30 a second: while more answers stream than
    half of that, the places go to final messages."""
    session, clock = RecordingSession(), ManualClock()
    registry = GenerationRegistry(preview_crowd=PREVIEW_CROWD)
    bot = create_bot(LOCAL_BOT_TOKEN, session=session)
    chunks = [(t / 10, f"part{t} ") for t in range(25)]
    await ReplyStreamer(bot, 5, registry=registry, clock=clock).stream(scripted(chunks, clock))
    assert len(session.sent(SendMessageDraft)) == 3, "alone, previewed once a second"

    crowd = [asyncio.ensure_future(asyncio.Event().wait()) for _ in range(PREVIEW_CROWD)]
    for chat, waiting in enumerate(crowd, start=100):
        registry.add(chat, 1, waiting)
    try:
        session.requests.clear()
        clock.now = 0.0
        final = await ReplyStreamer(bot, 5, registry=registry, clock=clock).stream(scripted(chunks, clock))
    finally:
        for waiting in crowd:
            waiting.cancel()
    assert session.sent(SendMessageDraft) == []
    [committed] = session.sent(SendMessage)
    assert committed.text == final.strip()
