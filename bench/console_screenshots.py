"""Screenshots of the admin console for the README, taken in headless Chromium.

    python -m bench.console_screenshots          # writes docs/console-*.png

A demo shop on a temporary SQLite file, a day of customer messages through the
real dispatcher (Korean, English, Japanese; hand-offs, one of them worked and rated, a reply
Telegram refused, questions no FAQ entry answers), LLM reply records on the FAQ answers, then
the console as `csbot admin` serves it, signed in through a one-time link; a hand-off is worked
from the inbox (claimed, replied to, noted) at desktop width, and the inbox, that hand-off and
the dashboard are shown at phone width too.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from datetime import timedelta
from pathlib import Path

from aiogram.methods import SendMessage
from aiohttp import web
from pydantic import SecretStr
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bench.browser import DEFAULT_CHROMIUM, BrowserThread
from bot.app import App, build_app
from bot.console import standalone_application
from bot.console.wiring import console_deps
from bot.dispatcher import create_bot
from bot.fake_updates import UpdateFactory
from bot.recording_session import LOCAL_BOT_TOKEN, RecordingSession
from db.models import (
    CanaryArmState,
    HandoffSession,
    HandoffVia,
    InboundMessage,
    LLMCall,
    LLMReply,
    OutboundMessage,
)
from db.repositories import canary as canary_store
from db.types import utcnow
from services.console.auth import issue_login_link
from services.handoff import inbox
from services.llm.config import CanaryArm, LLMEndpoint, LLMRoles
from services.settings import Settings

DOCS = Path(__file__).parent.parent / "docs"
DEMO_USER = 700_000_001
ADMIN = 900_000_001
CUSTOMERS = [
    (DEMO_USER, "안녕하세요, 20240115-001234 주문 배송 어디쯤인가요?"),
    (DEMO_USER, "SKU-7890 재고 있나요?"),
    (DEMO_USER, "배송비는 얼마인가요?"),
    (DEMO_USER, "급하면 010-2345-6789로 연락 주세요"),
    (555_000_201, "Do you sell gift cards?"),
    (555_000_202, "do you sell gift cards"),
    (555_000_203, "Can I pay with bitcoin?"),
    (555_000_204, "送料はいくらですか？"),
    (555_000_205, "talk to a human please"),
    (555_000_206, "결제 수단은 뭐가 있나요?"),
    (555_000_207, "Do you sell gift cards for birthdays?"),
    (555_000_208, "반품은 며칠 안에 해야 하나요?"),
    (555_000_209, "Can I pay in bitcoin"),
    (555_000_210, "SKU-7890 재고 있나요?"),
    (555_000_211, "상담원 연결해 주세요"),
    (555_000_212, "担当者と話したいです"),
]
SUPPORT_CHAT = -100_555_000_1


async def build(folder: Path) -> tuple[Settings, App]:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{folder / 'demo.db'}",
        journal_path=str(folder / "journal.jsonl"),
        admin_ids=frozenset({ADMIN}),
        support_chat_id=SUPPORT_CHAT,
        console_secret=SecretStr("screenshots-console-secret"),
        _env_file=None,  # type: ignore[call-arg]
    )
    app = await build_app(settings, seed=True)
    session = RecordingSession()
    bot = create_bot(LOCAL_BOT_TOKEN, session=session)
    updates = UpdateFactory()
    rng = random.Random(7)
    for round_number in range(4):
        for user_id, text in CUSTOMERS:
            if user_id == DEMO_USER and round_number:
                continue
            if user_id == 555_000_206 and round_number == 1:
                session.queue_error(
                    SendMessage, error_code=403, description="Forbidden: bot was blocked by the user"
                )
            await app.dispatcher.feed_update(bot, updates.text(user_id, text))
    async with app.session_factory() as db:
        now = utcnow()
        rows = (await db.exec(select(InboundMessage).order_by(col(InboundMessage.id)))).all()
        for index, row in enumerate(rows):  # spread the day's traffic over 24 hours
            shift = timedelta(minutes=(len(rows) - index) * 24 * 60 / len(rows) + rng.random() * 20)
            row.created_at = now - shift
            row.latency_ms = round(rng.lognormvariate(4.0, 0.6), 1)
            db.add(row)
            for sent in (
                await db.exec(select(OutboundMessage).where(OutboundMessage.inbound_id == row.id))
            ).all():
                sent.created_at = row.created_at + timedelta(seconds=1)
                db.add(sent)
            if row.route in ("faq", "payment", "shipping", "returns") and row.answer_source == "faq":
                drafted = rng.randint(40, 90)
                reply = LLMReply(
                    inbound_id=row.id or 0,
                    mode=rng.choice(["token", "relevance", "judge"]),
                    drafter="faq",
                    draft_tokens=drafted,
                    accepted_tokens=int(drafted * rng.uniform(0.6, 0.95)),
                    verify_calls=2,
                    ttft_ms=round(rng.uniform(150, 400), 1),
                    total_ms=round(rng.uniform(700, 1800), 1),
                    prompt_tokens=1100,
                    completion_tokens=60,
                    cost_usd=round(rng.uniform(0.0002, 0.0009), 6),
                    arm="qwen14b" if rng.random() < 0.2 else "gpt-4.1",
                    created_at=row.created_at,
                )
                db.add(reply)
                await db.flush()
                for kind in ("relevance", "verify"):
                    db.add(
                        LLMCall(
                            reply_id=reply.id or 0,
                            role="target",
                            endpoint="https://llm.example/v1",
                            model="gpt-4o-mini",
                            kind=kind,
                            prompt_tokens=550,
                            completion_tokens=30,
                            ttft_ms=reply.ttft_ms,
                            total_ms=reply.total_ms / 2,
                            cost_usd=reply.cost_usd / 2,
                            created_at=row.created_at,
                        )
                    )
        await db.commit()
        await _canary_history(db)
        # one hand-off worked and rated, so the dashboard's team figures have something to show
        await inbox.remember_staff_name(db, ADMIN, "Minji Park")
        rated = (
            await db.exec(select(HandoffSession).where(HandoffSession.customer_user_id == 555_000_211))
        ).first()
        if rated is not None:
            await inbox.record_staff_reply(db, rated, ADMIN, "확인해 드릴게요!", HandoffVia.CONSOLE)
            await inbox.resolve(db, rated, ADMIN, HandoffVia.CONSOLE)
            await inbox.record_rating(db, rated.id or 0, 555_000_211, 5)
    return settings, app


async def _canary_history(db: AsyncSession) -> None:
    """A canary at 20% whose first try was rolled back by the guard rails, for the canary page."""
    start = utcnow() - timedelta(hours=20)
    events = [
        ("config", None, 5.0, "config", "configured", {}),
        ("set", 5.0, 20.0, f"admin:{ADMIN}", "set by an admin", {}),
        (
            "rollback",
            20.0,
            0.0,
            "guard-rails",
            "guard_rejection_rate 9.1% > limit 4.0% (baseline 1.0% x 2 + 2.0%)",
            {"breaches": [{"rule": "guard_rejection_rate", "value": 0.091, "limit": 0.04, "baseline": 0.01}]},
        ),
        ("set", 0.0, 20.0, f"admin:{ADMIN}", "set by an admin", {}),
    ]
    for index, (action, old, new, actor, reason, details) in enumerate(events):
        event = canary_store.event("qwen14b", action, old, new, actor, reason, details)
        event.created_at = start + timedelta(hours=3 * index)
        db.add(event)
    db.add(CanaryArmState(arm="qwen14b", weight=20.0, config_weight=5.0, status="active", since=start))
    await db.commit()


async def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        settings, app = await build(Path(name))
        # The console names the arms of the configuration it is given (its canary page).
        roles = LLMRoles(
            target=[LLMEndpoint(base_url="https://api.openai.com/v1", model="gpt-4.1")],
            baseline="gpt-4.1",
            arms=[
                CanaryArm(
                    name="qwen14b",
                    weight=5,
                    target=[LLMEndpoint(base_url="http://vllm.internal:8000/v1", model="Qwen2.5-14B")],
                )
            ],
        )
        deps = console_deps(
            settings.model_copy(update={"llm": roles}),
            app.session_factory,
            bot=create_bot(LOCAL_BOT_TOKEN, session=RecordingSession()),
        )
        runner = web.AppRunner(standalone_application(deps))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        base = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]
        key = settings.console_signing_key()
        assert key is not None
        browser = BrowserThread(DEFAULT_CHROMIUM)
        try:
            async with app.session_factory() as db:
                explained = (
                    await db.exec(
                        select(InboundMessage.telegram_user_id)
                        .join(LLMReply, col(LLMReply.inbound_id) == col(InboundMessage.id))
                        .order_by(col(InboundMessage.id).desc())
                    )
                ).first()
                shown_user = explained or DEMO_USER
                links = [
                    await issue_login_link(
                        db, admin_id=ADMIN, key=key, base_url=base + "/admin", lifetime=timedelta(minutes=5)
                    )
                    for _ in range(2)
                ]
                waiting = (
                    await db.exec(
                        select(HandoffSession).where(HandoffSession.customer_user_id == 555_000_212)
                    )
                ).first()
                worked = waiting.id if waiting is not None else 1

            def desktop(page: object) -> None:
                from playwright.sync_api import Page

                assert isinstance(page, Page)
                page.goto(links[0])
                page.click("#sign-in")
                page.screenshot(path=str(DOCS / "console-conversations.png"))
                page.goto(f"{base}/admin/conversations/{shown_user}")
                why = page.locator(".bubble.bot details.why")
                for index in range(why.count()):
                    if "LLM mode" in why.nth(index).inner_text() or index == why.count() - 1:
                        why.nth(index).locator("summary").click()
                        why.nth(index).scroll_into_view_if_needed()
                        break
                page.screenshot(path=str(DOCS / "console-conversation.png"))
                page.goto(f"{base}/admin/dashboard?period=24h")
                page.screenshot(path=str(DOCS / "console-dashboard.png"), full_page=True)
                page.goto(f"{base}/admin/failed")
                page.screenshot(path=str(DOCS / "console-failed.png"))
                page.goto(f"{base}/admin/canary?period=24h")
                page.screenshot(path=str(DOCS / "console-canary.png"), full_page=True)
                page.goto(f"{base}/admin/dashboard?period=24h")
                page.locator("table.gaps a", has_text="Write an FAQ entry").first.click()
                page.screenshot(path=str(DOCS / "console-faq-new.png"))
                page.goto(f"{base}/admin/inbox")
                page.screenshot(path=str(DOCS / "console-inbox.png"))
                page.goto(f"{base}/admin/inbox/{worked}")
                page.click("#claim")
                page.fill(
                    "#reply-text", "お問い合わせありがとうございます。ご注文番号を教えていただけますか。"
                )
                page.click("#send-reply")
                page.fill("#note-text", "Japanese customer; order not linked yet")
                page.click("#add-note")
                page.screenshot(path=str(DOCS / "console-handoff.png"), full_page=True)

            def phone(page: object) -> None:
                from playwright.sync_api import Page

                assert isinstance(page, Page)
                page.goto(links[1])
                page.click("#sign-in")
                page.goto(f"{base}/admin/conversations/{DEMO_USER}")
                page.screenshot(path=str(DOCS / "console-phone.png"))
                page.goto(f"{base}/admin/inbox?tab=all")
                page.screenshot(path=str(DOCS / "console-inbox-phone.png"))
                page.goto(f"{base}/admin/inbox/{worked}")
                page.screenshot(path=str(DOCS / "console-handoff-phone.png"), full_page=True)
                page.goto(f"{base}/admin/dashboard?period=24h")
                page.screenshot(path=str(DOCS / "console-dashboard-phone.png"), full_page=True)

            await browser.run(desktop, width=1280, height=860)
            await browser.run(phone, width=390, height=844)
        finally:
            browser.close()
            await runner.cleanup()
            await app.close()
    print("screenshots written:", ", ".join(sorted(p.name for p in DOCS.glob("console-*.png"))))


if __name__ == "__main__":
    asyncio.run(main())
