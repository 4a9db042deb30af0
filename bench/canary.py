"""A simulated day of traffic with a good and a bad canary: when is the bad one stopped?

Each scenario runs the real bot (dispatcher, canary routing, the guard rails, the
schedule 5% -> 25% -> 50% -> 100% every 6 simulated hours, the database) against
a local OpenAI-compatible double over real HTTP. The baseline and the good
candidate answer like a decent model; the bad candidate invents a price and a
deadline on some questions. Customers arrive through the day (busier in the
afternoon and evening), each asking one to three FAQ-style questions a minute
and a half apart.

Time is simulated and scaled to the machine: messages are handled in arrival
order as fast as it allows (a few at once), and the canary's clock (the
schedule's pace, the rails' check interval) is the simulated time of the
traffic, so a busy machine makes the run longer, never the results different.
Reported: when the bad arm was rolled back, how many customers and answers it
had by then, how many of its inventions reached anyone (the fact guard's job:
none), and how far the good one got through the schedule.

    python -m bench.canary            # 1,000 customers per scenario
    python -m bench.canary --quick    # a smoke test (100 customers, steps 25/50/100, minimum sample 3)
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import tempfile
import time
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from sqlmodel import col, select

from bench.openai_double import OpenAIDouble, Profile, ScriptedModel
from bench.reference_models import QUESTIONS, faq_answer, inventor
from bot.app import App, build_app
from bot.dispatcher import create_bot
from bot.fake_updates import UpdateFactory
from bot.middlewares.telegram_retry import TelegramRetryMiddleware
from bot.recording_session import LOCAL_BOT_TOKEN, RecordingSession
from db.models import CanaryEvent, InboundMessage, LLMReply, OutboundMessage
from db.types import utcnow
from services.llm.config import CanaryArm, CanarySchedule, GuardRails, LLMEndpoint, LLMRoles
from services.settings import Settings

ADMIN_ID = 900_000_001
QUICK = (100, 3, [25.0, 50.0, 100.0])
"""Customers, minimum sample, steps: a smoke test of the whole loop in seconds
(at 5% a hundred customers would give the canary too few answers to judge)."""
DAY_HOURS = 24
STEPS = [5.0, 25.0, 50.0, 100.0]
STEP_HOURS = 6
CHECK_MINUTES = 10
"""Simulated minutes between two judgements of the rails."""
FOLLOW_UP_SECONDS = 90
CONCURRENCY = 4
BUILDING = asyncio.Lock()


@dataclass
class Scenario:
    name: str
    model: str


@dataclass
class Outcome:
    name: str
    events: list[tuple[float, str, float, str]] = field(default_factory=list)
    """(simulated hour, action, new weight, reason)"""
    customers: int = 0
    answers_by_arm: dict[str, int] = field(default_factory=dict)
    customers_by_arm: dict[str, int] = field(default_factory=dict)
    candidate_answers_before_stop: int = 0
    candidate_customers_before_stop: int = 0
    guard_rejections_before_stop: int = 0
    inventions_delivered: int = 0
    admin_messages: int = 0
    wall_seconds: float = 0.0

    @property
    def rollback_hour(self) -> float | None:
        return next((hour for hour, action, _, _ in self.events if action == "rollback"), None)

    @property
    def final_weight(self) -> float:
        return self.events[-1][2] if self.events else 0.0


def arrivals(customers: int, rng: random.Random) -> list[tuple[float, int, str]]:
    """(simulated hour, user, question) in time order: busier from late morning to the evening."""

    def intensity(hour: float) -> float:
        return 0.25 + 0.75 * max(0.0, math.sin(math.pi * (hour - 7) / 16))

    script: list[tuple[float, int, str]] = []
    user = 600_000_000
    while user < 600_000_000 + customers:
        hour = rng.uniform(0, DAY_HOURS)
        if rng.random() >= intensity(hour):
            continue
        for index, question in enumerate(rng.sample(QUESTIONS, rng.choice((1, 1, 2, 3)))):
            script.append((hour + index * FOLLOW_UP_SECONDS / 3600, user, question))
        user += 1
    return sorted(script)


def roles_for(double: OpenAIDouble, candidate: str, *, min_sample: int, steps: list[float]) -> LLMRoles:
    def endpoint(model: str) -> LLMEndpoint:
        return LLMEndpoint(base_url=double.base_url, model=model, verify="token", price_in=1.0, price_out=4.0)

    return LLMRoles(
        target=[endpoint("baseline")],
        arms=[CanaryArm(name="candidate", target=[endpoint(candidate)])],
        schedule=CanarySchedule(arm="candidate", steps=steps, every=STEP_HOURS * 3600),
        guard_rails=GuardRails(
            min_sample=min_sample, check_every_seconds=CHECK_MINUTES * 60, p95_latency_ms=None
        ),
        retries=0,
    )


async def run_scenario(
    scenario: Scenario,
    double: OpenAIDouble,
    *,
    customers: int,
    min_sample: int,
    steps: list[float],
    seed: int,
    directory: Path,
) -> Outcome:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{directory / scenario.name}.db",
        journal_path=str(directory / f"{scenario.name}-journal.jsonl"),
        admin_ids=frozenset({ADMIN_ID}),
        llm=roles_for(double, scenario.model, min_sample=min_sample, steps=steps),
        _env_file=None,  # type: ignore[call-arg]
    )
    async with BUILDING:  # alembic's migration context is process-global: one build at a time
        app = await build_app(settings, seed=True)
    assert app.canary is not None
    telegram = RecordingSession()
    bot = create_bot(LOCAL_BOT_TOKEN, session=telegram, retry=TelegramRetryMiddleware(budget=5.0))
    updates = UpdateFactory()
    script = arrivals(customers, random.Random(seed))
    start, hour_now = utcnow(), 0.0
    app.canary.use_clock(lambda: start + timedelta(hours=hour_now), lambda: hour_now * 3600)
    handled: list[tuple[float, float]] = []
    """(wall time a message was handled, its simulated hour)"""
    limit = asyncio.Semaphore(CONCURRENCY)
    previous: dict[int, asyncio.Task[None]] = {}

    async def handle(hour: float, user: int, question: str, before: asyncio.Task[None] | None) -> None:
        if before is not None:
            await before  # a customer's follow-up comes after their first answer
        try:
            await app.dispatcher.feed_update(bot, updates.text(user, question))
            handled.append((time.time(), hour))
        finally:
            limit.release()

    started = time.monotonic()
    try:
        for hour, user, question in script:
            await limit.acquire()
            hour_now = max(hour_now, hour)
            previous[user] = asyncio.create_task(handle(hour, user, question, previous.get(user)))
        await asyncio.gather(*previous.values())
        outcome = await _measure(app, scenario.name, sorted(handled))
        outcome.customers = customers
        outcome.admin_messages = sum(
            1 for call in telegram.requests if getattr(call, "chat_id", None) == ADMIN_ID
        )
        outcome.wall_seconds = time.monotonic() - started
        return outcome
    finally:
        await app.close()
        await bot.session.close()


async def _measure(app: App, name: str, handled: list[tuple[float, float]]) -> Outcome:
    """Event times on the simulated clock: the hour of the last message handled before the event."""
    outcome = Outcome(name)
    async with app.session_factory() as session:
        events = (await session.exec(select(CanaryEvent).order_by(col(CanaryEvent.id)))).all()
        replies = (await session.exec(select(LLMReply).order_by(col(LLMReply.id)))).all()
        sent = (await session.exec(select(OutboundMessage.text))).all()
        users = dict((await session.exec(select(InboundMessage.id, InboundMessage.telegram_user_id))).all())
    walls = [wall for wall, _ in handled]

    def hour_of(at: datetime) -> float:
        index = bisect_right(walls, at.timestamp())
        return max((hour for _, hour in handled[:index]), default=0.0)

    outcome.events = [(hour_of(e.created_at), e.action, e.new_weight, e.reason) for e in events]
    stop = next((e.created_at for e in events if e.action == "rollback"), None)
    for arm in {r.arm or "-" for r in replies}:
        own = [r for r in replies if (r.arm or "-") == arm]
        outcome.answers_by_arm[arm] = len(own)
        outcome.customers_by_arm[arm] = len({users.get(r.inbound_id) for r in own})
    before = [r for r in replies if r.arm == "candidate" and (stop is None or r.created_at <= stop)]
    outcome.candidate_answers_before_stop = len(before)
    outcome.candidate_customers_before_stop = len({users.get(r.inbound_id) for r in before})
    outcome.guard_rejections_before_stop = sum(1 for r in before if r.guard)
    outcome.inventions_delivered = sum(1 for text in sent if "2,500" in text)
    return outcome


def _clock(hour: float) -> str:
    minutes = int(hour * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def render(outcomes: Sequence[Outcome], customers: int, min_sample: int, steps: list[float]) -> list[str]:
    lines = [
        f"Simulated day: {customers} customers per scenario (the same arrivals for both); "
        f"schedule {' -> '.join(f'{s:g}%' for s in steps)} every {STEP_HOURS} h; rails judged every "
        f"{CHECK_MINUTES} min, minimum sample {min_sample} answers per arm"
    ]
    for outcome in outcomes:
        history = ", ".join(
            f"{weight:g}% at {_clock(hour)} ({action})" for hour, action, weight, _ in outcome.events
        )
        lines.append(
            f"[{outcome.name}] {history}; answers by arm {dict(sorted(outcome.answers_by_arm.items()))}, "
            f"customers by arm {dict(sorted(outcome.customers_by_arm.items()))}; admin messages "
            f"{outcome.admin_messages}; the day took {outcome.wall_seconds:.1f} s of wall time"
        )
        if outcome.rollback_hour is not None:
            reason = next(r for _, action, _, r in outcome.events if action == "rollback")
            lines.append(
                f"[{outcome.name}] rolled back at {_clock(outcome.rollback_hour)} simulated "
                f"({outcome.rollback_hour:.2f} h) after {outcome.candidate_answers_before_stop} answers to "
                f"{outcome.candidate_customers_before_stop} customers ({outcome.guard_rejections_before_stop} "
                f"stopped by the fact guard); rule: {reason}; invented numbers delivered: "
                f"{outcome.inventions_delivered}"
            )
    good, bad = outcomes
    lines.append(
        f"bad_rollback_h={bad.rollback_hour if bad.rollback_hour is not None else -1:.2f} "
        f"bad_customers_before_stop={bad.candidate_customers_before_stop} "
        f"bad_answers_before_stop={bad.candidate_answers_before_stop} "
        f"inventions_delivered={bad.inventions_delivered + good.inventions_delivered} "
        f"good_final_weight={good.final_weight:g} good_rollbacks={int(good.rollback_hour is not None)}"
    )
    return lines


def double_models() -> dict[str, ScriptedModel]:
    return {
        "baseline": ScriptedModel(faq_answer, Profile(ttft=0.02)),
        "good": ScriptedModel(faq_answer, Profile(ttft=0.03)),
        "inventor": ScriptedModel(inventor(every=2), Profile(ttft=0.02)),
    }


async def main(
    *, customers: int = 1000, min_sample: int = 30, steps: list[float] | None = None, seed: int = 13
) -> list[Outcome]:
    steps = steps or STEPS
    double = OpenAIDouble(double_models())
    await double.start()
    try:
        with tempfile.TemporaryDirectory(prefix="csbot-canary-") as directory:
            outcomes = await asyncio.gather(  # side by side: the same day, the same customers
                *(
                    run_scenario(
                        scenario,
                        double,
                        customers=customers,
                        min_sample=min_sample,
                        steps=steps,
                        seed=seed,
                        directory=Path(directory),
                    )
                    for scenario in (
                        Scenario("good candidate", "good"),
                        Scenario("bad candidate", "inventor"),
                    )
                )
            )
    finally:
        await double.stop()
    for line in render(outcomes, customers, min_sample, steps):
        print(line)
    return outcomes


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--quick", action="store_true", help="100 customers, steps 25/50/100, minimum sample 3"
    )
    parser.add_argument("--customers", type=int, default=1000)
    parser.add_argument("--min-sample", type=int, default=30)
    parser.add_argument("--seed", type=int, default=13)
    parser.set_defaults(steps=STEPS)
    return parser.parse_args()


if __name__ == "__main__":
    args = _arguments()
    if args.quick:
        args.customers, args.min_sample, args.steps = QUICK
    asyncio.run(main(customers=args.customers, min_sample=args.min_sample, steps=args.steps, seed=args.seed))
