"""The support team's whole loop, as they live it: `csbot run` as a process, Telegram a Bot API
server on loopback (bench/fake_bot_api.py), two staff members in Chromium.

A customer asks for a person; the hand-off shows up in a signed-in staff member's queue without
a reload; they claim it and reply from the browser; the customer gets the reply and answers,
and the answer shows up live; a second staff member sees who has it; it is resolved, the
customer is asked for a rating and gives one; the dashboard shows the rating and the first
response, and `csbot stats` says the same.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bench.fake_bot_api import FakeBotAPI
from bench.instances import free_port
from bot.fake_updates import UpdateFactory
from services.text.sentences import Language, t
from tests.browser_support import BrowserThread, browser_fixture

try:
    from playwright.sync_api import Page, expect
except ImportError:
    pytest.skip(
        "browser tests skipped: playwright is not installed (pip install -e '.[dev]')",
        allow_module_level=True,
    )

TOKEN = "123456:fake-token-for-loopback"
ADMIN = 910_000_001
STAFF = 910_000_002
CUSTOMER = 620_000_001
SUPPORT = -100_888_000_1
LINK = re.compile(r"http://\S+/admin/login/\S+")
T = TypeVar("T")


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserThread]:
    yield from browser_fixture()


@pytest.fixture
async def telegram() -> AsyncIterator[FakeBotAPI]:
    api = FakeBotAPI()
    await api.start()
    yield api
    await api.close()


def _environment(tmp_path: Path, telegram: FakeBotAPI, port: int) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("CSBOT_", "DATABASE_URL"))}
    environment.update(
        {
            "CSBOT_BOT_TOKEN": TOKEN,
            "CSBOT_TELEGRAM_API_URL": telegram.url,
            "CSBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'shop.db'}",
            "CSBOT_ADMIN_IDS": str(ADMIN),
            "CSBOT_STAFF_IDS": str(STAFF),
            "CSBOT_SUPPORT_CHAT_ID": str(SUPPORT),
            "CSBOT_HTTP_HOST": "127.0.0.1",
            "CSBOT_HTTP_PORT": str(port),
            "CSBOT_SHUTDOWN_TIMEOUT": "1",
            "CSBOT_SHOP_TIMEZONE": "Asia/Seoul",
        }
    )
    return environment


@pytest.fixture
async def shop(tmp_path: Path, telegram: FakeBotAPI) -> AsyncIterator[tuple[str, dict[str, str]]]:
    """`csbot run` polling the loopback Telegram, its console on a free port: (base URL, env)."""
    port = free_port()
    environment = _environment(tmp_path, telegram, port)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=tmp_path, env=environment, stderr=asyncio.subprocess.PIPE
    )
    base = f"http://127.0.0.1:{port}"
    try:
        await _until(lambda: any(method == "getupdates" for method, _ in telegram.calls))
        yield base, environment
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 120)  # a bound for a hang
        assert TOKEN.encode() not in stderr, "the bot token is a secret: never in a log line"
        assert process.returncode == 0, stderr.decode()[-3000:]


async def _until(condition: Callable[[], bool], within: float = 120) -> None:
    async with asyncio.timeout(within):
        while not condition():  # noqa: ASYNC110  # another process makes progress: nothing to wait on here
            await asyncio.sleep(0.05)


class Customer:
    """Updates as Telegram would deliver them, from the test's thread or the browser's."""

    def __init__(self, telegram: FakeBotAPI, loop: asyncio.AbstractEventLoop) -> None:
        self.telegram = telegram
        self.loop = loop
        self.updates = UpdateFactory()

    def on_loop(self, make: Callable[[], Awaitable[T]]) -> T:
        """Run a coroutine on the test's loop from the browser's thread, and wait for it."""
        return asyncio.run_coroutine_threadsafe(make(), self.loop).result(timeout=180)  # type: ignore[arg-type]

    def deliver(self, update: Any) -> None:
        payload = update.model_dump(mode="json", exclude_unset=True)
        self.loop.call_soon_threadsafe(self.telegram.deliver, payload)

    async def link_for(self, user_id: int) -> str:
        before = len(self.telegram.texts_to(user_id))
        self.telegram.deliver(
            self.updates.text(user_id, "/console").model_dump(mode="json", exclude_unset=True)
        )
        await _until(lambda: len(self.telegram.texts_to(user_id)) > before)
        match = LINK.search(self.telegram.texts_to(user_id)[-1])
        assert match, self.telegram.texts_to(user_id)
        return match.group(0)

    def texts(self, chat_id: int = CUSTOMER) -> list[str]:
        return self.telegram.texts_to(chat_id)


def _sign_in(page: Page, link: str) -> None:
    page.goto(link)
    page.click("#sign-in")
    expect(page.locator("h1")).to_have_text("Inbox")


async def test_a_handoff_worked_from_the_console_end_to_end(
    browser: BrowserThread, telegram: FakeBotAPI, shop: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    base, environment = shop
    customer = Customer(telegram, asyncio.get_running_loop())
    admin_link = await customer.link_for(ADMIN)
    staff_link = await customer.link_for(STAFF)
    reply = "주문하신 상품은 내일 출고됩니다. 조금만 기다려 주세요!"

    def team(page: Page) -> None:
        _sign_in(page, admin_link)
        expect(page.locator("#queue")).to_contain_text("Nobody is waiting")
        page.evaluate("window.notReloaded = true")

        # the customer asks for a person: the queue shows it without a reload
        customer.deliver(customer.updates.text(CUSTOMER, "상담원이랑 얘기하고 싶어요"))
        customer.on_loop(lambda: _until(lambda: t("handoff_started", Language.KO) in customer.texts()))
        item = page.locator(".queue-item").first
        expect(item).to_contain_text("#1", timeout=30_000)
        expect(item).to_contain_text("unclaimed")
        expect(page.locator("#tab-waiting .count")).to_have_text("1")  # the counts are live too
        expect(item).to_contain_text("상담원이랑 얘기하고 싶어요")
        assert page.evaluate("window.notReloaded") is True, "the queue updated in place"

        item.locator("a.open-handoff").click()
        expect(page.locator("h1")).to_contain_text("Hand-off #1")
        expect(page.locator("#thread")).to_contain_text("Hand-off #1")  # the brief staff got
        page.click("#claim")
        expect(page.locator("#notice")).to_have_text("It is yours.")
        page.fill("#reply-text", reply)
        page.click("#send-reply")
        expect(page.locator("#notice")).to_contain_text("Sent")
        customer.on_loop(
            lambda: _until(lambda: t("staff_reply", Language.KO, text=reply) in customer.texts())
        )

        # the customer answers: it shows in the open conversation, live
        page.evaluate("window.notReloaded = true")
        customer.deliver(customer.updates.text(CUSTOMER, "네 감사합니다 기다릴게요"))
        expect(page.locator("#thread")).to_contain_text("네 감사합니다 기다릴게요", timeout=30_000)
        assert page.evaluate("window.notReloaded") is True

        # a second staff member sees who has it
        other = page.context.browser.new_context(viewport={"width": 390, "height": 844})  # type: ignore[union-attr]
        try:
            colleague = other.new_page()
            _sign_in(colleague, staff_link)
            expect(colleague.locator(".queue-item").first).to_contain_text(f"({ADMIN})")
            expect(colleague.locator("header.top nav")).not_to_contain_text(
                "FAQ"
            )  # staff do not edit the FAQ
            colleague.locator("a.open-handoff").first.click()
            expect(colleague.locator("#assignee")).to_contain_text(f"({ADMIN})")
            expect(colleague.locator("#claim")).to_have_text("Take over")
        finally:
            other.close()

        page.fill("#note-text", "내부 메모: 택배사에 지연 문의함")
        page.click("#add-note")
        expect(page.locator("#thread .bubble.note")).to_contain_text("택배사에 지연 문의함")
        page.click("#resolve")
        expect(page.locator("#notice")).to_contain_text("Resolved")

    await browser.run(team)

    # the customer was told, asked for a rating, and taps 5; the note never reached them
    assert t("handoff_ended", Language.KO) in customer.texts()
    [question] = [sent for sent in telegram.delivered if sent.chat_id == CUSTOMER and sent.reply_markup]
    assert question.text == t("rating_question", Language.KO)
    five = dict((label, data) for label, data in question.buttons())["5"]
    assert not any("택배사에 지연 문의함" in text for text in customer.texts())
    telegram.deliver(customer.updates.callback(CUSTOMER, five).model_dump(mode="json", exclude_unset=True))
    await _until(lambda: t("rating_thanks", Language.KO) in customer.texts())

    # the support chat saw the console's claim, reply and resolution
    support = customer.texts(SUPPORT)
    assert any("claimed by" in text for text in support), support
    assert any(reply in text for text in support), support
    assert any("resolved by" in text for text in support), support

    def dashboard(page: Page) -> tuple[str, str]:
        _sign_in(page, customer.on_loop(lambda: customer.link_for(ADMIN)))
        page.goto(base + "/admin/dashboard?period=24h")
        expect(page.locator("#team-rating")).to_contain_text("5.00")
        rating = page.locator("#team-rating").get_attribute("data-value") or ""
        first = page.locator("#team-first-response").get_attribute("data-seconds") or ""
        return rating, first

    rating, first_response = await browser.run(dashboard)
    stats = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "stats",
        "--json",
        cwd=tmp_path,
        env=environment,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(stats.communicate(), 120)
    assert stats.returncode == 0, err.decode()
    total = json.loads(out)["team"]["total"]
    assert (total["rating_mean"], total["ratings"]) == (5.0, 1)
    assert float(rating) == total["rating_mean"]
    assert total["first_response_p50_s"] is not None
    assert float(first_response) == pytest.approx(total["first_response_p50_s"])
