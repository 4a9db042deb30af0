"""Offline replay: last week's real questions answered again by a candidate, compared, resumable."""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncIterator
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from bench.openai_double import OpenAIDouble
from bench.reference_models import QUESTIONS, invents_on, start_reference_double
from bot.app import App, build_app
from bot.cli_replay import load_candidate, print_by_arm, run_replay
from db.models import Customer, Order, ReplayItem, ReplayRun
from db.types import utcnow
from services.faq.replies import customer_facts
from services.llm.config import LLMEndpoint, LLMRoles
from services.rollout.replay import Replayer
from services.settings import ConfigError, Settings
from services.shop.sources.local import LocalShopData
from tests.harness import DEMO_USER_ID, Harness

ASKED = QUESTIONS[:6]


@pytest.fixture
async def double() -> AsyncIterator[OpenAIDouble]:
    server = await start_reference_double(time_scale=0.5, slow_ttft=0.4)
    yield server
    await server.stop()


def endpoint(double: OpenAIDouble, model: str) -> LLMEndpoint:
    return LLMEndpoint(base_url=double.base_url, model=model, verify="token", price_in=1, price_out=4)


@pytest.fixture
async def answered(settings: Settings, double: OpenAIDouble) -> AsyncIterator[tuple[App, Harness]]:
    """A bot that answered a week of questions with the good model (the shop's current one)."""
    roles = LLMRoles(target=[endpoint(double, "good")], retries=0)
    app = await build_app(settings.model_copy(update={"llm": roles}), upgrade=False, seed=True)
    harness = Harness(app)
    for index, question in enumerate(ASKED):
        await harness.say(DEMO_USER_ID if index == 0 else 960_000_000 + index, question)
    yield app, harness
    await app.close()


def replayer(app: App, candidate: LLMRoles, **options: object) -> Replayer:
    assert app.answerer is not None
    return Replayer(
        app.session_factory,
        candidate,
        app.answerer.lookup,
        LocalShopData,
        zone=UTC,
        **options,  # type: ignore[arg-type]
    )


async def test_replay_reports_an_inventing_candidate_question_by_question(
    answered: tuple[App, Harness], double: OpenAIDouble
) -> None:
    app, harness = answered
    telegram_calls = len(harness.session.requests)
    candidate = LLMRoles(target=[endpoint(double, "inventor")], retries=0)
    replay = replayer(app, candidate, concurrency=3)
    run, done = await replay.open_run(utcnow() - timedelta(days=7), None, restart=False)
    assert done == set() and len(run.question_ids) == len(ASKED)
    report = await replay.run(run, done)
    await replay.close()
    invented = {question for question in ASKED if invents_on(question, 2)}
    assert invented and invented != set(ASKED), "the inventor invents now and then"
    by_question = {c.question: c for c in report.comparisons}
    for question, comparison in by_question.items():
        assert comparison.original.relevance == "confirmed" and comparison.original.guard is None
        if question in invented:
            assert comparison.candidate.relevance == "rejected"
            assert comparison.candidate.guard is not None and "2500" in comparison.candidate.guard
            # The target said NO to the FAQ entry, so that entry is not shown either: the
            # honest "I don't know" (the customer is offered a person), never the invention.
            assert "2,500" not in comparison.candidate.text and comparison.candidate.dont_know
        else:
            assert comparison.candidate.guard is None and comparison.difference == 0
            assert comparison.candidate.ttft_ms is not None
        assert comparison.candidate.cost_usd > 0 and comparison.candidate.total_ms > 0
    assert report.totals["candidate"].guard_rejections == len(invented)
    assert report.totals["original"].guard_rejections == 0
    assert {c.question for c in report.most_different} == invented
    text = report.render()
    assert f"{len(ASKED)} of {len(ASKED)} questions" in text and "[GUARD: " in text
    # The guard's reasons and how many answers did not change at all.
    same = len(ASKED) - len(invented)
    assert report.identical == same and f"Same words as the original: {same} of {len(ASKED)} answers" in text
    [(reason, count)] = report.guard_reasons("candidate")
    assert "2500" in reason and count == len(invented)
    assert f"Fact guard refused the candidate's answers ({len(invented)}):" in text
    assert f"  {len(invented)} x {reason}" in text and report.as_dict()["identical"] == same
    assert len(harness.session.requests) == telegram_calls, "nothing was sent to anyone"


async def test_replay_shows_a_slower_candidate_and_uses_each_customers_facts_as_they_were(
    answered: tuple[App, Harness], double: OpenAIDouble
) -> None:
    app, _ = answered
    async with app.session_factory() as session:
        customer = (await session.exec(select(Customer))).first()
        assert customer is not None and customer.telegram_user_id == DEMO_USER_ID
        session.add(
            Order(
                number="20991231-000001",
                customer_id=customer.id or 0,
                placed_at=utcnow() + timedelta(hours=1),
            )
        )
        await session.commit()
        assert "20991231-000001" in await customer_facts(session, customer, zone=UTC), (
            "placed after the question"
        )
    replay = replayer(app, LLMRoles(target=[endpoint(double, "slow")], retries=0))
    run, done = await replay.open_run(utcnow() - timedelta(days=7), None, restart=False)
    report = await replay.run(run, done)
    await replay.close()
    original, candidate = report.totals["original"], report.totals["candidate"]
    assert candidate.ttft_p50_ms is not None and original.ttft_p50_ms is not None
    assert candidate.ttft_p50_ms > original.ttft_p50_ms, "the slow model shows up as slower"
    assert candidate.guard_rejections == 0 and all(c.difference == 0 for c in report.comparisons)
    verdicts = [r.body for r in double.calls("/v1/chat/completions", "slow")]
    demo = [body for body in verdicts if ASKED[0] in json.dumps(body, ensure_ascii=False)]
    assert demo, "the demo customer's question was replayed"
    prompt = json.dumps(demo[0], ensure_ascii=False)
    assert "20240115-001234" in prompt, "their own orders, as they were"
    assert "20991231-000001" not in prompt, "not an order placed after the question"


class Interrupted(Exception):
    pass


async def test_an_interrupted_replay_resumes_where_it_stopped(
    answered: tuple[App, Harness], double: OpenAIDouble
) -> None:
    app, _ = answered
    candidate = LLMRoles(target=[endpoint(double, "inventor")], retries=0)
    first = replayer(app, candidate, concurrency=1)
    run, _ = await first.open_run(utcnow() - timedelta(days=7), None, restart=False)

    def stop_after_two(done: int, total: int) -> None:
        if done == 2:
            raise Interrupted

    with pytest.raises(Interrupted):
        await first.run(run, set(), stop_after_two)
    await first.close()
    second = replayer(app, candidate, concurrency=2)
    resumed, done = await second.open_run(utcnow() - timedelta(days=1), 1, restart=False)
    assert resumed.id == run.id and len(done) == 2, "same run, same questions, two done"
    report = await second.run(resumed, done)
    await second.close()
    assert len(report.comparisons) == len(ASKED)
    verdicts = [r for r in double.calls("/v1/chat/completions", "inventor") if r.body.get("max_tokens") == 1]
    assert len(verdicts) == len(ASKED), "each question was answered once, not again after the resume"
    fresh = replayer(app, candidate)
    restarted, done = await fresh.open_run(utcnow() - timedelta(days=7), 2, restart=False)
    await fresh.close()
    assert restarted.id != run.id and done == set() and len(restarted.question_ids) == 2, (
        "finished: a new run"
    )


async def test_csbot_replay_and_stats_by_arm_from_the_command_line(
    answered: tuple[App, Harness],
    double: OpenAIDouble,
    settings: Settings,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    app, _ = answered
    path = tmp_path / "candidate.json"
    path.write_text(
        json.dumps({"target": [{"base_url": double.base_url, "model": "inventor", "verify": "token"}]})
    )
    args = argparse.Namespace(
        since=utcnow() - timedelta(days=7), limit=3, config=str(path), concurrency=2, json=True, restart=False
    )
    assert await run_replay(args, settings) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["questions"] == 3 and report["answered"] == 3
    assert set(report["totals"]) == {"original", "candidate"}
    assert {"question", "original", "candidate", "difference"} <= set(report["comparisons"][0])
    async with app.session_factory() as session:
        assert len((await session.exec(select(ReplayItem))).all()) == 3
        assert (await session.exec(select(ReplayRun))).one().finished_at is not None
        stats_args = argparse.Namespace(period=timedelta(days=1), json=False)
        assert await print_by_arm(session, stats_args, settings) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"baseline: {len(ASKED)} answers to {len(ASKED)} customers")
    for broken, says in (
        ("{}", "names no target model"),
        ('{"target": [{"model": "x"}]}', "target.0.base_url: Field required"),
    ):
        path.write_text(broken)
        with pytest.raises(ConfigError, match=says):
            load_candidate(str(path))
    with pytest.raises(ConfigError, match="cannot read the file"):
        load_candidate(str(tmp_path / "missing.json"))
