"""Per-arm numbers: how each configuration answered, measured the same way for each.

Shared by `/stats`, `csbot stats --by-arm`, the guard rails and the replay report,
so a rollback is decided on exactly the figures the admin reads.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import logs
from db.repositories import stats as stats_repository
from services.admin.figures import dont_know, percentile
from services.llm.reply import ReplyMode, Step

HANDOFF_AFTER = timedelta(minutes=30)
"""A hand-off this soon after an answer counts against the answer."""
NO_ARM = "(none)"
"""Replies logged before arms existed."""


@dataclass
class AnswerSample:
    """One answer as the per-arm figures need it (from the logs, or from a replay)."""

    arm: str
    user_id: int | None = None
    draft_tokens: int = 0
    accepted_tokens: int = 0
    ttft_ms: float | None = None
    total_ms: float = 0.0
    cost_usd: float = 0.0
    guard: bool = False
    fallback: bool = False
    dont_know: bool = False
    handoff_after: bool = False


@dataclass
class ArmStats:
    arm: str
    answers: int = 0
    customers: int = 0
    acceptance_rate: float | None = None
    guard_rejections: int = 0
    fallbacks: int = 0
    dont_knows: int = 0
    handoffs_after: int = 0
    ttft_p50_ms: float | None = None
    ttft_p95_ms: float | None = None
    total_p50_ms: float | None = None
    total_p95_ms: float | None = None
    cost_per_answer_usd: float | None = None
    weight: float | None = field(default=None)
    """The arm's weight right now (percent), when the caller knows it."""

    @property
    def error_rate(self) -> float:
        return self.fallbacks / self.answers if self.answers else 0.0

    @property
    def guard_rejection_rate(self) -> float:
        return self.guard_rejections / self.answers if self.answers else 0.0

    @property
    def dont_know_rate(self) -> float:
        return self.dont_knows / self.answers if self.answers else 0.0

    @property
    def handoff_rate(self) -> float:
        return self.handoffs_after / self.answers if self.answers else 0.0

    @property
    def p95_latency_ms(self) -> float:
        return self.total_p95_ms or 0.0

    @property
    def cost_per_answer(self) -> float:
        return self.cost_per_answer_usd or 0.0

    def metric(self, name: str) -> float:
        """A guard-rail metric by its configuration name."""
        return float(
            {
                "error_rate": self.error_rate,
                "guard_rejection_rate": self.guard_rejection_rate,
                "dont_know_rate": self.dont_know_rate,
                "p95_latency_ms": self.p95_latency_ms,
                "cost_per_answer_usd": self.cost_per_answer,
            }[name]
        )

    def as_dict(self) -> dict[str, object]:
        return {
            **asdict(self),
            "error_rate": self.error_rate,
            "guard_rejection_rate": self.guard_rejection_rate,
            "dont_know_rate": self.dont_know_rate,
            "handoff_rate": self.handoff_rate,
        }


def summarize(arm: str, samples: Sequence[AnswerSample]) -> ArmStats:
    drafted = sum(s.draft_tokens for s in samples)
    ttfts = [s.ttft_ms for s in samples if s.ttft_ms is not None]
    totals = [s.total_ms for s in samples]
    return ArmStats(
        arm=arm,
        answers=len(samples),
        customers=len({s.user_id for s in samples if s.user_id is not None}),
        acceptance_rate=sum(s.accepted_tokens for s in samples) / drafted if drafted else None,
        guard_rejections=sum(s.guard for s in samples),
        fallbacks=sum(s.fallback for s in samples),
        dont_knows=sum(s.dont_know for s in samples),
        handoffs_after=sum(s.handoff_after for s in samples),
        ttft_p50_ms=percentile(ttfts, 0.5),
        ttft_p95_ms=percentile(ttfts, 0.95),
        total_p50_ms=percentile(totals, 0.5),
        total_p95_ms=percentile(totals, 0.95),
        cost_per_answer_usd=sum(s.cost_usd for s in samples) / len(samples) if samples else None,
    )


def group(samples: Iterable[AnswerSample], order: Sequence[str] = ()) -> list[ArmStats]:
    """Per-arm figures, the configured arms first (in order, even without answers), then the rest."""
    by_arm: dict[str, list[AnswerSample]] = defaultdict(list)
    for sample in samples:
        by_arm[sample.arm].append(sample)
    names = [*order, *sorted(name for name in by_arm if name not in order)]
    return [summarize(name, by_arm.get(name, [])) for name in names]


async def answer_samples(
    session: AsyncSession,
    *,
    since: datetime | None = None,
    after_reply: int | None = None,
    exclude_users: Collection[int] = (),
    arms: Collection[str] | None = None,
) -> list[AnswerSample]:
    """Every answer a model of the answer service took part in since `since` (or after the
    `after_reply` id), as samples (customer traffic only)."""
    rows = await stats_repository.answers_with_senders(
        session, since=since, after_reply=after_reply, arms=arms, exclude_users=exclude_users
    )
    if not rows:
        return []
    earlier = [reply.inbound_id for reply, _, _, recorded in rows if recorded is None]
    texts = await logs.sent_texts(session, earlier) if earlier else {}
    handoffs = await logs.handoff_times(session, min(reply.created_at for reply, *_ in rows))
    samples = []
    for reply, user_id, chat_id, recorded in rows:
        if ReplyMode.from_label(reply.mode).step is Step.RETRIEVAL:
            continue  # no model took part (none configured): the FAQ's text is no arm's answer
        sent = texts.get((reply.inbound_id, chat_id), "")
        samples.append(
            AnswerSample(
                arm=reply.arm or NO_ARM,
                user_id=user_id,
                draft_tokens=reply.draft_tokens,
                accepted_tokens=reply.accepted_tokens,
                ttft_ms=reply.ttft_ms,
                total_ms=reply.total_ms,
                cost_usd=reply.cost_usd,
                guard=bool(reply.guard),
                fallback=bool(reply.fallback_reason),
                dont_know=dont_know(recorded, sent),
                handoff_after=_handed_off(handoffs.get(user_id or 0, []), reply.created_at),
            )
        )
    return samples


async def collect_by_arm(
    session: AsyncSession,
    *,
    since: datetime,
    exclude_users: Collection[int] = (),
    order: Sequence[str] = (),
) -> list[ArmStats]:
    return group(await answer_samples(session, since=since, exclude_users=exclude_users), order)


async def arm_section(
    session: AsyncSession,
    *,
    since: datetime,
    exclude_users: Collection[int] = (),
    weights: Mapping[str, float] | None = None,
    baseline: str | None = None,
) -> str | None:
    """The per-arm block of `/stats`: when arms are configured or answers came from several arms."""
    order = list(weights or ())
    stats = await collect_by_arm(session, since=since, exclude_users=exclude_users, order=order)
    if len(stats) < 2 and not (weights and len(weights) > 1):
        return None
    for arm in stats:
        arm.weight = (weights or {}).get(arm.arm)
    return "By arm:\n" + render_by_arm(stats, baseline=baseline)


def _handed_off(opened: list[datetime], answered_at: datetime) -> bool:
    index = bisect_left(opened, answered_at)
    return index < len(opened) and opened[index] <= answered_at + HANDOFF_AFTER


def render_by_arm(stats: Sequence[ArmStats], *, baseline: str | None = None) -> str:
    """One block per arm, for Telegram and the terminal alike."""
    if not stats:
        return "No answers in this period."
    lines = []
    for arm in stats:
        title = arm.arm + (" (baseline)" if arm.arm == baseline else "")
        if arm.weight is not None:
            title += f", weight {arm.weight:g}%"
        if not arm.answers:
            lines.append(f"{title}: no answers yet")
            continue
        acceptance = f"{arm.acceptance_rate:.1%}" if arm.acceptance_rate is not None else "-"
        cost = f"${arm.cost_per_answer_usd:.5f}" if arm.cost_per_answer_usd is not None else "-"
        lines.append(
            f"{title}: {arm.answers} answers to {arm.customers} customers\n"
            f"  acceptance {acceptance}, guard rejections {arm.guard_rejections} "
            f"({arm.guard_rejection_rate:.1%}), fallbacks {arm.fallbacks} ({arm.error_rate:.1%})\n"
            f'  "I don\'t know" {arm.dont_knows} ({arm.dont_know_rate:.1%}), '
            f"hand-off after an answer {arm.handoffs_after} ({arm.handoff_rate:.1%})\n"
            f"  latency {_pair(arm.total_p50_ms, arm.total_p95_ms)}, first text "
            f"{_pair(arm.ttft_p50_ms, arm.ttft_p95_ms)}, cost per answer {cost}"
        )
    return "\n".join(lines)


def _pair(p50: float | None, p95: float | None) -> str:
    if p50 is None or p95 is None:
        return "-"
    return f"p50 {p50:.0f} ms / p95 {p95:.0f} ms"
