"""Numbers admins ask for: volume, intents, hand-offs, latency, errors."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import HandoffSession, InboundMessage
from db.types import utcnow


@dataclass(frozen=True)
class Stats:
    since: datetime
    messages: int
    intents: dict[str, int]
    handoffs: int
    errors: int
    latency_p50_ms: float | None
    latency_p95_ms: float | None

    def as_dict(self) -> dict[str, object]:
        return {**self.__dict__, "since": self.since.isoformat()}

    def render(self) -> str:
        intents = ", ".join(f"{name} {count}" for name, count in sorted(self.intents.items())) or "-"
        latency = (
            f"p50 {self.latency_p50_ms:.1f} ms, p95 {self.latency_p95_ms:.1f} ms"
            if self.latency_p50_ms is not None and self.latency_p95_ms is not None
            else "-"
        )
        return (
            f"Since {self.since:%Y-%m-%d %H:%M} UTC\n"
            f"Messages: {self.messages}\n"
            f"Intents: {intents}\n"
            f"Hand-offs: {self.handoffs}\n"
            f"Errors: {self.errors}\n"
            f"Latency: {latency}"
        )


def percentile(values: Sequence[float], share: float) -> float | None:
    """Nearest-rank percentile; the same on every database because it runs here."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(share * len(ordered) + 0.5) - 1))
    return ordered[rank]


async def collect_stats(
    session: AsyncSession, *, period: timedelta, exclude_users: Collection[int] = ()
) -> Stats:
    """Customer traffic only: `exclude_users` (the admins) would otherwise count their own /stats."""
    since = utcnow() - period
    statement = select(InboundMessage.intent, InboundMessage.latency_ms, InboundMessage.error).where(
        InboundMessage.created_at >= since
    )
    if exclude_users:
        statement = statement.where(col(InboundMessage.telegram_user_id).not_in(list(exclude_users)))
    rows = (await session.exec(statement)).all()
    handoffs = (
        await session.exec(
            select(func.count()).select_from(HandoffSession).where(col(HandoffSession.opened_at) >= since)
        )
    ).one()
    latencies = [latency for _, latency, _ in rows if latency is not None]
    return Stats(
        since=since,
        messages=len(rows),
        intents=dict(Counter(intent for intent, _, _ in rows if intent)),
        handoffs=int(handoffs),
        errors=sum(1 for _, _, error in rows if error),
        latency_p50_ms=statistics.median(latencies) if latencies else None,
        latency_p95_ms=percentile(latencies, 0.95),
    )


def parse_period(text: str) -> timedelta:
    """`24h`, `7d`, `30m` or a bare number of hours."""
    text = text.strip().lower()
    units = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
    if text and text[-1] in units:
        value, unit = float(text[:-1]), units[text[-1]]
    else:
        value, unit = float(text), "hours"
    if value <= 0:
        raise ValueError("period must be positive")
    return timedelta(**{unit: value})
