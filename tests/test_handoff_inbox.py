"""Working hand-offs from both fronts: Telegram's support chat and the console's inbox.

The real dispatcher with fake updates, the console over real HTTP, one database: what staff
do in one front shows in the other, the customer is asked for a rating once, and the team's
figures are the same wherever they are read.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import aiohttp
import pytest
from aiogram.methods import EditMessageReplyMarkup, SendMessage

from db.models import (
    HandoffEvent,
    HandoffLink,
    HandoffSession,
    HandoffStatus,
    HandoffVia,
    OutboundMessage,
)
from db.types import utcnow
from handlers.keyboards import Rating
from services.admin.stats import collect_stats
from services.console.dashboard import build_dashboard
from services.handoff import inbox
from services.handoff.figures import team_figures
from services.handoff.inbox import parse_tags
from services.settings import Settings
from services.text.sentences import Language, t
from tests.console_support import client, console_server, console_settings, csrf_of, login_path, sign_in
from tests.harness import ADMIN_ID, DEMO_USER_ID, OTHER_USER_ID, SUPPORT_CHAT_ID, Harness, texts_to
from tests.test_handoff import open_handoff, staff_reply_to

STAFF_ID = 900_000_002
TELEGRAM_STAFF = 4242
"""Who `staff_reply_to` writes as in the support chat."""


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return console_settings(database_url, tmp_path, staff_ids=frozenset({STAFF_ID, TELEGRAM_STAFF}))


async def _signed_in(harness: Harness, base: str, user_id: int) -> aiohttp.ClientSession:
    path = await login_path(harness, user_id)
    assert path is not None, f"/console sends {user_id} a link"
    http = client()
    assert (await sign_in(http, base, path)).status == 303
    return http


@pytest.fixture
async def console(harness: Harness, settings: Settings) -> AsyncIterator[str]:
    async with console_server(harness, settings) as base:
        yield base


async def _post(http: aiohttp.ClientSession, base: str, path: str, data: dict[str, str]) -> str:
    """Post a form as the signed-in browser; the notice the console answers with."""
    form = {**data, "csrf": await csrf_of(http, base, page="/admin/inbox")}
    async with http.post(base + path, data=form, allow_redirects=True) as response:
        assert response.status == 200, await response.text()
        return await response.text()


async def _handoff(harness: Harness) -> HandoffSession:
    [opened] = [row for row in await harness.rows(HandoffSession) if row.closed_at is None]
    return opened


async def _lines(harness: Harness) -> list[tuple[str, int | None, str]]:
    return [
        (row.kind, row.author_id, row.text)
        for row in sorted(await harness.rows(HandoffEvent), key=lambda row: row.id or 0)
    ]


# Telegram's support chat ------------------------------------------------------------------------


async def test_a_staff_reply_in_telegram_is_the_first_response_and_claims_the_handoff(
    harness: Harness,
) -> None:
    forwarded = await open_handoff(harness)
    await harness.feed(staff_reply_to(harness, forwarded, "안녕하세요, 확인해 볼게요"))
    opened = await _handoff(harness)
    assert opened.assignee_id == TELEGRAM_STAFF and opened.first_response_at is not None
    kinds = [kind for kind, _, _ in await _lines(harness)]
    assert kinds == ["brief", "customer", "staff", "claimed"]
    assert (await _lines(harness))[1][2] == "상담원 연결해 주세요", (
        "the customer's own question, in the thread"
    )


async def test_claim_in_telegram_and_a_customer_message_reopens_a_pending_handoff(harness: Harness) -> None:
    forwarded = await open_handoff(harness)
    calls = await harness.feed(staff_reply_to(harness, forwarded, "/claim"))
    assert any("is yours" in getattr(call, "text", "") for call in calls if isinstance(call, SendMessage))
    assert (await _handoff(harness)).assignee_id == TELEGRAM_STAFF
    async with harness.app.session_factory() as session:
        opened = await inbox.get(session, (await _handoff(harness)).id or 0)
        assert opened is not None
        assert await inbox.set_status(
            session, opened, TELEGRAM_STAFF, HandoffStatus.PENDING, HandoffVia.CONSOLE
        )
    assert (await _handoff(harness)).status == HandoffStatus.PENDING
    await harness.say(DEMO_USER_ID, "아직 답이 없나요?")
    assert (await _handoff(harness)).status == HandoffStatus.OPEN, "the customer wrote: open again"


async def test_resolving_asks_for_a_rating_once_and_only_the_customer_can_give_it(harness: Harness) -> None:
    forwarded = await open_handoff(harness)
    await harness.feed(staff_reply_to(harness, forwarded, "도와드렸어요"))
    calls = await harness.feed(staff_reply_to(harness, forwarded, "/close"))
    [question] = [
        c for c in calls if isinstance(c, SendMessage) and c.text == t("rating_question", Language.KO)
    ]
    buttons = [button.callback_data for row in question.reply_markup.inline_keyboard for button in row]  # type: ignore[union-attr]
    [handoff] = await harness.rows(HandoffSession)
    assert buttons == [
        Rating(handoff=handoff.id or 0, score=score, language="ko").pack() for score in (1, 2, 3, 4, 5, 0)
    ]
    # someone else's tap (a forwarded keyboard, a forged button) counts for nothing
    stranger = await harness.feed(harness.updates.callback(OTHER_USER_ID, buttons[0]))
    assert texts_to(stranger, OTHER_USER_ID) == []
    four = await harness.feed(harness.updates.callback(DEMO_USER_ID, buttons[3]))
    assert texts_to(four, DEMO_USER_ID) == [t("rating_thanks", Language.KO)]
    assert any(isinstance(call, EditMessageReplyMarkup) for call in four), "the buttons go away"
    again = await harness.feed(harness.updates.callback(DEMO_USER_ID, buttons[0]))
    assert texts_to(again, DEMO_USER_ID) == [t("rating_already", Language.KO)]
    [rated] = await harness.rows(HandoffSession)
    assert (rated.rating, rated.resolved_by, rated.status) == (4, TELEGRAM_STAFF, HandoffStatus.RESOLVED)


async def test_a_customer_who_leaves_with_bot_is_not_asked_for_a_rating(harness: Harness) -> None:
    await open_handoff(harness)
    assert await harness.say(DEMO_USER_ID, "/bot") == [t("handoff_ended", Language.KO)]
    [closed] = await harness.rows(HandoffSession)
    assert (closed.status, closed.resolved_by, closed.rating_asked_at) == (HandoffStatus.RESOLVED, None, None)


def test_tags_are_read_the_way_staff_type_them() -> None:
    assert parse_tags(" Refund,size , refund|배송 지연,, ") == ["refund", "size", "배송 지연"]


# The console's inbox ----------------------------------------------------------------------------


async def test_staff_use_the_inbox_but_not_the_faq_and_admins_both(harness: Harness, console: str) -> None:
    staff = await _signed_in(harness, console, STAFF_ID)
    admin = await _signed_in(harness, console, ADMIN_ID)
    try:
        for path, staff_status in (
            ("/admin/inbox", 200),
            ("/admin/faq", 403),
            ("/admin/replies", 403),
            ("/admin/audit", 403),
            ("/admin/canary", 403),
        ):
            async with staff.get(console + path) as response:
                assert response.status == staff_status, path
            async with admin.get(console + path) as response:
                assert response.status == 200, path
        async with staff.post(console + "/admin/canary/candidate", data={"percent": "50"}) as response:
            assert response.status == 403, "a weight is an admin's to change"
        assert await login_path(harness, OTHER_USER_ID) is None, "a customer gets no link"
    finally:
        await staff.close()
        await admin.close()


async def test_a_reply_from_the_console_reaches_the_customer_split_and_shows_in_telegram(
    harness: Harness, console: str
) -> None:
    await open_handoff(harness)
    opened = await _handoff(harness)
    http = await _signed_in(harness, console, STAFF_ID)
    long_reply = "배송 안내드립니다. " * 600  # over Telegram's 4096 characters
    sent_before = len(harness.session.sent(SendMessage))
    try:
        page = await _post(http, console, f"/admin/inbox/{opened.id}/claim", {})
        assert "It is yours." in page
        page = await _post(http, console, f"/admin/inbox/{opened.id}/reply", {"text": long_reply})
        assert "Sent (2 message(s))." in page
    finally:
        await http.close()
    sent = harness.session.sent(SendMessage)[sent_before:]
    to_customer = [m.text or "" for m in sent if m.chat_id == DEMO_USER_ID]
    assert len(to_customer) == 2 and all(len(text) <= 4096 for text in to_customer)
    assert " ".join(to_customer).split() == t("staff_reply", Language.KO, text=long_reply.strip()).split()
    to_support = [m for m in sent if m.chat_id == SUPPORT_CHAT_ID]
    assert [m.text.split(":")[0] for m in to_support if m.text] == [
        f"Hand-off #{opened.id}",
        f"Customer ({STAFF_ID}) in the console",
    ]
    assert all(m.reply_parameters is not None for m in to_support), "in the hand-off's thread"
    refreshed = await _handoff(harness)
    assert (refreshed.assignee_id, refreshed.first_response_at is not None) == (STAFF_ID, True)
    logged = [row for row in await harness.rows(OutboundMessage) if row.staff_id == STAFF_ID]
    assert len(logged) == 2, "the customer's transcript shows what staff wrote"
    # a reply to the console's post in the support chat reaches the customer too
    last = max(link.support_message_id for link in await harness.rows(HandoffLink))
    calls = await harness.feed(staff_reply_to(harness, last, "추가로 확인했어요"))
    # (the calls since the last update also hold the console's sends)
    assert texts_to(calls, DEMO_USER_ID)[-1] == t("staff_reply", Language.KO, text="추가로 확인했어요")


async def test_notes_tags_and_saved_replies_stay_with_staff(harness: Harness, console: str) -> None:
    await open_handoff(harness)
    opened = await _handoff(harness)
    admin = await _signed_in(harness, console, ADMIN_ID)
    sent_before = len(harness.session.sent(SendMessage))
    try:
        assert "Saved" in await _post(
            admin,
            console,
            "/admin/replies",
            {"title": "배송 지연", "language": "ko", "text": "늦어져서 죄송합니다."},
        )
        await _post(
            admin, console, "/admin/replies", {"title": "Delay", "language": "en", "text": "Sorry it's late."}
        )
        bad = await _post_raw(admin, console, "/admin/replies", {"title": "x", "language": "kr", "text": "y"})
        assert bad[0] == 400 and "language is one of" in bad[1]
        assert "Note added." in await _post(
            admin, console, f"/admin/inbox/{opened.id}/note", {"text": "VIP 고객"}
        )
        assert "Tags saved." in await _post(
            admin, console, f"/admin/inbox/{opened.id}/tags", {"tags": "delay, VIP"}
        )
        async with admin.get(f"{console}/admin/inbox/{opened.id}") as response:
            page = await response.text()
    finally:
        await admin.close()
    assert "늦어져서 죄송합니다." in page and "Sorry it&#39;s late." not in page, (
        "saved replies in its language"
    )
    assert "VIP 고객" in page and 'value="delay, vip"' in page
    assert harness.session.sent(SendMessage)[sent_before:] == [], "notes and tags are never sent"
    assert (await _handoff(harness)).tag_list() == ["delay", "vip"]


async def _post_raw(
    http: aiohttp.ClientSession, base: str, path: str, data: dict[str, str]
) -> tuple[int, str]:
    form = {**data, "csrf": await csrf_of(http, base, page="/admin/inbox")}
    async with http.post(base + path, data=form, allow_redirects=False) as response:
        return response.status, await response.text()


async def test_the_live_stream_says_changed_when_a_customer_writes(harness: Harness, console: str) -> None:
    await open_handoff(harness)
    http = await _signed_in(harness, console, STAFF_ID)
    try:
        async with http.get(console + "/admin/inbox/live") as stream:
            assert stream.headers["Content-Type"].startswith("text/event-stream")

            async def next_mark() -> str:
                while True:
                    line = (await stream.content.readline()).decode()
                    if line.startswith("data: "):
                        return line[6:].strip()

            first = await asyncio.wait_for(next_mark(), 60)  # a bound for a hang, not a pace
            await harness.say(DEMO_USER_ID, "혹시 오늘 안에 답 주실 수 있나요?")
            second = await asyncio.wait_for(next_mark(), 60)
            assert second != first
    finally:
        await http.close()


# One definition of the team's figures -----------------------------------------------------------


async def test_team_figures_agree_between_dashboard_stats_and_their_definition(
    harness: Harness, settings: Settings
) -> None:
    now = utcnow()
    rows = [
        # (assignee, first response after, resolved after, rating)
        (ADMIN_ID, 60, 600, 5),
        (ADMIN_ID, 180, 1200, 3),
        (STAFF_ID, 30, 300, 0),  # skipped: not a score
        (None, None, None, None),  # still waiting
    ]
    async with harness.app.session_factory() as session:
        for index, (assignee, first, resolved, rating) in enumerate(rows):
            opened_at = now - timedelta(hours=2, minutes=index)
            session.add(
                HandoffSession(
                    customer_user_id=700_000 + index,
                    customer_chat_id=700_000 + index,
                    opened_at=opened_at,
                    assignee_id=assignee,
                    first_response_at=opened_at + timedelta(seconds=first) if first is not None else None,
                    closed_at=opened_at + timedelta(seconds=resolved) if resolved is not None else None,
                    resolved_by=assignee if resolved is not None else None,
                    status=HandoffStatus.RESOLVED if resolved is not None else HandoffStatus.OPEN,
                    rating=rating,
                    rating_asked_at=opened_at if rating is not None else None,
                    rated_at=opened_at if rating is not None else None,
                )
            )
        await session.commit()
        zone = settings.shop_policy().timezone
        figures = await team_figures(session, since=now - timedelta(days=1), zone=zone)
        stats = await collect_stats(session, period=timedelta(days=1), zone=zone)
        board = await build_dashboard(session, period=timedelta(days=1), zone=zone)
    total = figures.total
    assert (total.handoffs, total.resolved, total.ratings, total.skipped) == (4, 3, 2, 1)
    assert total.rating_mean == 4.0
    assert total.first_response_p50_s == 60.0 and total.resolution_p50_s == 600.0
    by_staff = {row.label: row for row in figures.per_staff}
    assert by_staff[f"staff {ADMIN_ID}"].rating_mean == 4.0 and by_staff["nobody"].handoffs == 1
    assert stats.team == figures and board.team == figures
    assert "satisfaction 4.00/5 from 2 ratings, 1 skipped" in stats.render(zone)
