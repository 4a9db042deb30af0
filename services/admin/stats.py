"""Numbers admins ask for: volume, intents, hand-offs, latency, errors."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import stats as stats_repository
from db.types import utcnow
from services.admin.figures import dont_know_messages, opened_handoff, percentile
from services.handoff.figures import TeamFigures, team_figures
from services.llm.reply import ReplyMode
from services.shop.local_time import local_minute


@dataclass(frozen=True)
class Stats:
    since: datetime
    messages: int
    intents: dict[str, int]
    handoffs: int
    errors: int
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    dont_knows: int = 0
    """Answers that said "I don't know" (services.admin.figures.dont_know_messages)."""
    answers: int = 0
    """FAQ-style answers made by the answer service (retrieval or LLM)."""
    acceptance_rate: float | None = None
    answer_ttft_p50_ms: float | None = None
    answer_ttft_p95_ms: float | None = None
    answer_total_p50_ms: float | None = None
    answer_total_p95_ms: float | None = None
    cost_per_answer_usd: float | None = None
    guard_rejections: int = 0
    fallbacks: int = 0
    faq_text_checked: int = 0
    """Answers where the target was asked whether the matched FAQ text answers the question."""
    faq_text_confirmed: int = 0
    team: TeamFigures | None = None
    """Hand-offs as the support team worked them (services/handoff/figures.py)."""

    def as_dict(self) -> dict[str, object]:
        return {
            **self.__dict__,
            "since": self.since.isoformat(),
            "team": self.team.as_dict() if self.team is not None else None,
        }

    def render(self, zone: tzinfo) -> str:
        """`zone`: the shop's, for the "since" time."""
        intents = ", ".join(f"{name} {count}" for name, count in sorted(self.intents.items())) or "-"
        latency = (
            f"p50 {self.latency_p50_ms:.1f} ms, p95 {self.latency_p95_ms:.1f} ms"
            if self.latency_p50_ms is not None and self.latency_p95_ms is not None
            else "-"
        )
        text = (
            f"Since {local_minute(self.since, zone)}\n"
            f"Messages: {self.messages}\n"
            f"Intents: {intents}\n"
            f'"I don\'t know" answers: {self.dont_knows}\n'
            f"Hand-offs: {self.handoffs}\n"
            f"Errors: {self.errors}\n"
            f"Latency: {latency}"
        )
        if self.answers:
            acceptance = f"{self.acceptance_rate:.1%}" if self.acceptance_rate is not None else "-"
            cost = f"${self.cost_per_answer_usd:.5f}" if self.cost_per_answer_usd is not None else "-"
            text += (
                f"\nFAQ answers: {self.answers}, draft acceptance {acceptance}, cost per answer {cost}\n"
                f"First shown text: {_pair(self.answer_ttft_p50_ms, self.answer_ttft_p95_ms)}; "
                f"full answer: {_pair(self.answer_total_p50_ms, self.answer_total_p95_ms)}\n"
                f"Fact-guard rejections: {self.guard_rejections}, fallbacks: {self.fallbacks}"
            )
        if self.faq_text_checked:
            text += (
                f"\nFAQ text confirmed by the target: {self.faq_text_confirmed} of "
                f"{self.faq_text_checked} checked"
            )
        if self.team is not None and self.team.total.handoffs:
            text += "\n" + self.team.render()
        return text


def _pair(p50: float | None, p95: float | None) -> str:
    if p50 is None or p95 is None:
        return "-"
    return f"p50 {p50:.0f} ms, p95 {p95:.0f} ms"


async def collect_stats(
    session: AsyncSession, *, period: timedelta, exclude_users: Collection[int] = (), zone: tzinfo = UTC
) -> Stats:
    """Customer traffic only: `exclude_users` (the team) would otherwise count their own /stats,
    and staff messages in the support chat are not customer messages. `zone`: the shop's, for
    the team's figures per day."""
    since = utcnow() - period
    rows = await stats_repository.customer_messages_since(session, since=since, exclude_users=exclude_users)
    latencies = [row.latency_ms for row in rows if row.latency_ms is not None]
    replies = await stats_repository.llm_replies_since(session, since=since)
    drafted = sum(r.draft_tokens for r in replies)
    ttfts = [r.ttft_ms for r in replies if r.ttft_ms is not None]
    totals = [r.total_ms for r in replies]
    modes = [ReplyMode.from_label(r.mode) for r in replies]
    return Stats(
        answers=len(replies),
        acceptance_rate=sum(r.accepted_tokens for r in replies) / drafted if drafted else None,
        answer_ttft_p50_ms=percentile(ttfts, 0.5),
        answer_ttft_p95_ms=percentile(ttfts, 0.95),
        answer_total_p50_ms=percentile(totals, 0.5),
        answer_total_p95_ms=percentile(totals, 0.95),
        cost_per_answer_usd=sum(r.cost_usd for r in replies) / len(replies) if replies else None,
        guard_rejections=sum(1 for r in replies if r.guard),
        faq_text_checked=sum(1 for mode in modes if mode.faq_checked),
        faq_text_confirmed=sum(1 for mode in modes if mode.faq_confirmed),
        fallbacks=sum(1 for r in replies if r.fallback_reason),
        since=since,
        messages=len(rows),
        intents=dict(Counter(row.intent for row in rows if row.intent)),
        handoffs=sum(1 for row in rows if opened_handoff(row.route, row.answer_source)),
        dont_knows=len(await dont_know_messages(session, rows)),
        errors=sum(1 for row in rows if row.error),
        latency_p50_ms=percentile(latencies, 0.5),
        latency_p95_ms=percentile(latencies, 0.95),
        team=await team_figures(session, since=since, zone=zone),
    )


def parse_period(text: str) -> timedelta:
    """`24h`, `7d`, `30m` or a bare number of hours; ValueError says what was expected."""
    cleaned = text.strip().lower()
    units = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
    number, unit = (cleaned[:-1], units[cleaned[-1]]) if cleaned[-1:] in units else (cleaned, "hours")
    try:
        value = float(number)
        period = timedelta(**{unit: value}) if math.isfinite(value) else None
    except (ValueError, OverflowError):
        period = None
    if period is None:
        raise ValueError(f"expected a period such as 30m, 24h or 7d, not {text!r}")
    if period <= timedelta(0):
        raise ValueError(f"a period must be longer than zero, not {text!r}")
    try:
        utcnow() - period
    except OverflowError:
        raise ValueError(f"{text!r} reaches back before the year 1") from None
    return period
