"""Canary routing at run time: current weights, guard rails, rollback, the schedule.

The configuration gives each canary its starting weight; from then on the weights
live in the database, where admins (`/canary`), the guard rails and the schedule
change them, each change audited. Every process reads them every few seconds, so
a change takes effect without a restart, on every instance, and survives one. A
deploy that changes an arm's configured weight wins over older decisions.

The rails compare a canary with the baseline over the same period (since the
canary's current stint began), on the figures `/stats` shows, and only once both
have the minimum sample. A breach stops the canary (weight 0) in one conditional
update, so of several processes exactly one reports it.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import CanaryArmState
from db.repositories import canary as store
from db.types import utcnow
from services.llm.arms import ArmSet
from services.llm.config import GuardRule, LLMRoles
from services.llm.speculative import SpeculativeAnswerer
from services.rollout.arm_stats import ArmStats, answer_samples, group

logger = logging.getLogger(__name__)

ROLLED_BACK = "rolled_back"
ACTIVE = "active"


ADMIN_ACTOR = "admin:"
"""Before an admin's Telegram id in a change's `actor` (the others: guard-rails, schedule, config)."""


def admin_actor(user_id: int) -> str:
    return f"{ADMIN_ACTOR}{user_id}"


def percent_of(text: str) -> float | None:
    """An admin's "5" or "5%" as a number (None: not one); `set_weight` checks its range."""
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        return None
    return None if math.isnan(value) else value


class CanaryError(ValueError):
    """A request the canary cannot carry out; the message says why, for the admin."""


@dataclass(frozen=True)
class Notice:
    """Something admins must hear about (a rollback, a schedule step)."""

    arm: str
    action: str
    text: str


@dataclass(frozen=True)
class Breach:
    rule: str
    value: float
    limit: float
    baseline: float
    setting: GuardRule

    def describe(self) -> str:
        return (
            f"{self.rule} {_fmt(self.rule, self.value)} > limit {_fmt(self.rule, self.limit)} "
            f"(baseline {_fmt(self.rule, self.baseline)} x {self.setting.ratio:g} + "
            f"{_fmt(self.rule, self.setting.margin)})"
        )


def _fmt(rule: str, value: float) -> str:
    if rule.endswith("_rate"):
        return f"{value:.1%}"
    if rule.endswith("_ms"):
        return f"{value:.0f} ms"
    return f"${value:.5f}"


def breaches(canary: ArmStats, baseline: ArmStats, roles: LLMRoles) -> list[Breach]:
    """The rules the canary breaks; none before both arms have the minimum sample."""
    rails = roles.rails_for(canary.arm)
    if min(canary.answers, baseline.answers) < rails.min_sample:
        return []
    found = []
    for name, rule in rails.rules().items():
        base, value = baseline.metric(name), canary.metric(name)
        if value > rule.limit(base):
            found.append(Breach(name, value, rule.limit(base), base, rule))
    return found


class Canary:
    def __init__(
        self,
        arms: ArmSet,
        session_factory: async_sessionmaker[AsyncSession],
        *,
        refresh_seconds: float = 5.0,
        exclude_users: Collection[int] = (),
        monotonic: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.arms = arms
        self.roles = arms.roles
        self._session_factory = session_factory
        self._refresh_seconds = refresh_seconds
        self._exclude = frozenset(exclude_users)
        self._monotonic = monotonic
        self._now = now
        self._weights = {arm.name: self._configured(arm.name) for arm in self.roles.arms}
        self._states: dict[str, CanaryArmState] = {}
        self._loaded_at = -math.inf
        self._checked_at = -math.inf
        self._checking = asyncio.Lock()

    def use_clock(self, now: Callable[[], datetime], monotonic: Callable[[], float]) -> None:
        """Another clock for the schedule's pace and the check interval (a time-scaled simulation);
        the rails count answers by their log ids, so they need no clock."""
        self._now, self._monotonic = now, monotonic
        self._loaded_at = self._checked_at = -math.inf

    # --- routing ----------------------------------------------------------------

    @property
    def active(self) -> bool:
        """Arms configured: routing, rails and the schedule have work to do."""
        return bool(self.roles.arms)

    @property
    def baseline(self) -> str:
        return self.roles.baseline

    def weights(self) -> dict[str, float]:
        """Percent per arm, the baseline's included (what the canaries leave)."""
        canaries = dict(self._weights)
        return {self.baseline: max(0.0, 100.0 - sum(canaries.values())), **canaries}

    def answerer_for(self, user_id: int | None) -> tuple[str, SpeculativeAnswerer]:
        name = self.arms.choose(user_id, self._weights) if self.active else self.baseline
        return name, self.arms.answerers[name]

    def _configured(self, arm: str) -> float:
        schedule = self.roles.schedule
        if schedule is not None and schedule.arm == arm:
            return schedule.steps[0]
        found = self.roles.arm(arm)
        return found.weight if found is not None else 0.0

    # --- persisted weights --------------------------------------------------------

    async def start(self) -> None:
        """Reconcile the database with the configuration (once per process start)."""
        if not self.active:
            return
        async with self._session_factory() as session:
            saved = await store.states(session)
            for arm in self.roles.arms:
                await self._reconcile(session, arm.name, saved.get(arm.name))
        await self.refresh(force=True)

    async def _reconcile(self, session: AsyncSession, arm: str, row: CanaryArmState | None) -> None:
        configured, now = self._configured(arm), self._now()
        scheduled = self.roles.schedule is not None and self.roles.schedule.arm == arm
        if row is not None and row.config_weight == configured:
            return  # decisions made since the last deploy stand
        old = row.weight if row is not None else None
        reason = (
            "configured"
            if row is None
            else f"configuration changed from {row.config_weight:g}% to {configured:g}%"
        )
        fresh = row or CanaryArmState(arm=arm)
        fresh.weight, fresh.config_weight, fresh.status, fresh.since = configured, configured, ACTIVE, now
        fresh.since_reply = fresh.step_reply = await store.last_reply(session)
        fresh.step, fresh.step_since = (0, now) if scheduled else (None, None)
        try:
            await store.save(session, fresh, store.event(arm, "config", old, configured, "config", reason))
        except IntegrityError:  # another instance starting at the same moment wrote it first
            await session.rollback()

    async def refresh(self, *, force: bool = False) -> None:
        """Pick up changes made elsewhere (another instance, an admin) every few seconds."""
        if not self.active or (not force and self._monotonic() - self._loaded_at < self._refresh_seconds):
            return
        self._loaded_at = self._monotonic()
        try:
            async with self._session_factory() as session:
                self._apply(await store.states(session))
        except (SQLAlchemyError, OSError, TimeoutError) as error:  # keep serving on the last weights
            logger.warning(
                "canary weights not refreshed", extra={"error": f"{type(error).__name__}: {error}"}
            )

    def _apply(self, states: dict[str, CanaryArmState]) -> None:
        self._states = states
        for arm in self.roles.arms:
            if arm.name in states:
                self._weights[arm.name] = states[arm.name].weight

    async def set_weight(self, arm: str, percent: float, *, actor: str) -> str:
        """An admin's decision: takes effect here at once, elsewhere within the refresh interval."""
        if arm == self.baseline:
            raise CanaryError(
                f"{arm} is the baseline: it serves whoever the canaries leave. Set a canary's weight instead."
            )
        if self.roles.arm(arm) is None:
            names = ", ".join(a.name for a in self.roles.arms) or "none configured"
            raise CanaryError(f"no arm {arm!r}; canaries: {names}")
        if not (0 <= percent <= 100) or math.isnan(percent):
            raise CanaryError("the percentage must be between 0 and 100")
        await self.refresh(force=True)
        others = sum(weight for name, weight in self._weights.items() if name != arm)
        if others + percent > 100:
            raise CanaryError(
                f"the other canaries already take {others:g}%: at most {100 - others:g}% is left"
            )
        now = self._now()
        async with self._session_factory() as session:
            row = (await store.states(session)).get(arm) or CanaryArmState(
                arm=arm, config_weight=self._configured(arm)
            )
            old = row.weight
            if old == 0 and percent > 0:
                row.since = now  # a new stint: the rails judge it on its own answers
                row.since_reply = await store.last_reply(session)
            paused = row.step is not None
            row.weight, row.status, row.step, row.step_since = percent, ACTIVE, None, None
            reason = "set by an admin" + ("; its schedule is paused" if paused else "")
            await store.save(session, row, store.event(arm, "set", old, percent, actor, reason))
        await self.refresh(force=True)
        return (
            f"{arm}: {old:g}% -> {percent:g}%. Baseline {self.baseline} now serves "
            f"{self.weights()[self.baseline]:g}%."
            + (" The schedule for this arm is paused." if paused else "")
        )

    # --- guard rails and the schedule -------------------------------------------------

    async def check(self, *, force: bool = False) -> list[Notice]:
        """Judge the rails (and step the schedule) at most every `check_every_seconds`."""
        if not self.active or self._checking.locked():
            return []
        every = self.roles.guard_rails.check_every_seconds
        if not force and self._monotonic() - self._checked_at < every:
            return []
        async with self._checking:
            self._checked_at = self._monotonic()
            await self.refresh(force=True)
            notices = []
            for arm in self.roles.arms:
                state = self._states.get(arm.name)
                if state is None or state.weight <= 0:
                    continue
                notice = await self._judge(state)
                if notice is not None:
                    notices.append(notice)
            if notices:
                await self.refresh(force=True)
            return notices

    async def stats(self, after_reply: int) -> dict[str, ArmStats]:
        """Per-arm figures over the answers logged after `after_reply` (a stint's or a step's)."""
        order = [self.baseline, *self.arms.canary_names]
        async with self._session_factory() as session:
            samples = await answer_samples(
                session, after_reply=after_reply, exclude_users=self._exclude, arms=order
            )
        return {stats.arm: stats for stats in group(samples, order)}

    async def _judge(self, state: CanaryArmState) -> Notice | None:
        by_arm = await self.stats(state.since_reply)
        canary, baseline = by_arm[state.arm], by_arm[self.baseline]
        if min(canary.answers, baseline.answers) < self.roles.rails_for(state.arm).min_sample:
            return None  # the rails cannot be judged yet, so they cannot be said to hold either
        found = breaches(canary, baseline, self.roles)
        if found:
            return await self._roll_back(state, canary, baseline, found)
        return await self._advance(state)

    async def _roll_back(
        self, state: CanaryArmState, canary: ArmStats, baseline: ArmStats, found: list[Breach]
    ) -> Notice | None:
        rules = "; ".join(breach.describe() for breach in found)
        text = (
            f"Canary {state.arm} rolled back: {rules}. "
            f"Sample: {canary.answers} answers to {canary.customers} customers vs {baseline.answers} "
            f"on {self.baseline}. Weight {state.weight:g}% -> 0%; its customers are back on {self.baseline}. "
            f"/canary {state.arm} <percent> to try again."
        )
        details = {
            "breaches": [
                {"rule": b.rule, "value": b.value, "limit": b.limit, "baseline": b.baseline} for b in found
            ],
            "canary": canary.as_dict(),
            "baseline": baseline.as_dict(),
        }
        event = store.event(state.arm, "rollback", state.weight, 0.0, "guard-rails", rules, details)
        async with self._session_factory() as session:
            stopped = await store.stop(session, state.arm, status=ROLLED_BACK, at=self._now(), event=event)
        if not stopped:
            return None  # another instance got there first and told the admins
        logger.error(
            "canary rolled back by its guard rails",
            extra={"arm": state.arm, "rules": rules, "answers": canary.answers},
        )
        return Notice(state.arm, "rollback", text)

    async def _advance(self, state: CanaryArmState) -> Notice | None:
        schedule = self.roles.schedule
        if schedule is None or schedule.arm != state.arm or state.step is None or state.step_since is None:
            return None
        if state.step + 1 >= len(schedule.steps):
            return None
        now = self._now()
        if now - state.step_since < timedelta(seconds=schedule.every):
            return None
        in_step = (await self.stats(state.step_reply))[state.arm]
        if in_step.answers < self.roles.rails_for(state.arm).min_sample:
            return None  # too few answers at this step to say the rails held
        step = state.step + 1
        new = schedule.steps[step]
        others = sum(w for name, w in self._weights.items() if name != state.arm)
        new = min(new, 100 - others)
        old = state.weight
        state.weight, state.step, state.step_since = new, step, now
        async with self._session_factory() as session:
            state.step_reply = await store.last_reply(session)
        last = step == len(schedule.steps) - 1
        action = "complete" if last else "advance"
        reason = (
            f"schedule step {step + 1} of {len(schedule.steps)}: "
            f"the rails held over {in_step.answers} answers"
        )
        async with self._session_factory() as session:
            await store.save(session, state, store.event(state.arm, action, old, new, "schedule", reason))
        text = f"Canary {state.arm}: {old:g}% -> {new:g}% ({reason})."
        if last:
            text += (
                f" The schedule is complete; make {state.arm} the baseline in CSBOT_LLM at the next deploy."
            )
        logger.info("canary schedule advanced", extra={"arm": state.arm, "weight": new, "step": step})
        return Notice(state.arm, action, text)

    async def describe(self) -> str:
        """What `/canary` shows: weights, status, schedule and the latest changes."""
        if not self.active:
            return (
                f"One configuration ({self.baseline}) serves everyone. Add arms to CSBOT_LLM to run a canary "
                "(see the README, 'Changing models')."
            )
        await self.refresh(force=True)
        lines = [f"{self.baseline} (baseline): {self.weights()[self.baseline]:g}%"]
        schedule = self.roles.schedule
        for arm in self.roles.arms:
            state = self._states.get(arm.name)
            line = f"{arm.name}: {self._weights[arm.name]:g}%"
            if state is not None and state.status == ROLLED_BACK:
                line += " (rolled back by the guard rails)"
            if (
                schedule is not None
                and schedule.arm == arm.name
                and state is not None
                and state.step is not None
            ):
                steps = " -> ".join(f"{s:g}%" for s in schedule.steps)
                line += f", schedule {steps}, step {state.step + 1}, every {schedule.every / 3600:g} h"
            lines.append(line)
        async with self._session_factory() as session:
            recent = await store.events(session, limit=5)
        if recent:
            lines.append("Latest changes:")
            lines.extend(
                f"{e.created_at:%m-%d %H:%M} {e.arm} {e.old_weight if e.old_weight is not None else '-'}"
                f" -> {e.new_weight:g} by {e.actor}: {e.reason[:160]}"
                for e in recent
            )
        return "\n".join(lines)
