"""Canary routing end to end: real dispatch, real HTTP to two differently behaving reference models."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bench.openai_double import OpenAIDouble
from bench.reference_models import QUESTIONS, start_reference_double
from bot.app import App, build_app
from db.models import CanaryArmState, CanaryEvent, InboundMessage, LLMReply, OutboundMessage
from db.types import utcnow
from services.llm.arms import BUCKETS, bucket, choose_arm
from services.llm.config import CanaryArm, CanarySchedule, GuardRails, GuardRule, LLMEndpoint, LLMRoles
from services.rollout.arm_stats import collect_by_arm
from services.settings import ConfigError, Settings, load_settings
from tests.harness import ADMIN_ID, Harness, texts_to

USERS = 10_000


def test_the_split_matches_the_weights_within_sampling_error_over_10000_users() -> None:
    for canaries in ([("candidate", 5.0)], [("a", 20.0), ("b", 10.0)], [("half", 50.0)]):
        counts = Counter(choose_arm(user, "baseline", canaries, salt="csbot") for user in range(1, USERS + 1))
        expected = {"baseline": 100 - sum(w for _, w in canaries), **dict(canaries)}
        for arm, percent in expected.items():
            share = percent / 100
            sigma = math.sqrt(USERS * share * (1 - share))
            assert abs(counts[arm] - USERS * share) < 4 * sigma, (arm, counts[arm], canaries)


def test_an_arm_named_without_a_weight_serves_nobody_until_given_one() -> None:
    """A shop may declare its candidate first and send customers to it later."""
    arm = CanaryArm(name="candidate")
    served = {
        choose_arm(user, "baseline", [(arm.name, arm.weight)], salt="csbot") for user in range(1, USERS + 1)
    }
    assert served == {"baseline"}


def test_a_customer_keeps_their_arm_and_a_growing_canary_only_adds_customers() -> None:
    users = range(7_000_000, 7_000_000 + 2_000)
    at_5 = {u for u in users if choose_arm(u, "base", [("c", 5.0)], salt="csbot") == "c"}
    at_25 = {u for u in users if choose_arm(u, "base", [("c", 25.0)], salt="csbot") == "c"}
    assert at_5 < at_25, "raising the weight keeps everyone already in the canary"
    assert all(choose_arm(u, "base", [("c", 5.0)], salt="csbot") == "c" for u in at_5), "stable"
    assert choose_arm(None, "base", [("c", 100.0)], salt="csbot") == "base", "no user id: no experiment"
    reshuffled = {u for u in users if choose_arm(u, "base", [("c", 5.0)], salt="other") == "c"}
    assert reshuffled != at_5, "the salt reshuffles who is in the canary"
    assert all(0 <= bucket(u, "csbot") < BUCKETS for u in users)


def test_a_customer_keeps_their_place_across_releases() -> None:
    """Where a customer sits is part of the contract with the shop: a release that moved them would
    switch customers between models in the middle of an experiment. These places were measured
    once and are pinned; a 0.01% arm takes exactly the top place."""
    assert [bucket(user, "canary") for user in (1, 42, 10**9)] == [9045, 2207, 5385]
    top = next(user for user in range(1, 100_000) if bucket(user, "csbot") == BUCKETS - 1)
    below = next(user for user in range(1, 100_000) if bucket(user, "csbot") == BUCKETS - 2)
    assert choose_arm(top, "base", [("c", 0.01)], salt="csbot") == "c"
    assert choose_arm(below, "base", [("c", 0.01)], salt="csbot") == "base"


def test_csbot_llm_with_named_weighted_arms(monkeypatch: pytest.MonkeyPatch) -> None:
    value: dict[str, Any] = {
        "target": [{"base_url": "http://127.0.0.1:1/v1", "model": "current"}],
        "baseline": "current",
        "arms": [
            {
                "name": "cheaper",
                "weight": 5,
                "target": [{"base_url": "http://127.0.0.1:2/v1", "model": "new"}],
            },
            {
                "name": "new-drafter",
                "weight": 10,
                "drafter": [{"base_url": "http://127.0.0.1:3/v1", "model": "d"}],
            },
        ],
        "guard_rails": {"min_sample": 50, "p95_latency_ms": None},
        "schedule": {"arm": "cheaper", "steps": [5, 25, 50, 100], "every": "1d"},
    }
    monkeypatch.setenv("CSBOT_LLM", json.dumps(value))
    roles = load_settings(_env_file=None).llm
    assert roles.arm_roles("cheaper").target[0].model == "new"
    assert roles.arm_roles("new-drafter").target[0].model == "current", (
        "a role the arm leaves out is the baseline's"
    )
    assert roles.arm_roles("new-drafter").drafter[0].model == "d"
    assert roles.schedule is not None and roles.schedule.every == 86_400
    assert "p95_latency_ms" not in roles.guard_rails.rules()
    for broken, says in (
        ({**value, "arms": [{**value["arms"][0], "weight": 95}, value["arms"][1]]}, "more than 100"),
        ({**value, "schedule": {"arm": "nobody"}}, "not among the arms"),
        ({**value, "arms": [{**value["arms"][0], "name": "current"}]}, "must differ"),
        ({**value, "schedule": {"arm": "cheaper", "every": "soon"}}, "duration"),
    ):
        monkeypatch.setenv("CSBOT_LLM", json.dumps(broken))
        with pytest.raises(ConfigError, match="CSBOT_LLM") as error:
            load_settings(_env_file=None)
        assert says in str(error.value)


# --- through the bot -------------------------------------------------------------------------


@pytest.fixture
async def double() -> AsyncIterator[OpenAIDouble]:
    server = await start_reference_double(time_scale=0.05)
    yield server
    await server.stop()


def endpoint(double: OpenAIDouble, model: str) -> LLMEndpoint:
    return LLMEndpoint(base_url=double.base_url, model=model, verify="token", price_in=1, price_out=4)


def arms_config(
    double: OpenAIDouble, candidate: str, weight: float, *, min_sample: int = 6, **options: object
) -> LLMRoles:
    rails = GuardRails(min_sample=min_sample, check_every_seconds=0, p95_latency_ms=None)
    return LLMRoles(
        target=[endpoint(double, "good")],
        arms=[CanaryArm(name="candidate", weight=weight, target=[endpoint(double, candidate)])],
        guard_rails=rails,
        retries=0,
        **options,  # type: ignore[arg-type]
    )


Apps = Callable[[LLMRoles], Awaitable[App]]


@pytest.fixture
async def apps(settings: Settings) -> AsyncIterator[Apps]:
    """Builds apps on the test's database (a second one is the same bot after a restart)."""
    built: list[App] = []

    async def build(roles: LLMRoles) -> App:
        app = await build_app(settings.model_copy(update={"llm": roles}), upgrade=False, seed=not built)
        built.append(app)
        return app

    yield build
    for app in built:
        await app.close()


def canary_users(app: App, count: int, *, start: int = 800_000_000, arm: str = "candidate") -> list[int]:
    """User ids the hash puts in `arm` under the app's current weights."""
    assert app.canary is not None
    found: list[int] = []
    user = start
    while len(found) < count:
        if app.canary.answerer_for(user)[0] == arm:
            found.append(user)
        user += 1
    return found


def baseline_users(app: App, count: int, *, start: int) -> list[int]:
    return canary_users(app, count, start=start, arm="baseline")


async def ask_many(harness: Harness, users: list[int]) -> None:
    for index, user in enumerate(users):
        await harness.say(user, QUESTIONS[index % len(QUESTIONS)])


async def test_one_customer_one_arm_and_every_reply_names_its_arm(apps: Apps, double: OpenAIDouble) -> None:
    app: App = await apps(arms_config(double, "slow", 50, min_sample=1000))  # no rollback here
    harness = Harness(app)
    users = list(range(910_000_000, 910_000_008))
    for question in QUESTIONS[:2]:
        for user in users:
            await harness.say(user, question)
    arms_by_user: dict[int, set[str]] = {}
    replies = await harness.rows(LLMReply)
    inbound_users = {row.id: row.telegram_user_id for row in await harness.rows(InboundMessage)}
    for reply in replies:
        arms_by_user.setdefault(inbound_users[reply.inbound_id] or 0, set()).add(reply.arm or "")
    assert all(len(arms) == 1 for arms in arms_by_user.values()), "one model for the whole conversation"
    assert {arm for arms in arms_by_user.values() for arm in arms} == {"baseline", "candidate"}
    candidate_models = {r.body["model"] for r in double.requests if r.body.get("model")}
    assert candidate_models == {"good", "slow"}
    # Per-arm figures: an answer nobody could give, and a hand-off right after an answer.
    unsure, handed_off = users[0], users[1]
    await harness.say(unsure, "Can I bring my dog to the store?")
    await harness.say(handed_off, "상담원 연결")
    async with app.session_factory() as session:
        by_arm = {s.arm: s for s in await collect_by_arm(session, since=utcnow() - timedelta(hours=1))}
    assert sum(s.answers for s in by_arm.values()) == len(replies) + 1
    assert by_arm[app.canary.answerer_for(unsure)[0]].dont_knows == 1  # type: ignore[union-attr]
    assert sum(s.dont_knows for s in by_arm.values()) == 1
    assert by_arm[app.canary.answerer_for(handed_off)[0]].handoffs_after == 2, "both its answers"  # type: ignore[union-attr]
    assert sum(s.handoffs_after for s in by_arm.values()) == 2
    assert all(s.customers and s.total_p95_ms and s.cost_per_answer_usd for s in by_arm.values())


async def test_a_canary_that_invents_numbers_is_rolled_back_after_its_minimum_sample(
    apps: Apps, double: OpenAIDouble
) -> None:
    app: App = await apps(arms_config(double, "inventor", 50))
    harness = Harness(app)
    told: list[str] = []
    after_stop = 0
    for index, user in enumerate(range(920_000_000, 920_000_080)):
        calls = await harness.feed(harness.updates.text(user, QUESTIONS[index % len(QUESTIONS)]))
        told += texts_to(calls, ADMIN_ID)
        after_stop += bool(told)
        if after_stop > 4:
            break
    assert app.canary is not None and app.canary.weights()["candidate"] == 0
    [rollback] = [e for e in await harness.rows(CanaryEvent) if e.action == "rollback"]
    assert rollback.actor == "guard-rails" and rollback.old_weight == 50 and rollback.new_weight == 0
    assert "guard_rejection_rate" in rollback.reason
    judged = rollback.details["canary"]
    assert judged["answers"] >= 6 and judged["guard_rejections"] > 0, "judged only after the minimum sample"
    assert rollback.details["baseline"]["guard_rejections"] == 0
    [message] = told
    assert message.startswith("Canary candidate rolled back: guard_rejection_rate ")
    assert f"Sample: {judged['answers']} answers" in message and "Weight 50% -> 0%" in message
    replies = await harness.rows(LLMReply)
    after = [r for r in replies if r.created_at > rollback.created_at]
    assert after and all(r.arm == "baseline" for r in after), "everyone is back on the baseline"
    # Only the customers answered before the stop ever met the bad arm, and none of its inventions.
    assert all("2,500" not in text for text in await sent_texts(harness))
    [state] = await harness.rows(CanaryArmState)
    assert state.status == "rolled_back"
    [stats] = await harness.say(ADMIN_ID, "/stats")
    assert "By arm:" in stats and "candidate, weight 0%" in stats and "guard rejections" in stats


async def sent_texts(harness: Harness) -> list[str]:
    return [row.text for row in await harness.rows(OutboundMessage)]


async def test_an_admin_changes_a_weight_at_run_time_and_it_survives_a_restart(
    apps: Apps, double: OpenAIDouble
) -> None:
    roles = arms_config(double, "slow", 5)
    app: App = await apps(roles)
    harness = Harness(app)
    assert app.canary is not None
    outsider = next(u for u in range(930_000_000, 930_100_000) if app.canary.answerer_for(u)[0] == "baseline")
    assert app.canary.arms.choose(outsider, {"candidate": 100}) == "candidate"
    refused = await harness.say(outsider, "/canary candidate 100")
    assert refused == await harness.say(outsider, "/no_such_command"), "not an admin: no such command"
    assert app.canary.weights()["candidate"] == 5
    [done] = await harness.say(ADMIN_ID, "/canary candidate 100")
    assert done == "candidate: 5% -> 100%. Baseline baseline now serves 0%."
    await harness.say(outsider, QUESTIONS[0])
    assert (await harness.rows(LLMReply))[-1].arm == "candidate", "in effect at once, no restart"
    for bad, says in (
        ("/canary baseline 10", "is the baseline"),
        ("/canary nobody 10", "no arm 'nobody'"),
        ("/canary candidate lots", "Usage: /canary"),
        ("/canary candidate 120", "between 0 and 100"),
    ):
        assert says in (await harness.say(ADMIN_ID, bad))[0]
    restarted: App = await apps(roles)
    assert restarted.canary is not None and restarted.canary.weights()["candidate"] == 100
    again = Harness(restarted, harness.updates)
    await again.say(outsider, QUESTIONS[2])
    assert (await again.rows(LLMReply))[-1].arm == "candidate", "the decision survived the restart"
    [shown] = await again.say(ADMIN_ID, "/canary")
    assert "candidate: 100%" in shown and f"by admin:{ADMIN_ID}" in shown
    audit = [(e.action, e.actor, e.old_weight, e.new_weight) for e in await again.rows(CanaryEvent)]
    assert audit == [("config", "config", None, 5), ("set", f"admin:{ADMIN_ID}", 5, 100)]
    # A deploy that changes the configured weight wins over the older decision, and says so.
    redeployed: App = await apps(arms_config(double, "slow", 10))
    assert redeployed.canary is not None and redeployed.canary.weights()["candidate"] == 10


async def test_the_schedule_advances_only_while_the_rails_hold(apps: Apps, double: OpenAIDouble) -> None:
    schedule = CanarySchedule(arm="candidate", steps=[5, 50, 100], every=0.001)
    app: App = await apps(arms_config(double, "slow", 0, schedule=schedule))
    harness = Harness(app)
    assert app.canary is not None and app.canary.weights()["candidate"] == 5
    told: list[str] = []
    for round_ in range(4):  # each step needs its own minimum sample, judged after it was logged
        start = 940_000_000 + round_ * 10_000
        users = canary_users(app, 7, start=start) + baseline_users(app, 7, start=start + 5_000)
        for index, user in enumerate(users):
            calls = await harness.feed(harness.updates.text(user, QUESTIONS[index % len(QUESTIONS)]))
            told += texts_to(calls, ADMIN_ID)
        if app.canary.weights()["candidate"] == 100:
            break
    assert app.canary.weights()["candidate"] == 100
    assert [m.split(" (")[0] for m in told] == [
        "Canary candidate: 5% -> 50%",
        "Canary candidate: 50% -> 100%",
    ]
    assert "The schedule is complete" in told[-1]
    actions = [e.action for e in await harness.rows(CanaryEvent)]
    assert actions == ["config", "advance", "complete"]


async def test_a_scheduled_canary_that_breaks_the_rails_stops_instead_of_advancing(
    apps: Apps, double: OpenAIDouble
) -> None:
    schedule = CanarySchedule(arm="candidate", steps=[5, 50, 100], every=0.001)
    app: App = await apps(arms_config(double, "inventor", 0, schedule=schedule))
    harness = Harness(app)
    users = canary_users(app, 9, start=950_000_000) + baseline_users(app, 8, start=951_000_000)
    await ask_many(harness, users)
    assert app.canary is not None and app.canary.weights()["candidate"] == 0
    actions = [e.action for e in await harness.rows(CanaryEvent)]
    assert actions == ["config", "rollback"]


async def test_a_single_unnamed_chain_works_as_before(
    settings: Settings, double: OpenAIDouble, tmp_path: Path
) -> None:
    roles = LLMRoles(target=[endpoint(double, "good")], retries=0)
    app = await build_app(settings.model_copy(update={"llm": roles}), upgrade=False, seed=True)
    try:
        harness = Harness(app)
        [answer] = await harness.say(920_500_000, QUESTIONS[0])
        assert answer.startswith("Orders paid by 2 p.m.")
        [reply] = await harness.rows(LLMReply)
        assert reply.arm == "baseline"
        assert await harness.rows(CanaryArmState) == [], "no arms, no canary state"
        [stats] = await harness.say(ADMIN_ID, "/stats")
        assert "By arm:" not in stats
        [shown] = await harness.say(ADMIN_ID, "/canary")
        assert shown.startswith("One configuration (baseline) serves everyone.")
    finally:
        await app.close()


async def test_the_canary_bench_stops_the_bad_candidate_and_lets_the_good_one_through(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """bench/canary.py, shortened: a simulated day of 60 customers per scenario."""
    from bench import canary as bench

    good, bad = await bench.main(customers=60, min_sample=3, steps=[25.0, 50.0, 100.0])
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("Simulated day: 60 customers per scenario")
    assert re.fullmatch(
        r"bad_rollback_h=\d+\.\d\d bad_customers_before_stop=\d+ bad_answers_before_stop=\d+ "
        r"inventions_delivered=0 good_final_weight=\d+ good_rollbacks=0",
        lines[-1],
    )
    assert bad.rollback_hour is not None and bad.candidate_answers_before_stop >= 3
    assert bad.admin_messages == 1 and bad.inventions_delivered == 0
    assert good.rollback_hour is None and good.final_weight >= 25


def test_rules_compare_with_the_baseline_and_an_arm_may_have_stricter_rails() -> None:
    from services.rollout.arm_stats import ArmStats
    from services.rollout.canary import breaches

    strict = GuardRails(min_sample=50, guard_rejection_rate=GuardRule(ratio=1.0, margin=0.0))
    roles = LLMRoles(
        arms=[CanaryArm(name="risky", weight=5, guard_rails=strict), CanaryArm(name="usual", weight=5)],
        guard_rails=GuardRails(min_sample=100),
    )
    baseline = ArmStats(
        "baseline", answers=1000, guard_rejections=10, total_p95_ms=800.0, cost_per_answer_usd=0.001
    )

    def canary(name: str, answers: int, rejected: int) -> ArmStats:
        return ArmStats(
            name, answers=answers, guard_rejections=rejected, total_p95_ms=900.0, cost_per_answer_usd=0.001
        )

    assert breaches(canary("usual", 60, 3), baseline, roles) == [], "below the shared minimum sample"
    [breach] = breaches(canary("risky", 60, 3), baseline, roles)  # 5% > 1% x 1.0 + 0
    assert (breach.rule, round(breach.value, 3), round(breach.limit, 3)) == (
        "guard_rejection_rate",
        0.05,
        0.01,
    )
    assert breaches(canary("usual", 100, 4), baseline, roles) == [], "4% is not above 1% x 2 + 2 points"
    [breach] = breaches(canary("usual", 100, 5), baseline, roles)
    assert breach.describe() == "guard_rejection_rate 5.0% > limit 4.0% (baseline 1.0% x 2 + 2.0%)"
    slow = ArmStats("usual", answers=100, total_p95_ms=1500.0, cost_per_answer_usd=0.001)
    assert [b.rule for b in breaches(slow, baseline, roles)] == ["p95_latency_ms"]  # > 800 x 1.5 + 250


@pytest.mark.parametrize(
    ("every", "seconds"),
    [
        ("90", 90),
        ("30s", 30),
        ("15m", 900),
        ("6h", 21_600),
        ("1.5h", 5_400),
        ("1d", 86_400),
        ("2w", 1_209_600),
    ],
)
def test_a_schedule_s_pace_is_written_as_shops_write_it(every: str, seconds: float) -> None:
    assert CanarySchedule.model_validate({"arm": "candidate", "every": every}).every == seconds


def test_the_arms_may_take_every_customer_but_no_more() -> None:
    from pydantic import ValidationError

    target = [LLMEndpoint(base_url="http://127.0.0.1:9/v1", model="good")]

    def arms(*weights: float) -> LLMRoles:
        named = [CanaryArm(name=f"arm{n}", weight=w, target=target) for n, w in enumerate(weights)]
        return LLMRoles(target=target, arms=named)

    assert [arm.weight for arm in arms(60, 40).arms] == [60, 40], "all customers on arms: allowed"
    with pytest.raises(ValidationError, match="add up to more than 100 percent"):
        arms(60, 40.5)


def test_a_schedule_s_steps_are_increasing_percentages_up_to_a_hundred() -> None:
    from pydantic import ValidationError

    assert CanarySchedule(arm="candidate", steps=[0.5, 99.5, 100]).steps == [0.5, 99.5, 100]
    default = CanarySchedule(arm="candidate")
    assert (default.steps, default.every) == ([5.0, 25.0, 50.0, 100.0], 86400.0), "as docs/llm.md says"
    bad: list[list[float]] = [[5, 100.5], [0, 50], [50, 25], [25, 25, 100]]
    for steps in bad:
        with pytest.raises(ValidationError, match="increasing percentages above 0, at most 100"):
            CanarySchedule(arm="candidate", steps=steps)
