"""The admin console in a real browser (headless Chromium): what an admin does, click by click."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiogram.methods import SendMessage

from bot.app import App
from db.models import AdminAudit, FaqEntry, InboundMessage, LLMCall, LLMReply, OutboundMessage, OutboundStatus
from services.settings import Settings
from services.text.sentences import Language
from tests.browser_support import BrowserThread, browser_fixture
from tests.console_support import console_server, console_settings, login_path
from tests.harness import DEMO_USER_ID, OTHER_USER_ID, Harness

try:
    from playwright.sync_api import Page, expect
except ImportError:
    pytest.skip(
        "browser tests skipped: playwright is not installed (pip install -e '.[dev]')",
        allow_module_level=True,
    )

ORDER = "20240115-001234"


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserThread]:
    yield from browser_fixture()


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return console_settings(database_url, tmp_path)


@pytest.fixture
async def base(harness: Harness, settings: Settings) -> AsyncIterator[str]:
    async with console_server(harness, settings) as url:
        yield url


async def _link(harness: Harness, base: str) -> str:
    path = await login_path(harness)
    assert path is not None
    return base + path


def _sign_in(page: Page, link: str) -> None:
    page.goto(link)
    page.click("#sign-in")
    expect(page.locator("h1")).to_have_text("Inbox")  # the support team's front page
    page.click("header.top nav >> text=Conversations")
    expect(page.locator("h1")).to_have_text("Conversations")


async def test_an_admin_finds_a_conversation_by_order_number_and_reads_why(
    browser: BrowserThread, harness: Harness, base: str
) -> None:
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    await harness.say(OTHER_USER_ID, "hello there")
    link = await _link(harness, base)

    def admin(page: Page) -> None:
        _sign_in(page, link)
        page.fill("#search", ORDER)
        page.press("#search", "Enter")
        rows = page.locator("table.list tbody tr")
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("SKU-7890 재고 있나요?")
        rows.first.locator("a.open-conversation").click()
        expect(page.locator("h1")).to_have_text(f"Customer {DEMO_USER_ID}")
        bot = page.locator(".bubble.bot").first
        why = bot.locator("details.why")
        expect(why.locator("dl")).to_be_hidden()
        why.locator("summary").click()
        expect(why.locator("dl")).to_be_visible()
        expect(why).to_contain_text("stock")
        expect(why).to_contain_text("database")

    await browser.run(admin)


async def test_an_admin_resends_a_failed_message(browser: BrowserThread, harness: Harness, base: str) -> None:
    # a refusal a later try may get past (a blocked bot is never offered a resend)
    harness.session.queue_error(
        SendMessage, error_code=403, description="Forbidden: bot can't initiate conversation with a user"
    )
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    [failed] = [r for r in await harness.rows(OutboundMessage) if r.status == OutboundStatus.FAILED]
    link = await _link(harness, base)
    sent_before = len(harness.session.sent(SendMessage))

    def admin(page: Page) -> None:
        _sign_in(page, link)
        page.click("text=Failed deliveries")
        row = page.locator(f"#failed-{failed.id}")
        expect(row).to_contain_text("initiate conversation")
        row.locator("button.resend").click()
        expect(page.locator("#result")).to_have_text(f"Reply #{failed.id}: sent.")
        expect(page.locator(f"#failed-{failed.id}")).to_have_count(0)

    await browser.run(admin)
    resent = harness.session.sent(SendMessage)[sent_before:]
    assert [(m.chat_id, m.text) for m in resent] == [(DEMO_USER_ID, failed.text)]
    assert [a.action for a in await harness.rows(AdminAudit) if a.action.startswith("resend")] == ["resend"]


async def test_an_admin_adds_an_faq_entry_and_the_bot_answers_with_it(
    browser: BrowserThread, harness: Harness, base: str
) -> None:
    question = "Do you offer gift wrapping for presents?"
    answer = "Yes: gift wrapping is free, choose it at checkout."
    assert answer not in " ".join(await harness.say(OTHER_USER_ID, question))
    link = await _link(harness, base)

    def admin(page: Page) -> None:
        _sign_in(page, link)
        page.click("text=Dashboard")
        gap = page.locator("table.gaps tr", has_text=question)
        gap.locator("text=Write an FAQ entry").click()
        expect(page.locator("textarea[name=question]")).to_have_value(question)
        expect(page.locator("input[name=language]")).to_have_value(Language.EN)
        page.fill("input[name=slug]", "gift-wrap")
        page.fill("textarea[name=answer]", answer)
        page.click("#save-entry")
        expect(page.locator("#saved")).to_contain_text("gift-wrap/en")

    await browser.run(admin)
    assert [e.slug for e in await harness.rows(FaqEntry) if e.slug == "gift-wrap"] == ["gift-wrap"]
    assert answer in " ".join(await harness.say(OTHER_USER_ID, question))


async def test_a_non_admin_gets_403(browser: BrowserThread, harness: Harness, base: str) -> None:
    link = await _link(harness, base)

    def visitor(page: Page) -> None:
        response = page.goto(base + "/admin/conversations")
        assert response is not None and response.status == 403
        expect(page.locator("h1")).to_have_text("No access")
        _sign_in(page, link)  # the admin's link, used once...

    def second_visitor(page: Page) -> None:
        page.goto(link)  # ...is worth nothing to whoever got it next
        with page.expect_response(lambda r: r.request.method == "POST") as posted:
            page.click("#sign-in")
        assert posted.value.status == 403
        expect(page.locator("h1")).to_have_text("No access")

    await browser.run(visitor)
    await browser.run(second_visitor)


async def test_the_llm_calls_table_fits_a_phone(
    browser: BrowserThread, app: App, harness: Harness, base: str
) -> None:
    """Opening "Why the bot said this" with its LLM calls widened a 390 px page to 609 px."""
    await harness.say(DEMO_USER_ID, "배송비는 얼마인가요?")
    [row] = [r for r in await harness.rows(InboundMessage) if r.text == "배송비는 얼마인가요?"]
    async with app.session_factory() as session:
        reply = LLMReply(inbound_id=row.id or 0, mode="token", drafter="faq", total_ms=640.0)
        session.add(reply)
        await session.flush()
        for kind in ("draft", "verify", "verify"):
            session.add(
                LLMCall(
                    reply_id=reply.id or 0,
                    role="target",
                    endpoint="https://very-long-endpoint-name.example.com/v1/chat/completions",
                    model="a-rather-long-model-name-2026-11-preview",
                    kind=kind,
                    prompt_tokens=4500,
                    completion_tokens=300,
                    total_ms=3000.0,
                    cost_usd=0.00042,
                    error="APITimeoutError: Request timed out after 30 seconds",
                )
            )
        await session.commit()
    link = await _link(harness, base)

    def admin(page: Page) -> int:
        _sign_in(page, link)
        page.goto(f"{base}/admin/conversations/{DEMO_USER_ID}")
        for why in page.locator("details.why summary").all():
            why.click()
        expect(page.locator("table.calls").first).to_be_visible()
        return int(page.evaluate("document.documentElement.scrollWidth"))

    assert await browser.run(admin, width=390, height=844) <= 390


async def test_the_dashboards_chart_labels_are_readable_on_a_phone(
    browser: BrowserThread, harness: Harness, base: str
) -> None:
    """A chart drawn 720 wide and shrunk to a phone showed its labels at about 5 px."""
    for text in ("SKU-7890 재고 있나요?", "Do you sell gift cards?"):
        await harness.say(DEMO_USER_ID, text)
    links = [await _link(harness, base), await _link(harness, base)]

    def label_heights(page: Page) -> tuple[int, float, float]:
        _sign_in(page, links.pop())
        page.goto(f"{base}/admin/dashboard?period=24h")
        shown = page.locator("svg.chart").evaluate_all(
            "charts => charts.filter(c => c.getBoundingClientRect().width > 0).length"
        )
        heights = page.locator("svg.chart text.tick").evaluate_all(
            "ticks => ticks.map(t => t.getBoundingClientRect().height).filter(h => h > 0)"
        )
        width = page.evaluate("document.documentElement.scrollWidth")
        cut = page.locator("svg.chart").evaluate_all(
            """charts => charts.filter(c => c.getBoundingClientRect().width > 0).flatMap(c =>
                [...c.querySelectorAll('text.chart-title')]
                  .filter(t => t.getBoundingClientRect().right > c.getBoundingClientRect().right + 1)
                  .map(t => t.textContent))"""
        )
        assert not cut, f"titles cut off: {cut}"
        return int(shown), min(heights), float(width)

    shown, smallest, width = await browser.run(label_heights, width=390, height=844)
    assert shown == 7, "one chart of each, the one drawn for the screen"
    assert smallest >= 10, f"tick labels {smallest:.1f} px tall on a 390 px screen"
    assert width <= 390
    shown, smallest, _ = await browser.run(label_heights, width=1280, height=900)
    assert shown == 7 and smallest >= 10
