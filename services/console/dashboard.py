"""The console's dashboard: the numbers of `/stats` over time, as charts, and the FAQ's gaps.

Rows of the period are read once and put into buckets here, in Python, so the
numbers (percentiles included) are the same on SQLite and PostgreSQL; a period
of days is tens of thousands of rows, read in well under a second.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import LLMReply
from db.repositories import logs
from db.repositories import stats as stats_repository
from db.types import utcnow
from services.admin.figures import dont_know_messages, opened_handoff, percentile
from services.console.charts import Chart, Series, render_for_screens
from services.console.gaps import QuestionGroup, group_questions
from services.handoff.figures import TeamFigures, team_figures
from services.llm.reply import ReplyMode
from services.shop.local_time import in_zone

HOURLY_UP_TO = timedelta(hours=48)
MAX_GAP_QUESTIONS = 2000
OTHER = "other"
TOP_INTENTS = 6


@dataclass(frozen=True)
class Dashboard:
    since: datetime
    bucket: str
    """"hour" or "day"."""
    messages: int
    dont_know: int
    charts: list[str]
    """Rendered SVG, in display order."""
    gaps: list[QuestionGroup]
    team: TeamFigures | None = None
    """Satisfaction, first response and resolution, in all and per day and staff member."""


def _floor(moment: datetime, bucket: timedelta, zone: tzinfo) -> datetime:
    """The start of `moment`'s hour or day where the shop is: a day is the shop's calendar day."""
    local = in_zone(moment, zone)
    if bucket >= timedelta(days=1):
        return local.replace(hour=0, minute=0, second=0, microsecond=0)
    return local.replace(minute=0, second=0, microsecond=0)


def _buckets(since: datetime, now: datetime, size: timedelta, zone: tzinfo) -> list[datetime]:
    start, end = _floor(since, size, zone), _floor(now, size, zone)
    out = [start]
    while out[-1] < end:
        out.append(out[-1] + size)
    return out


async def build_dashboard(
    session: AsyncSession, *, period: timedelta, zone: tzinfo, exclude_users: Collection[int] = ()
) -> Dashboard:
    """`zone`: the shop's; hours and days are counted and labelled in it."""
    now = utcnow()
    since = now - period
    size = timedelta(hours=1) if period <= HOURLY_UP_TO else timedelta(days=1)
    bucket_name = "hour" if size == timedelta(hours=1) else "day"
    fmt = "%m-%d %H:00" if bucket_name == "hour" else "%Y-%m-%d"
    labels = _buckets(since, now, size, zone)
    days = _buckets(since, now, timedelta(days=1), zone)

    rows = await stats_repository.customer_messages_since(session, since=since, exclude_users=exclude_users)
    replies = await stats_repository.llm_replies_since(session, since=since)

    per_bucket: dict[datetime, list[tuple[str | None, float | None]]] = defaultdict(list)
    for row in rows:
        per_bucket[_floor(row.created_at, size, zone)].append((row.intent, row.latency_ms))
    handoff_per_bucket = Counter(
        _floor(row.created_at, size, zone) for row in rows if opened_handoff(row.route, row.answer_source)
    )
    dont_knows = await dont_know_messages(session, rows)
    dont_know_per_day = Counter(_floor(row.created_at, timedelta(days=1), zone) for row in dont_knows)

    intent_totals = Counter(row.intent or OTHER for row in rows)
    shown = [name for name, _ in intent_totals.most_common(TOP_INTENTS)]

    def intent_of(intent: str | None) -> str:
        name = intent or OTHER
        return name if name in shown else OTHER

    if OTHER not in shown and any(intent_of(row.intent) == OTHER for row in rows):
        shown.append(OTHER)
    volume = [
        Series(
            name,
            [float(sum(1 for i, _ in per_bucket.get(b, []) if intent_of(i) == name)) for b in labels],
        )
        for name in shown
    ]

    def latencies(share: float) -> list[float | None]:
        return [
            percentile([lat for _, lat in per_bucket.get(b, []) if lat is not None], share) for b in labels
        ]

    def rate(b: datetime) -> float | None:
        messages = len(per_bucket.get(b, []))
        return 100.0 * handoff_per_bucket.get(b, 0) / messages if messages else None

    replies_per_day: dict[datetime, list[LLMReply]] = defaultdict(list)
    for reply in replies:
        replies_per_day[_floor(reply.created_at, timedelta(days=1), zone)].append(reply)

    def per_day(value: Callable[[Sequence[LLMReply]], float | None]) -> list[float | None]:
        return [value(replies_per_day[d]) if replies_per_day.get(d) else None for d in days]

    def acceptance(day: Sequence[LLMReply]) -> float | None:
        drafted = sum(r.draft_tokens for r in day)
        return 100.0 * sum(r.accepted_tokens for r in day) / drafted if drafted else None

    def confirmation(day: Sequence[LLMReply]) -> float | None:
        checked = [mode for mode in (ReplyMode.from_label(r.mode) for r in day) if mode.faq_checked]
        return 100.0 * sum(1 for mode in checked if mode.faq_confirmed) / len(checked) if checked else None

    per = f"per {bucket_name}"
    charts = [
        Chart(
            f"Customer messages {per}, by intent", "messages", labels, volume, stacked=True, label_format=fmt
        ),
        Chart(
            f"Hand-off rate {per} (hand-offs opened / customer messages)",
            "%",
            labels,
            [Series("hand-off rate", [rate(b) for b in labels])],
            label_format=fmt,
        ),
        Chart(
            f"Time to answer {per}",
            "ms",
            labels,
            [Series("p50", latencies(0.5)), Series("p95", latencies(0.95))],
            label_format=fmt,
        ),
        Chart(
            "LLM cost per day",
            "USD",
            days,
            [Series("cost", [sum(r.cost_usd for r in replies_per_day.get(d, [])) for d in days])],
            stacked=True,
            label_format="%Y-%m-%d",
        ),
        Chart(
            "LLM cost per answer, daily mean",
            "USD",
            days,
            [Series("cost per answer", per_day(lambda day: sum(r.cost_usd for r in day) / len(day)))],
            label_format="%Y-%m-%d",
        ),
        Chart(
            "Draft acceptance and FAQ confirmation per day",
            "%",
            days,
            [
                Series("draft tokens accepted", per_day(acceptance)),
                Series("FAQ text confirmed", per_day(confirmation)),
            ],
            label_format="%Y-%m-%d",
        ),
        Chart(
            "\u201cI don't know\u201d answers per day",
            "answers",
            days,
            [Series("no FAQ entry answered", [float(dont_know_per_day.get(d, 0)) for d in days])],
            stacked=True,
            label_format="%Y-%m-%d",
        ),
    ]
    newest = sorted((row.id for row in dont_knows if row.id is not None), reverse=True)
    questions = await logs.texts_of(session, newest[:MAX_GAP_QUESTIONS])
    return Dashboard(
        since,
        bucket_name,
        len(rows),
        len(dont_knows),
        [render_for_screens(chart) for chart in charts],
        group_questions(questions),
        team=await team_figures(session, since=since, zone=zone),
    )
