"""The support team's figures: satisfaction, first-response time, time to resolution.

One definition, read by the console's dashboard, `/stats` and `csbot stats`:
- a hand-off counts in the period it was opened in (a day is the shop's, `zone`);
- first response: from the hand-off opening to staff's first message to the customer;
- time to resolution: from opening to staff resolving it (a customer's own `/bot` is not a
  resolution by the team, and has no rating question);
- satisfaction: the mean of the 1-5 ratings given; a skip is counted apart, never as a score;
- per staff member: by who had the hand-off (its assignee), or who resolved it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, tzinfo

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import HandoffSession
from db.repositories import handoff as rows
from services.admin.figures import percentile
from services.handoff.inbox import SKIPPED, name_of
from services.shop.local_time import local_day


@dataclass(frozen=True)
class TeamRow:
    label: str
    handoffs: int
    resolved: int
    ratings: int
    """Scores given (1-5); skips are not among them."""
    skipped: int
    rating_mean: float | None
    first_response_p50_s: float | None
    resolution_p50_s: float | None


def _seconds(start: datetime, end: datetime | None) -> float | None:
    return None if end is None else max(0.0, (end - start).total_seconds())


def _row(label: str, handoffs: Iterable[HandoffSession]) -> TeamRow:
    group = list(handoffs)
    scores = [h.rating for h in group if h.rated_at is not None and h.rating not in (None, SKIPPED)]
    first = [s for h in group if (s := _seconds(h.opened_at, h.first_response_at)) is not None]
    resolved = [h for h in group if h.closed_at is not None and h.resolved_by is not None]
    took = [s for h in resolved if (s := _seconds(h.opened_at, h.closed_at)) is not None]
    return TeamRow(
        label=label,
        handoffs=len(group),
        resolved=len(resolved),
        ratings=len(scores),
        skipped=sum(1 for h in group if h.rated_at is not None and h.rating == SKIPPED),
        rating_mean=sum(s for s in scores if s is not None) / len(scores) if scores else None,
        first_response_p50_s=percentile(first, 0.5),
        resolution_p50_s=percentile(took, 0.5),
    )


@dataclass(frozen=True)
class TeamFigures:
    total: TeamRow
    per_day: list[TeamRow]
    """Oldest day first; only days with hand-offs."""
    per_staff: list[TeamRow]
    """Busiest first; "nobody" for hand-offs no staff member had."""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    def render(self) -> str:
        total = self.total
        if not total.handoffs:
            return "Hand-offs worked: none"
        lines = [
            f"Hand-offs worked: {total.handoffs}, resolved {total.resolved}; "
            f"satisfaction {_rating(total)}; first response {duration(total.first_response_p50_s)}, "
            f"resolution {duration(total.resolution_p50_s)} (medians)"
        ]
        lines += [
            f"- {row.label}: {row.handoffs} hand-offs, satisfaction {_rating(row)}, "
            f"first response {duration(row.first_response_p50_s)}"
            for row in self.per_staff
        ]
        return "\n".join(lines)


def _rating(row: TeamRow) -> str:
    if row.rating_mean is None:
        return "no ratings"
    skipped = f", {row.skipped} skipped" if row.skipped else ""
    return f"{row.rating_mean:.2f}/5 from {row.ratings} rating{'s' if row.ratings != 1 else ''}{skipped}"


def duration(seconds: float | None) -> str:
    """`42 s`, `7 min`, `3.5 h`: the scale a support lead reads."""
    if seconds is None:
        return "-"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


async def team_figures(session: AsyncSession, *, since: datetime, zone: tzinfo) -> TeamFigures:
    handoffs = await rows.sessions_opened_since(session, since)
    names = await rows.staff_names(session)
    by_day: dict[str, list[HandoffSession]] = defaultdict(list)
    by_staff: dict[str, list[HandoffSession]] = defaultdict(list)
    for opened in handoffs:
        by_day[local_day(opened.opened_at, zone)].append(opened)
        who = opened.assignee_id if opened.assignee_id is not None else opened.resolved_by
        by_staff[name_of(who, names)].append(opened)
    return TeamFigures(
        total=_row("all", handoffs),
        per_day=[_row(day, group) for day, group in sorted(by_day.items())],
        per_staff=sorted(
            (_row(label, group) for label, group in by_staff.items()),
            key=lambda row: (-row.handoffs, row.label),
        ),
    )
