"""The bot answering FAQ questions through the LLM service, end to end over real HTTP."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from aiogram.methods import SendMessage, SendMessageDraft
from sqlalchemy import event

from bench.openai_double import Fault, OpenAIDouble, ScriptedModel
from bot.app import build_app
from db.models import InboundMessage, LLMCall, LLMReply
from db.seed import FAQ
from db.wal_checkpoint import TASK_NAME as CHECKPOINTER
from services.llm.config import LLMEndpoint, LLMRoles
from services.settings import Settings
from services.text.sentences import Language, t
from tests.harness import ADMIN_ID, DEMO_USER_ID, Harness, buttons

QUESTION = "If I order today, when does it arrive?"
FAQ_EN = next(answer for slug, lang, _, answer, _, _ in FAQ if slug == "same-day-dispatch" and lang == "en")
TARGET_SAYS = FAQ_EN.split(" Shipping is")[0] + " Shipping is ₩3,000, free over ₩50,000."


@pytest.fixture
async def double() -> AsyncIterator[OpenAIDouble]:
    server = OpenAIDouble(
        {"target": ScriptedModel(lambda q: TARGET_SAYS if "arrive" in q else "I don't know.")}
    )
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def llm_harness(
    settings: Settings, double: OpenAIDouble, request: pytest.FixtureRequest
) -> AsyncIterator[Harness]:
    """The shipped configuration; parametrize indirectly with "draft" to verify FAQ text token by token."""
    target = LLMEndpoint(base_url=double.base_url, model="target", verify="token", price_in=8, price_out=32)
    roles = LLMRoles(target=[target], retries=0, retrieval_check=getattr(request, "param", "relevance"))
    configured = settings.model_copy(update={"llm": roles})
    app = await build_app(configured, upgrade=False, seed=True)
    yield Harness(app)
    await app.close()


@pytest.mark.parametrize(
    ("llm_harness", "mode", "call_kind", "previewed"),
    [("relevance", "relevance", "verdict", False), ("draft", "token", "score", True)],
    indirect=["llm_harness"],
)
async def test_faq_answer_is_verified_streamed_and_logged(
    llm_harness: Harness, mode: str, call_kind: str, previewed: bool
) -> None:
    """Text the target writes token by token is previewed while it comes; the FAQ text the target
    vouched for goes out whole, as written, with no preview of the same words before it."""
    began = time.perf_counter()
    calls = await llm_harness.feed(llm_harness.updates.text(DEMO_USER_ID, QUESTION))
    elapsed_ms = (time.perf_counter() - began) * 1000
    assert any(isinstance(c, SendMessageDraft) for c in calls) is previewed
    [committed] = [c.text for c in calls if isinstance(c, SendMessage)]
    assert committed == TARGET_SAYS
    [reply] = await llm_harness.rows(LLMReply)
    assert reply.mode == mode and reply.drafter == "retrieval"
    assert 0 < reply.accepted_tokens <= reply.draft_tokens and reply.verify_calls >= 1
    assert reply.cost_usd > 0 and reply.ttft_ms is not None
    assert 0 < reply.ttft_ms <= reply.total_ms <= elapsed_ms, "times within the reply, in order"
    assert call_kind in {c.kind for c in await llm_harness.rows(LLMCall)}
    [inbound] = await llm_harness.rows(InboundMessage)
    assert inbound.answer_source == f"llm:{mode}"


@pytest.mark.parametrize("llm_harness", ["draft"], indirect=True)
async def test_a_failed_streaming_preview_still_delivers_the_answer(llm_harness: Harness) -> None:
    llm_harness.session.queue_error(SendMessageDraft, error_code=500, description="Internal Server Error")
    calls = await llm_harness.feed(llm_harness.updates.text(DEMO_USER_ID, QUESTION))
    assert [c.text for c in calls if isinstance(c, SendMessage)] == [TARGET_SAYS]
    assert len(llm_harness.session.sent(SendMessageDraft)) == 1  # previews stop after the failure
    [row] = await llm_harness.rows(InboundMessage)
    assert row.status == "answered" and row.error is None


@pytest.mark.parametrize("llm_harness", ["draft"], indirect=True)
async def test_no_database_connection_is_held_while_an_answer_streams(llm_harness: Harness) -> None:
    """While a preview goes out, the answer holds no pooled connection.

    Holders are told apart by task: SQLite's WAL checkpointer takes a connection on its own clock
    (every quarter second), and on a slow machine one of its rounds may overlap a preview.
    """
    holders: dict[int, str] = {}
    seen: list[str] = []
    held_while_streaming: list[list[str]] = []
    pool = llm_harness.app.engine.sync_engine.pool

    def checkout(_dbapi: object, record: object, _proxy: object) -> None:
        task = asyncio.current_task()
        holders[id(record)] = task.get_name() if task is not None else "no task"
        seen.append(holders[id(record)])

    def checkin(_dbapi: object, record: object) -> None:
        holders.pop(id(record), None)

    event.listen(pool, "checkout", checkout)
    event.listen(pool, "checkin", checkin)
    send = llm_harness.session.make_request

    async def watching(bot, method, **options):  # type: ignore[no-untyped-def]
        if isinstance(method, SendMessageDraft):
            held_while_streaming.append([name for name in holders.values() if name != CHECKPOINTER])
        return await send(bot, method, **options)

    llm_harness.session.make_request = watching  # type: ignore[method-assign,assignment]
    await llm_harness.say(DEMO_USER_ID, QUESTION)
    assert held_while_streaming and all(held == [] for held in held_while_streaming), held_while_streaming
    assert any(name != CHECKPOINTER for name in seen), "the watch saw the answer's own connections"


async def test_stats_show_acceptance_latency_and_cost(llm_harness: Harness) -> None:
    await llm_harness.say(DEMO_USER_ID, QUESTION)
    [report] = await llm_harness.say(ADMIN_ID, "/stats")
    assert "FAQ answers: 1, draft acceptance" in report and "cost per answer $0.0" in report
    assert "First shown text: p50" in report
    assert "FAQ text confirmed by the target: 1 of 1 checked" in report


async def test_an_invented_number_never_reaches_the_customer(
    llm_harness: Harness, double: OpenAIDouble
) -> None:
    """The target said NO to the FAQ entry, then wrote an invented price: neither reaches the customer.

    The rejected FAQ entry is no fallback (it does not answer, the target said); the customer is told
    we do not know and offered a person.
    """
    double.models["target"].answer = lambda q: "Orders paid by 2 p.m. ship the same day. Shipping is ₩2,500."
    calls = await llm_harness.feed(llm_harness.updates.text(DEMO_USER_ID, QUESTION))
    [message] = [c for c in calls if isinstance(c, SendMessage)]
    assert message.text == t("faq_no_match", Language.EN)
    assert buttons(message) == [("🙋 " + t("human_button", Language.EN), "hl:en")]
    shown = " ".join(c.text or "" for c in calls if isinstance(c, (SendMessage, SendMessageDraft)))
    assert "2,500" not in shown and "₩3,000" not in shown, "neither the invention nor the rejected entry"
    [reply] = await llm_harness.rows(LLMReply)
    # The rejected entry is no source either: its "2 p.m." is refused before the invented price.
    assert reply.guard == "unsupported: 2 p.m. (14:00)"
    assert reply.mode == "relevance>target", "the target did not vouch for the FAQ text, so it wrote"


async def test_llm_down_falls_back_to_the_faq_answer(llm_harness: Harness, double: OpenAIDouble) -> None:
    double.models["target"].faults.extend(Fault("500") for _ in range(10))
    assert await llm_harness.say(DEMO_USER_ID, QUESTION) == [FAQ_EN]
    [reply] = await llm_harness.rows(LLMReply)
    assert reply.fallback_reason is not None


async def test_nothing_to_say_offers_a_person_never_silence(
    llm_harness: Harness, double: OpenAIDouble
) -> None:
    double.models["target"].faults.extend(Fault("500") for _ in range(10))
    calls = await llm_harness.feed(llm_harness.updates.text(DEMO_USER_ID, "What is the meaning of life?"))
    [message] = [c for c in calls if isinstance(c, SendMessage)]
    assert message.text == t("faq_no_match", Language.EN)
    assert buttons(message) == [("🙋 " + t("human_button", Language.EN), "hl:en")]


@pytest.mark.parametrize("llm_harness", ["draft"], indirect=True)
async def test_the_model_sees_the_conversation_so_far(llm_harness: Harness, double: OpenAIDouble) -> None:
    await llm_harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    await llm_harness.say(DEMO_USER_ID, QUESTION)
    sent = double.calls("/tokenize")  # token mode renders the chat through the server's template
    [with_messages] = [c for c in sent if "messages" in c.body]
    roles = [m["role"] for m in with_messages.body["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert with_messages.body["messages"][1]["content"] == "SKU-7890 재고 있나요?"
    assert "SKU-7890" in with_messages.body["messages"][2]["content"]
    assert with_messages.body["messages"][-1]["content"] == QUESTION
    assert "Order 20240115-001234: shipped" in with_messages.body["messages"][0]["content"], "own facts"
    assert "20240116-009999" not in with_messages.body["messages"][0]["content"], "nobody else's"


async def test_with_a_model_down_an_unsure_question_still_gets_the_closest_entries(
    llm_harness: Harness, double: OpenAIDouble
) -> None:
    """No FAQ entry answered outright and the model had nothing verified to say: the entries the
    matcher found closest are offered, as on the embedded default."""
    double.models["target"].faults.extend(Fault("500") for _ in range(10))
    calls = await llm_harness.feed(llm_harness.updates.text(DEMO_USER_ID, "can I split the payment?"))
    [message] = [c for c in calls if isinstance(c, SendMessage)]
    assert message.text == t("faq_no_match_choices", Language.EN)
    labels = [label for label, _ in buttons(message)]
    assert labels[0] == "What payment methods do you accept?"
    assert labels[-1] == "🙋 " + t("human_button", Language.EN)
