"""How long the console takes to serve one long conversation page, on SQLite.

    python -m bench.console_render              # 500 messages (250 asked, 250 answered)
    python -m bench.console_render --messages 1000

The page is fetched over real HTTP from the console as `csbot admin` serves it,
signed in, so the time includes the session check, every query (messages, the
LLM replies and calls behind them, the customer), the template and the network
stack on loopback. One in three answers carries an LLM reply with two API calls,
so every bot bubble's reasoning panel has something in it. The goal is under
300 ms for 500 messages; the last line prints the median and the ratio to it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import aiohttp
from aiohttp import web
from pydantic import SecretStr

from bot.console import standalone_application
from bot.console.wiring import console_deps
from db import migrate
from db.engine import create_engine, create_session_factory
from db.models import InboundMessage, InboundStatus, LLMCall, LLMReply, OutboundMessage
from db.types import utcnow
from services.console.auth import issue_login_link
from services.settings import Settings

GOAL_MS = 300.0
USER_ID = 700_000_001
ADMIN_ID = 900_000_001


async def seed(url: str, messages: int) -> None:
    engine = create_engine(url)
    await migrate.upgrade(engine)
    start = utcnow() - timedelta(hours=messages)
    async with create_session_factory(engine)() as session:
        for number in range(messages // 2):
            at = start + timedelta(minutes=2 * number)
            inbound = InboundMessage(
                telegram_user_id=USER_ID,
                chat_id=USER_ID,
                text=f"주문 20240115-00{number:04d} 배송은 언제 오나요? 연락처 010-1234-{number:04d}",
                status=InboundStatus.ANSWERED,
                intent="shipping",
                confidence=0.93,
                entities={"order_numbers": [f"20240115-00{number:04d}"], "route": "orders", "language": "ko"},
                route="shipping",
                answer_source="database",
                latency_ms=42.0,
                created_at=at,
            )
            session.add(inbound)
            await session.flush()
            session.add(
                OutboundMessage(
                    inbound_id=inbound.id,
                    chat_id=USER_ID,
                    telegram_user_id=USER_ID,
                    text=f"주문 20240115-00{number:04d}은 배송 중이에요. 도착 예정일은 내일입니다.",
                    created_at=at + timedelta(seconds=1),
                )
            )
            if number % 3 == 0:
                reply = LLMReply(
                    inbound_id=inbound.id or 0,
                    mode="token",
                    drafter="faq",
                    draft_tokens=60,
                    accepted_tokens=48,
                    verify_calls=2,
                    ttft_ms=180.0,
                    total_ms=900.0,
                    prompt_tokens=1200,
                    completion_tokens=70,
                    cost_usd=0.0004,
                    created_at=at,
                )
                session.add(reply)
                await session.flush()
                for role in ("target", "target"):
                    session.add(
                        LLMCall(
                            reply_id=reply.id or 0,
                            role=role,
                            endpoint="http://127.0.0.1:9/v1",
                            model="gpt-bench",
                            kind="verify",
                            prompt_tokens=600,
                            completion_tokens=35,
                            total_ms=400.0,
                            cost_usd=0.0002,
                            created_at=at,
                        )
                    )
        await session.commit()
    await engine.dispose()


async def measure(messages: int = 500, runs: int = 15) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"
        await seed(url, messages)
        settings = Settings(
            database_url=url,
            admin_ids=frozenset({ADMIN_ID}),
            console_secret=SecretStr("bench-console-secret"),
            _env_file=None,  # type: ignore[call-arg]
        )
        engine = create_engine(url)
        sessions = create_session_factory(engine)
        runner = web.AppRunner(standalone_application(console_deps(settings, sessions, bot=None)))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        base = f"http://127.0.0.1:{port}"
        key = settings.console_signing_key()
        assert key is not None
        try:
            async with sessions() as session:
                link = await issue_login_link(
                    session,
                    admin_id=ADMIN_ID,
                    key=key,
                    base_url=base + "/admin",
                    lifetime=timedelta(minutes=5),
                )
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
                async with http.post(link) as response:
                    assert response.status == 200, "signed in and redirected to the console"
                timings = []
                size = 0
                for _ in range(runs + 1):  # the first warms the template cache and the connection
                    started = time.perf_counter()
                    async with http.get(f"{base}/admin/conversations/{USER_ID}") as response:
                        body = await response.text()
                        assert response.status == 200
                    timings.append((time.perf_counter() - started) * 1000)
                    size = len(body)
                bubbles = body.count('<li class="bubble')
        finally:
            await runner.cleanup()
            await engine.dispose()
    timings = timings[1:]
    return {
        "messages": float(bubbles),
        "p50_ms": statistics.median(timings),
        "max_ms": max(timings),
        "kib": size / 1024,
    }


async def main(messages: int = 500, runs: int = 15) -> None:
    result = await measure(messages, runs)
    print(
        f"conversation page, {int(result['messages'])} messages on SQLite over HTTP: "
        f"p50 {result['p50_ms']:.1f} ms, max {result['max_ms']:.1f} ms over {runs} runs, {result['kib']:.0f} KiB"
    )
    print(f"p50_ms={result['p50_ms']:.1f} goal_ms={GOAL_MS:.0f} goal_ratio={result['p50_ms'] / GOAL_MS:.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--runs", type=int, default=15)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.messages, arguments.runs))
