"""An answer that says "I don't know" is counted from what the answering path said, in every
language, with a model or without: the model's own no-answer signal never reaches the customer,
who gets the bot's own "I don't know" (and a person) in their language; the dashboard, `/stats`,
`csbot stats` and the per-arm figures count it the same."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, timedelta

import pytest
from aiogram.methods import SendMessage, SendMessageDraft

from bench.openai_double import OpenAIDouble, ScriptedModel
from db.models import InboundMessage, OutboundMessage
from db.types import utcnow
from services.admin.stats import collect_stats
from services.console.dashboard import build_dashboard
from services.llm.reply import NO_ANSWER
from services.replies import ReplyRoute
from services.rollout.arm_stats import collect_by_arm
from services.settings import Settings
from services.text.sentences import Language, t
from tests.harness import DEMO_USER_ID, OTHER_USER_ID, Harness, judged_bot

UNCOVERED: dict[Language, str] = {
    Language.KO: "회사 동료 생일 선물로 기프트카드 사고 싶은데 기프트카드도 파시나요?",
    Language.JA: "ギフトカードは販売していますか？同僚の誕生日に贈りたいのですが。",
    Language.EN: "do you guys sell gift cards? want one for my sisters birthday",
}


@pytest.fixture
async def double() -> AsyncIterator[OpenAIDouble]:
    server = OpenAIDouble({"target": ScriptedModel({}, default=NO_ANSWER)})
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def llm_harness(settings: Settings, double: OpenAIDouble) -> AsyncIterator[Harness]:
    async with judged_bot(settings, double.base_url) as bot:
        yield bot


async def test_the_models_no_answer_signal_is_the_bots_own_dont_know_in_the_customers_language(
    llm_harness: Harness,
) -> None:
    for language, question in UNCOVERED.items():
        calls = await llm_harness.feed(
            llm_harness.updates.text(OTHER_USER_ID, question, language_code=language)
        )
        shown = [c.text for c in calls if isinstance(c, (SendMessage, SendMessageDraft))]
        assert not any(NO_ANSWER in (text or "") for text in shown), shown
        sent = [c.text for c in calls if isinstance(c, SendMessage)]
        assert sent and sent[-1] in {t("faq_no_match", language), t("faq_no_match_choices", language)}, (
            language,
            sent,
        )
    rows = await llm_harness.rows(InboundMessage)
    assert [row.dont_know for row in rows] == [True, True, True]
    assert all((row.answer_source or "").startswith("llm:") for row in rows), [r.answer_source for r in rows]
    await _figures_agree(llm_harness, 3)


async def _figures_agree(harness: Harness, expected: int) -> None:
    """The dashboard, `/stats` and `csbot stats` (one Stats) and the per-arm figures: one count."""
    async with harness.app.session_factory() as session:
        stats = await collect_stats(session, period=timedelta(hours=1))
        board = await build_dashboard(session, period=timedelta(hours=1), zone=UTC)
        arms = await collect_by_arm(session, since=stats.since)
    assert stats.dont_knows == board.dont_know == expected
    assert sum(group.count for group in board.gaps) == expected, "each is among the FAQ's gaps"
    assert f'"I don\'t know" answers: {expected}' in stats.render(UTC)
    if arms:
        assert sum(arm.dont_knows for arm in arms) == expected


async def test_without_a_model_the_bots_own_dont_know_is_counted_in_every_language(harness: Harness) -> None:
    for language, question in UNCOVERED.items():
        replies = await harness.say(OTHER_USER_ID, question, language_code=language)
        assert replies[-1] in {t("faq_no_match", language), t("faq_no_match_choices", language)}
    covered = await harness.say(DEMO_USER_ID, "반품 기간이 어떻게 되나요?")
    assert covered and covered[-1] not in {
        t("faq_no_match", Language.KO),
        t("faq_no_match_choices", Language.KO),
    }
    assert [row.dont_know for row in await harness.rows(InboundMessage)] == [True, True, True, False]
    await _figures_agree(harness, 3)


async def test_the_recorded_signal_wins_over_words_that_look_like_dont_know(harness: Harness) -> None:
    """An answer that tells the customer what to do when they are "not sure" answered them; a
    message recorded before the signal existed is still read from its text."""
    now = utcnow()
    async with harness.app.session_factory() as session:
        for dont_know, text in (
            (False, "If you are not sure of your size, our size guide shows each measurement."),
            (None, t("faq_no_match", Language.JA)),
            (None, "Our size guide shows each measurement."),
        ):
            inbound = InboundMessage(
                telegram_user_id=OTHER_USER_ID,
                chat_id=OTHER_USER_ID,
                text="size?",
                status="answered",
                route=ReplyRoute.FAQ,
                answer_source="faq",
                dont_know=dont_know,
                created_at=now,
            )
            session.add(inbound)
            await session.flush()
            session.add(
                OutboundMessage(inbound_id=inbound.id, chat_id=OTHER_USER_ID, text=text, created_at=now)
            )
        await session.commit()
    await _figures_agree(harness, 1)
