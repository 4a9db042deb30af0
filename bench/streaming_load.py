"""Streaming under load: 500 chats ask an FAQ question at the same moment, within Telegram's limits.

Every chat's question is answered by the target model on the local
OpenAI-compatible double (simulated time to first token and decoding speed,
scaled by --time-scale) and streamed: drafts while it is produced, then the
final message. The FAQ text is the draft the target verifies token by token
(`retrieval_check="draft"`), so every reply is the target's and streams; with
the default relevance check a confirmed FAQ text goes out whole, with no drafts.
The recording Telegram session enforces Telegram's limits (30 messages a second
overall, about one a second per chat; the same sliding windows the bot's limiter
keeps) and answers 429 with retry_after past them.

First one chat alone (the slowest single-chat reply: the reference), then all
chats at once. Prints how many were answered, the 429s received, p50/p95 time
to the first shown text and to the final message, drafts sent vs dropped, and
the bound the final-message p95 should stay within: twice the single-chat reply
plus the time the global limit itself imposes on that many final messages.
Last line: `answered=<n>/<chats> 429s=<n> p95_final_s=<s> bound_s=<s>`.

    .venv/bin/python -m bench.streaming_load [--chats 500] [--time-scale 0.25]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiogram import Bot
from aiogram.methods import SendMessage, SendMessageDraft, TelegramMethod
from aiogram.methods.base import TelegramType

from bench.openai_double import OpenAIDouble, Profile, ScriptedModel
from bot.app import App, build_app
from bot.dispatcher import create_bot
from bot.fake_updates import UpdateFactory
from bot.heap import settle_heap
from bot.middlewares.telegram_limits import OutgoingLimiter, TelegramLimits, counts_as_message
from bot.rate_windows import LocalWindows
from bot.recording_session import LOCAL_BOT_TOKEN, QueuedResponse, RecordingSession
from db.seed import FAQ
from services.admin.figures import percentile
from services.llm.config import LLMEndpoint, LLMRoles
from services.settings import Settings

QUESTION = "If I order today, when does it arrive?"
ANSWER = next(answer for slug, lang, _, answer, _, _ in FAQ if slug == "same-day-dispatch" and lang == "en")
TARGET = Profile(ttft=1.2, tokens_per_second=12)
FIRST_USER = 820_000_000


@dataclass
class ChatTimes:
    first_shown: float | None = None
    final: float | None = None


class EnforcingTelegram(RecordingSession):
    """Telegram with its limits: a message past them is refused with 429 and retry_after."""

    def __init__(self, limits: TelegramLimits | None = None) -> None:
        super().__init__()
        self.limits = limits or TelegramLimits()
        self.windows = LocalWindows()
        self.refused_429: Counter[str] = Counter()
        self.times: dict[int, ChatTimes] = {}
        self.started = time.monotonic()

    def next_fault(self, method: TelegramMethod[Any]) -> QueuedResponse | None:
        chat_id = getattr(method, "chat_id", None)
        if chat_id is None or not counts_as_message(method):
            return super().next_fault(method)
        chat_window, overall = self.limits.for_chat(chat_id), self.limits.overall
        chat_key = f"chat:{chat_id}"
        full = [
            (key, window)
            for key, window in ((chat_key, chat_window), ("all", overall))
            if self.windows.used(key, window) >= window.limit
        ]
        if full:
            wait = max(self.windows.acquire_now(key, window) for key, window in full)
            self.refused_429[method.__api_method__] += 1
            retry_after = max(1, math.ceil(wait))
            payload = {
                "ok": False,
                "error_code": 429,
                "description": f"Too Many Requests: retry after {retry_after}",
                "parameters": {"retry_after": retry_after},
            }
            return QueuedResponse(None, 429, payload)
        self.windows.acquire_now(chat_key, chat_window)
        self.windows.acquire_now("all", overall)
        return super().next_fault(method)

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109  # aiogram's signature
    ) -> TelegramType:
        result = await super().make_request(bot, method, timeout)
        if isinstance(method, (SendMessage, SendMessageDraft)):
            times = self.times.setdefault(int(method.chat_id), ChatTimes())
            now = time.monotonic() - self.started
            times.first_shown = times.first_shown if times.first_shown is not None else now
            if isinstance(method, SendMessage):
                times.final = now
        return result


def share_of(values: Sequence[float], share: float) -> float:
    found = percentile(values, share)
    return float("nan") if found is None else found


async def _one_run(
    app: App, users: Sequence[int], factory: UpdateFactory, limiter: OutgoingLimiter
) -> tuple[EnforcingTelegram, float]:
    """Every user asks at the same moment (as concurrent webhook deliveries would hand them over)."""
    telegram = EnforcingTelegram()
    bot = create_bot(LOCAL_BOT_TOKEN, session=telegram, limiter=limiter)
    updates = [factory.text(user, QUESTION) for user in users]
    telegram.started = time.monotonic()
    await asyncio.gather(*(app.dispatcher.feed_update(bot, update) for update in updates))
    return telegram, time.monotonic() - telegram.started


async def run(args: argparse.Namespace) -> dict[str, Any]:
    double = OpenAIDouble(
        {"target": ScriptedModel(lambda _q: ANSWER, profile=TARGET)}, time_scale=args.time_scale
    )
    base_url = await double.start()
    workdir = Path(tempfile.mkdtemp(prefix="csbot-streaming-"))
    target = LLMEndpoint(
        base_url=base_url,
        model="target",
        verify="token",
        max_concurrency=args.chats,  # a hosted model serves every chat at once
        timeout=120,
        first_token_timeout=120,
    )
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{workdir / 'streaming.db'}",
        journal_path=str(workdir / "journal.jsonl"),
        llm=LLMRoles(target=[target], retries=0, retrieval_check="draft"),
        max_concurrent_updates=args.chats,
        update_timeout=300.0,
        _env_file=None,  # type: ignore[call-arg]
    )
    app = await build_app(settings, seed=True)
    settle_heap()  # as `csbot run` does once started
    try:
        factory = UpdateFactory()
        alone, _ = await _one_run(app, [FIRST_USER - 1], factory, OutgoingLimiter())
        limiter = OutgoingLimiter()
        users = [FIRST_USER + index for index in range(args.chats)]
        telegram, wall = await _one_run(app, users, factory, limiter)
    finally:
        await app.close()
        await double.stop()
    single = alone.times.get(FIRST_USER - 1, ChatTimes()).final or float("nan")
    finals = [times.final for times in telegram.times.values() if times.final is not None]
    first = [times.first_shown for times in telegram.times.values() if times.first_shown is not None]
    limit_time = args.chats / TelegramLimits().overall.limit * TelegramLimits().overall.seconds
    return {
        "chats": args.chats,
        "time_scale": args.time_scale,
        "answered": len(finals),
        "refused_429": sum(telegram.refused_429.values()),
        "first_p50": share_of(first, 0.5),
        "first_p95": share_of(first, 0.95),
        "final_p50": share_of(finals, 0.5),
        "final_p95": share_of(finals, 0.95),
        "single": single,
        "limit_time": limit_time,
        "bound": 2 * single + limit_time,
        "drafts_sent": limiter.sent["sendMessageDraft"],
        "drafts_dropped": limiter.dropped["sendMessageDraft"],
        "finals_waited_s": limiter.waited_s,
        "wall": wall,
    }


def render(report: dict[str, Any]) -> list[str]:
    limits = TelegramLimits()
    return [
        f"{report['chats']} chats ask at once; target model on the local double (time to first token "
        f"{TARGET.ttft} s, {TARGET.tokens_per_second} tokens/s, time scale {report['time_scale']}); "
        f"Telegram's limits enforced: {limits.overall} overall, {limits.private_chat} per chat",
        f"answered: {report['answered']}/{report['chats']}   429s received: {report['refused_429']}",
        f"first shown text: p50 {report['first_p50']:.2f} s, p95 {report['first_p95']:.2f} s",
        f"final message:    p50 {report['final_p50']:.2f} s, p95 {report['final_p95']:.2f} s "
        f"(all done in {report['wall']:.2f} s)",
        f"drafts sent {report['drafts_sent']}, dropped {report['drafts_dropped']} (to keep the limits)",
        f"bound: 2 x slowest single-chat reply ({report['single']:.2f} s) + {report['chats']} final "
        f"messages at {limits.overall} ({report['limit_time']:.2f} s) = {report['bound']:.2f} s",
        f"answered={report['answered']}/{report['chats']} 429s={report['refused_429']} "
        f"p95_final_s={report['final_p95']:.2f} bound_s={report['bound']:.2f}",
    ]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--chats", type=int, default=500)
    parser.add_argument(
        "--time-scale",
        type=float,
        default=0.25,
        help="model latencies x this (Telegram's limits are not scaled)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=logging.CRITICAL)
    print("\n".join(render(asyncio.run(run(args)))))


if __name__ == "__main__":
    main()
