"""The console's canary page and its audit trail: each arm's weight, status and figures beside
the baseline's, and every change of weight (an admin's, a rollback, a schedule step).

The figures are the per-arm ones `/stats` and `csbot stats --by-arm` show and the guard rails
judge (services.rollout.arm_stats); the weights and changes are the ones the running bot reads
(services.rollout.canary), so the page, the command and the rails never disagree.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import CanaryEvent
from db.repositories import canary as canary_store
from db.repositories import console as console_repository
from services.rollout.arm_stats import ArmStats, collect_by_arm
from services.rollout.canary import ADMIN_ACTOR, ROLLED_BACK

AUDIT_LIMIT = 200


@dataclass(frozen=True)
class ArmRow:
    stats: ArmStats
    baseline: bool
    rolled_back: bool
    configured: bool
    """The running bot's configuration names this arm (an older one's answers are shown too)."""


@dataclass(frozen=True)
class CanaryView:
    baseline: str | None
    """None where no model is configured."""
    arms: list[ArmRow]
    changes: list[CanaryEvent]


async def canary_view(
    session: AsyncSession,
    *,
    since: datetime,
    baseline: str | None,
    arms: Sequence[str] = (),
    weights: Mapping[str, float] | None = None,
    exclude_users: Collection[int] = (),
) -> CanaryView:
    """`baseline` and `arms`: the configuration's names (None: no model configured). `weights`:
    the running bot's, percent per arm with the baseline's; without them (the console served
    alone) the stored weights, the baseline serving what the canaries leave."""
    states = await canary_store.states(session)
    if weights is None:
        stored = {arm: states[arm].weight for arm in arms if arm in states}
        weights = {**({baseline: max(0.0, 100.0 - sum(stored.values()))} if baseline else {}), **stored}
    configured = [*([baseline] if baseline else []), *arms]
    stats = await collect_by_arm(session, since=since, exclude_users=exclude_users, order=configured)
    rows = []
    for arm in stats:
        arm.weight = weights.get(arm.arm)
        state = states.get(arm.arm)
        rows.append(
            ArmRow(
                arm,
                baseline=arm.arm == baseline,
                rolled_back=state is not None and state.status == ROLLED_BACK,
                configured=arm.arm in configured,
            )
        )
    return CanaryView(baseline, rows, await canary_store.events(session, limit=50))


@dataclass(frozen=True)
class AuditLine:
    created_at: datetime
    who: str
    """A staff member's Telegram id, or what acted on its own (guard-rails, schedule, config)."""
    action: str
    target: str
    detail: dict[str, Any]


async def audit_trail(session: AsyncSession, *, limit: int = AUDIT_LIMIT) -> list[AuditLine]:
    """Every console action and every canary change, newest first."""
    lines = [
        AuditLine(
            row.created_at,
            str(row.admin_user_id) if row.admin_user_id is not None else "-",
            row.action,
            row.target,
            row.detail,
        )
        for row in await console_repository.recent_audit(session, limit=limit)
    ]
    lines += [_canary_line(event) for event in await canary_store.events(session, limit=limit)]
    lines.sort(key=lambda line: line.created_at, reverse=True)
    return lines[:limit]


def _canary_line(event: CanaryEvent) -> AuditLine:
    old = f"{event.old_weight:g}%" if event.old_weight is not None else "-"
    detail: dict[str, Any] = {"weight": f"{old} -> {event.new_weight:g}%", "reason": event.reason}
    if event.details:
        detail["figures"] = event.details
    who = event.actor.removeprefix(ADMIN_ACTOR)
    return AuditLine(event.created_at, who, f"canary_{event.action}", f"arm:{event.arm}", detail)
