"""The console's pages over real HTTP against the real bot's records (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
import pytest
from aiogram.methods import SendMessage

from bot.app import App
from db.models import (
    AdminAudit,
    Customer,
    FaqEntry,
    InboundMessage,
    InboundStatus,
    LLMCall,
    LLMReply,
    OutboundMessage,
    OutboundStatus,
    ReturnRequest,
)
from handlers.keyboards import Clarification, HandoffOffer
from services.console.conversations import ConversationFilters, list_messages
from services.settings import Settings
from services.shop.local_time import local_second
from services.text.sentences import Language, t
from tests.console_support import client, console_server, console_settings, csrf_of, login_path, sign_in
from tests.harness import ADMIN_ID, DEMO_USER_ID, OTHER_USER_ID, Harness
from tests.test_handoff import open_handoff, staff_reply_to

ORDER = "20240115-001234"


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return console_settings(database_url, tmp_path)


@pytest.fixture
async def http(harness: Harness, settings: Settings) -> AsyncIterator[tuple[aiohttp.ClientSession, str]]:
    """A signed-in admin's browser and the console's base URL."""
    path = await login_path(harness)
    assert path is not None
    async with console_server(harness, settings) as base, client() as session:
        assert (await sign_in(session, base, path)).status == 303
        yield session, base


async def _get(http: tuple[aiohttp.ClientSession, str], path: str) -> str:
    session, base = http
    async with session.get(base + path) as response:
        assert response.status == 200, await response.text()
        return await response.text()


async def _post(
    http: tuple[aiohttp.ClientSession, str], path: str, data: dict[str, str]
) -> tuple[int, str, str]:
    session, base = http
    form = {**data, "csrf": await csrf_of(session, base)}
    async with session.post(base + path, data=form, allow_redirects=False) as response:
        return response.status, response.headers.get("Location", ""), await response.text()


async def test_a_conversation_is_found_by_order_number_user_id_or_text(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    await harness.say(OTHER_USER_ID, "hello there")
    # The customer who owns the order is found by its number, though they never typed it.
    page = await _get(http, f"/admin/conversations?q={ORDER}")
    assert "SKU-7890 재고 있나요?" in page and "hello there" not in page
    page = await _get(http, f"/admin/conversations?q={OTHER_USER_ID}")
    assert "hello there" in page and "SKU-7890" not in page
    page = await _get(http, "/admin/conversations?q=HELLO")  # text, any case
    assert "hello there" in page and "SKU-7890" not in page
    page = await _get(http, "/admin/conversations?intent=stock")
    assert "SKU-7890" in page and "hello there" not in page
    page = await _get(http, "/admin/conversations?language=en")
    assert "hello there" in page and "SKU-7890" not in page
    assert f">{ADMIN_ID}</a>" not in await _get(
        http, "/admin/conversations"
    )  # admins' own commands are not listed


async def test_customer_text_is_shown_as_text_never_as_markup(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    await harness.say(OTHER_USER_ID, '<script>alert("x")</script><img src=x onerror=alert(1)>')
    for page in (
        await _get(http, "/admin/conversations"),
        await _get(http, f"/admin/conversations/{OTHER_USER_ID}"),
        await _get(http, "/admin/dashboard"),
    ):
        assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert" in await _get(http, f"/admin/conversations/{OTHER_USER_ID}")


async def test_the_list_pages_with_a_keyset_cursor(app: App, harness: Harness) -> None:
    for number in range(5):
        await harness.say(OTHER_USER_ID, f"question number {number}")
    async with app.session_factory() as session:
        first = await list_messages(session, ConversationFilters(), limit=2)
        assert [row.text for row in first.rows] == ["question number 4", "question number 3"]
        assert first.next_before == first.rows[-1].id
        second = await list_messages(session, ConversationFilters(), limit=2, before=first.next_before)
        assert [row.text for row in second.rows] == ["question number 2", "question number 1"]
        last = await list_messages(session, ConversationFilters(), limit=2, before=second.next_before)
        assert [row.text for row in last.rows] == ["question number 0"] and last.next_before is None
        narrowed = await list_messages(session, ConversationFilters(query="number 1"), limit=2)
        assert [row.text for row in narrowed.rows] == ["question number 1"]


async def test_a_bot_message_shows_why_it_was_said(
    app: App, harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    await harness.say(DEMO_USER_ID, "배송비는 얼마인가요?")
    inbound = {row.text: row for row in await harness.rows(InboundMessage)}
    faq_row = inbound["배송비는 얼마인가요?"]
    async with app.session_factory() as session:  # what an LLM-made answer leaves behind
        reply = LLMReply(
            inbound_id=faq_row.id or 0,
            mode="token",
            drafter="faq",
            draft_tokens=40,
            accepted_tokens=30,
            verify_calls=2,
            ttft_ms=120.0,
            total_ms=640.0,
            prompt_tokens=900,
            completion_tokens=55,
            cost_usd=0.00042,
            guard="price 5,000 not in the facts",
        )
        session.add(reply)
        await session.flush()
        session.add(
            LLMCall(
                reply_id=reply.id or 0,
                role="target",
                endpoint="http://127.0.0.1:9/v1",
                model="gpt-test",
                kind="verify",
                prompt_tokens=450,
                completion_tokens=30,
                total_ms=300.0,
                cost_usd=0.0002,
            )
        )
        await session.commit()
    page = await _get(http, f"/admin/conversations/{DEMO_USER_ID}")
    assert page.index("SKU-7890 재고 있나요?") < page.index("배송비는 얼마인가요?")
    assert 'class="bubble customer"' in page and 'class="bubble bot"' in page
    assert "Why the bot said this" in page
    assert "stock" in page and "database" in page  # intent, source of the stock answer
    assert "40 / 30 (75%)" in page  # draft / accepted tokens
    assert "rejected: price 5,000 not in the facts" in page
    assert "120 ms / 640 ms" in page and "$0.00042" in page and "gpt-test" in page


async def test_phone_numbers_are_masked_until_an_admin_reveals_them(
    app: App, harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    await harness.say(DEMO_USER_ID, "제 번호는 010-9876-5432 입니다")
    async with app.session_factory() as session:
        from sqlmodel import select

        customer = (
            await session.exec(select(Customer).where(Customer.telegram_user_id == DEMO_USER_ID))
        ).one()
        phone = customer.phone
    page = await _get(http, f"/admin/conversations/{DEMO_USER_ID}")
    assert "010-9876-5432" not in page and "•••-••••-5432" in page
    assert phone not in page and phone[-4:] in page
    listing = await _get(http, "/admin/conversations")
    assert "010-9876-5432" not in listing
    status, _, page = await _post(http, f"/admin/conversations/{DEMO_USER_ID}/reveal", {})
    assert status == 200 and "010-9876-5432" in page and phone in page
    [revealed] = [a for a in await harness.rows(AdminAudit) if a.action == "phone_revealed"]
    assert (revealed.admin_user_id, revealed.target) == (ADMIN_ID, f"user:{DEMO_USER_ID}")


NOT_YET = "Forbidden: bot can't initiate conversation with a user"
"""A refusal a later try may get past (the customer opens the chat again): worth a resend."""


async def test_a_failed_reply_is_resent_exactly_once(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    harness.session.queue_error(SendMessage, error_code=403, description=NOT_YET)
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    [failed] = [r for r in await harness.rows(OutboundMessage) if r.status == OutboundStatus.FAILED]
    page = await _get(http, "/admin/failed")
    assert f'id="failed-{failed.id}"' in page and "initiate conversation" in page
    sent_before = len(harness.session.sent(SendMessage))
    session, base = http
    csrf = await csrf_of(session, base)

    async def click() -> str:
        async with session.post(
            f"{base}/admin/failed/{failed.id}/resend", data={"csrf": csrf}, allow_redirects=False
        ) as response:
            assert response.status == 303
            return response.headers["Location"]

    results = await asyncio.gather(click(), click())  # a double click, or two admins at once
    assert sorted(results) == sorted(
        [f"/admin/failed?result=sent&id={failed.id}", f"/admin/failed?result=already+handled&id={failed.id}"]
    )
    resent = harness.session.sent(SendMessage)[sent_before:]
    assert [(m.chat_id, m.text) for m in resent] == [(DEMO_USER_ID, failed.text)]
    rows = {r.id: r for r in await harness.rows(OutboundMessage)}
    assert rows[failed.id].status == OutboundStatus.RESENT
    copies = [r for r in rows.values() if r.id != failed.id and r.text == failed.text]
    assert [c.status for c in copies] == [OutboundStatus.SENT]
    [audited] = [a for a in await harness.rows(AdminAudit) if a.action == "resend"]
    assert (audited.admin_user_id, audited.target) == (ADMIN_ID, f"outbound:{failed.id}")
    assert f'id="failed-{failed.id}"' not in await _get(http, "/admin/failed")


async def test_a_resend_telegram_refuses_again_stays_failed(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    harness.session.queue_error(SendMessage, error_code=403, description=NOT_YET)
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    [failed] = [r for r in await harness.rows(OutboundMessage) if r.status == OutboundStatus.FAILED]
    harness.session.queue_error(SendMessage, error_code=403, description="Forbidden: still blocked")
    status, location, _ = await _post(http, f"/admin/failed/{failed.id}/resend", {})
    assert status == 303 and "refused+again" in location
    [row] = [r for r in await harness.rows(OutboundMessage) if r.id == failed.id]
    assert row.status == OutboundStatus.FAILED and "still blocked" in (row.error or "")
    assert [a.action for a in await harness.rows(AdminAudit) if a.action.startswith("resend")] == [
        "resend_refused"
    ]


@pytest.mark.parametrize(
    ("description", "reason"),
    [
        ("Forbidden: bot was blocked by the user", "the customer blocked the bot"),
        ("Bad Request: message is too long", "the text is longer than Telegram takes"),
    ],
)
async def test_a_refusal_a_retry_cannot_change_gets_its_reason_not_a_resend(
    harness: Harness, http: tuple[aiohttp.ClientSession, str], description: str, reason: str
) -> None:
    harness.session.queue_error(SendMessage, error_code=403, description=description)
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    [failed] = [r for r in await harness.rows(OutboundMessage) if r.status == OutboundStatus.FAILED]
    page = await _get(http, "/admin/failed")
    row = page.split(f'id="failed-{failed.id}"', 1)[1].split("</tr>", 1)[0]
    assert f"no resend: {reason}" in row and "/resend" not in row
    conversation = await _get(http, f"/admin/conversations/{DEMO_USER_ID}")
    assert f"no resend: {reason}" in conversation and f"/failed/{failed.id}/resend" not in conversation
    sent_before = len(harness.session.sent(SendMessage))
    status, location, _ = await _post(http, f"/admin/failed/{failed.id}/resend", {})  # a stale page's form
    assert status == 303 and "would+refuse" in location
    assert len(harness.session.sent(SendMessage)) == sent_before, "nothing sent"
    [row_after] = [r for r in await harness.rows(OutboundMessage) if r.id == failed.id]
    assert row_after.status == OutboundStatus.FAILED


async def test_a_customers_unanswered_message_offers_no_resend(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    """Only the bot's messages can be sent again: the customer's own showed a Resend posting to
    /failed/None/resend."""
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    async with harness.app.session_factory() as session:
        [row] = [r for r in await harness.rows(InboundMessage) if r.text == "SKU-7890 재고 있나요?"]
        row.status = InboundStatus.FAILED
        row.error = "RuntimeError: the handler broke"
        session.add(row)
        await session.commit()
    page = await _get(http, f"/admin/conversations/{DEMO_USER_ID}")
    assert "/failed/None/resend" not in page and "Not answered" in page


async def test_a_new_faq_entry_is_checked_like_an_import_and_answers_at_once(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    question = "Do you offer gift wrapping for presents?"
    before = await harness.say(OTHER_USER_ID, question)
    assert before == [t("faq_no_match", Language.EN)] or "gift" not in before[-1].lower()
    status, _, page = await _post(
        http, "/admin/faq/new", {"slug": "Gift Wrap", "language": "en", "question": question, "answer": "x"}
    )
    assert status == 400
    assert "field &#39;slug&#39; &#39;Gift Wrap&#39; must be lower-case letters" in page  # the import's words
    answer = "Yes: gift wrapping is free, choose it at checkout."
    status, location, _ = await _post(
        http,
        "/admin/faq/new",
        {
            "slug": "gift-wrap",
            "language": "en",
            "question": question,
            "answer": answer,
            "tags": "orders, gifts",
        },
    )
    assert status == 303 and "saved=gift-wrap%2Fen" in location
    assert answer in " ".join(await harness.say(OTHER_USER_ID, question))
    status, _, page = await _post(
        http,
        "/admin/faq/new",
        {"slug": "gift-wrap", "language": "en", "question": question, "answer": answer},
    )
    assert status == 400 and "exists already" in page


ANSWER = "새 답변: 선물 포장 가능"


async def test_an_faq_edit_is_audited_with_before_and_after(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    listing = await _get(http, "/admin/faq?q=shipping")
    match = re.search(r'href="/admin/faq/(\d+)">([^<]+)</a>', listing)
    assert match, listing
    entry_id, slug = match.groups()
    form = await _get(http, f"/admin/faq/{entry_id}")
    question = re.search(r'name="question"[^>]*>([^<]*)</textarea>', form)
    assert question
    status, _, _ = await _post(
        http,
        f"/admin/faq/{entry_id}",
        {
            "slug": "renamed",
            "language": "xx",
            "question": question.group(1),
            "answer": ANSWER,
            "keep_language": "1",  # a Korean answer, whatever the entry's language
        },
    )
    assert status == 303
    [edit] = [a for a in await harness.rows(AdminAudit) if a.action == "faq_edited"]
    assert edit.target.startswith(f"faq:{slug}/")  # slug and language stay: a rename is a new entry
    assert edit.detail["after"]["answer"] == ANSWER
    assert edit.detail["before"]["answer"] != ANSWER
    page = await _get(http, "/admin/audit")  # as written, not as \uc0c8\ub2f5...
    assert ANSWER in page and "\\u" not in page


async def test_the_dashboard_plots_and_lists_the_faqs_gaps(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    for text in ("Do you sell gift cards?", "do you sell gift cards", "Is there a student discount?"):
        await harness.say(OTHER_USER_ID, text)
    page = await _get(http, "/admin/dashboard?period=24h")
    assert page.count('<svg class="chart wide"') == page.count('<svg class="chart phone"') == 7
    for title in (
        "by intent",
        "Hand-off rate",
        "Time to answer",
        "LLM cost per day",
        "per answer",
        "acceptance",
        "I don",
    ):
        assert title in page, title
    assert ">ms</text>" in page and ">%</text>" in page and ">USD</text>" in page  # units on the axes
    gaps = page[page.index("could not answer") :]
    assert "student discount" in gaps
    assert re.search(r"<td>2</td>\s*<td class=\"text\">do you sell gift cards", gaps, re.IGNORECASE)
    link = re.search(r'href="(/admin/faq/new\?question=[^"]+gift[^"]+)"', gaps)
    assert link
    form = await _get(http, link.group(1).replace("&amp;", "&"))
    assert re.search(r"do you sell gift cards\??</textarea>", form, re.IGNORECASE)
    assert 'name="language" value="en"' in form


async def test_bad_addresses_get_a_clear_400(http: tuple[aiohttp.ClientSession, str]) -> None:
    session, base = http
    for path in ("/admin/conversations/abc", "/admin/conversations?before=x", "/admin/dashboard?period=soon"):
        async with session.get(base + path) as response:
            assert response.status == 400, path


async def test_the_render_bench_prints_its_goal_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import console_render

    await console_render.main(messages=20, runs=1)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("conversation page, 20 messages on SQLite over HTTP")
    assert re.fullmatch(r"p50_ms=\d+\.\d goal_ms=300 goal_ratio=\d+\.\d{3}", lines[-1])


async def test_telegram_resend_and_the_console_share_one_claim(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    harness.session.queue_error(SendMessage, error_code=403, description=NOT_YET)
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    [failed] = [r for r in await harness.rows(OutboundMessage) if r.status == OutboundStatus.FAILED]
    assert await harness.say(ADMIN_ID, f"/resend {failed.id}") == [
        f"Reply #{failed.id} sent again to chat {DEMO_USER_ID}."
    ]
    status, location, _ = await _post(http, f"/admin/failed/{failed.id}/resend", {})
    assert status == 303 and "already+handled" in location
    assert [(a.admin_user_id, a.action) for a in await harness.rows(AdminAudit) if a.action == "resend"] == [
        (ADMIN_ID, "resend")
    ]


async def test_the_console_shows_times_in_the_shops_zone(
    harness: Harness, http: tuple[aiohttp.ClientSession, str], settings: Settings
) -> None:
    """A shop in Seoul read every time as UTC: a message at 08:00 there showed as the day before."""
    await harness.say(OTHER_USER_ID, "hello there")
    page = await _get(http, "/admin/conversations")
    [row] = [r for r in await harness.rows(InboundMessage) if r.text == "hello there"]
    shown = local_second(row.created_at, settings.shop_policy().timezone)
    assert shown.endswith(" KST") and shown in page


async def test_a_conversation_is_found_by_phone_name_or_rma_number(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    await harness.say(OTHER_USER_ID, "hello there")
    await harness.say(DEMO_USER_ID, "I want to return 20240115-001234")  # the return form, then filed
    for answer in ("1", "1", "1", "yes"):  # the item, the reason, refund or exchange, confirm
        await harness.feed(harness.updates.text(DEMO_USER_ID, answer))
    [request] = await harness.rows(ReturnRequest)
    for query in ("010-1234-5678", "+82 10 1234 5678", "김민", request.rma_number.lower()):
        page = await _get(http, f"/admin/conversations?{urlencode({'q': query})}")
        assert "SKU-7890 재고 있나요?" in page and "hello there" not in page, query
    assert "SKU-7890 재고 있나요?" not in await _get(http, "/admin/conversations?q=010-9999-0000")


async def test_the_bots_close_notice_is_the_bots_and_a_persons_reply_is_staffs(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    forwarded_id = await open_handoff(harness)
    await harness.feed(staff_reply_to(harness, forwarded_id, "A person writing"))
    await harness.feed(staff_reply_to(harness, forwarded_id, "/close"))
    page = await _get(http, f"/admin/conversations/{DEMO_USER_ID}")
    labels = re.findall(r'<div class="meta">([^<·]+)·[^<]*</div>\s*<div class="body">([^<]*)', page)
    by_text = {body.strip(): label.strip() for label, body in labels}
    [relayed] = [text for text in by_text if "A person writing" in text]
    [notice] = [text for text in by_text if text == t("handoff_ended", Language.KO)]
    assert by_text[relayed] == "staff (hand-off)" and by_text[notice] == "bot"


async def test_an_answer_in_another_language_is_saved_only_when_kept(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    form = {
        "slug": "gift-wrap",
        "language": "en",
        "question": "Do you gift wrap?",
        "answer": "네, 포장해 드려요.",
    }
    status, _, page = await _post(http, "/admin/faq/new", form)
    assert status == 400 and "the answer reads as ko, but the entry is en" in page
    assert 'name="keep_language" value="1"' in page
    assert [e for e in await harness.rows(FaqEntry) if e.slug == "gift-wrap"] == []
    status, location, _ = await _post(http, "/admin/faq/new", {**form, "keep_language": "1"})
    assert status == 303 and "saved=gift-wrap" in location
    status, _, _ = await _post(
        http, "/admin/faq/new", {**form, "slug": "gift-wrap-ok", "answer": "Yes, we wrap gifts for free."}
    )
    assert status == 303


async def test_an_entry_is_deleted_from_the_console_and_the_bot_stops_using_it(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    question = "Do you sell gift cards for the shop?"
    form = {"slug": "gift-cards", "language": "en", "question": question, "answer": "Yes: from 10,000 won."}
    assert (await _post(http, "/admin/faq/new", form))[0] == 303
    assert "10,000 won" in (await harness.say(OTHER_USER_ID, question))[-1]
    [entry] = [e for e in await harness.rows(FaqEntry) if e.slug == "gift-cards"]
    status, location, _ = await _post(http, f"/admin/faq/{entry.id}/delete", {})
    assert status == 303 and "deleted=gift-cards" in location
    assert [e for e in await harness.rows(FaqEntry) if e.slug == "gift-cards"] == []
    assert "10,000 won" not in (await harness.say(OTHER_USER_ID, question))[-1]
    [deleted] = [a for a in await harness.rows(AdminAudit) if a.action == "faq_deleted"]
    assert deleted.detail["before"]["answer"] == "Yes: from 10,000 won."


async def test_a_button_press_reads_as_what_it_did_in_its_buttons_language(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    for data in (Clarification(choice="order", language="ko").pack(), HandoffOffer(language="ja").pack()):
        await harness.feed(harness.updates.callback(DEMO_USER_ID, data))
    listing = await _get(http, f"/admin/conversations?q={DEMO_USER_ID}")
    assert "What is this about? order" in listing and "Talk to a person" in listing
    assert "cl:order" not in listing and "hl:ja" not in listing
    rows = [chunk for chunk in listing.split("<tr")[1:] if 'class="tag">button</span>' in chunk]
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in rows]
    languages = {re.sub(r"<[^>]+>", "", cell[2]).strip(): cell[5].strip() for cell in cells}
    assert languages == {"button What is this about? order": "ko", "button Talk to a person": "ja"}
    page = await _get(http, f"/admin/conversations/{DEMO_USER_ID}")
    assert "What is this about? order" in page and "cl:order:ko" not in page


async def test_the_bots_bubble_shows_the_buttons_it_offered(
    harness: Harness, http: tuple[aiohttp.ClientSession, str]
) -> None:
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "Do you sell gift cards?"))
    offered = [
        button.text
        for call in calls
        if isinstance(call, SendMessage) and call.reply_markup is not None
        for row in call.reply_markup.inline_keyboard  # type: ignore[union-attr]
        for button in row
    ]
    assert offered, "the unsure answer offers a person at least"
    page = await _get(http, f"/admin/conversations/{OTHER_USER_ID}")
    [shown] = re.findall(r'<ul class="offered" aria-label="buttons offered">(.*?)</ul>', page, re.S)
    assert re.findall(r"<li>(.*?)</li>", shown) == [html.escape(label, quote=False) for label in offered]
    customer_bubble = page[: page.index('class="bubble bot')]
    assert 'class="offered"' not in customer_bubble, "under the bot's message, not the customer's"
