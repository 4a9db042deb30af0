"""Token mode over real HTTP: whole characters, the target's distribution, re-sync, the probe.

The HTTP double scores token ids against its scripted answer, position by
position, so "what the target alone generates" is known exactly.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
from aiohttp import web

from bench.openai_double import Fault, OpenAIDouble, ScriptedModel
from services.faq.lookup import FaqAnswer, FaqLookupAnswerer
from services.llm.acceptance import BlockOutcome, TopScores, accept_block
from services.llm.config import LLMEndpoint, LLMRole, LLMRoles, VerifyMode
from services.llm.gateway import CallLedger, LLMGateway
from services.llm.speculative import AnswerRequest, SpeculativeAnswerer, Step, VerifiedAnswer
from services.llm.token_verifier import MIN_RESYNC_TOKENS, TokenModeProbe, _Assembly
from services.llm.tokens import encoding
from services.llm.wire import serve_on_loopback
from services.text.sentences import Language
from tests.clock import ManualClock

LOOKUP = FaqLookupAnswerer([])
O200K = encoding("o200k_base")


@pytest.fixture
async def double() -> AsyncIterator[OpenAIDouble]:
    server = OpenAIDouble({"target": ScriptedModel(lambda q: "")})
    await server.start()
    yield server
    await server.stop()


def token_answerer(
    double: OpenAIDouble,
    made: list[LLMGateway],
    *,
    block_tokens: int = 192,
    temperature: float = 0.0,
    verify: VerifyMode = "token",
    reply_budget: int = 400,
) -> SpeculativeAnswerer:
    target = LLMEndpoint(base_url=double.base_url, model="target", verify=verify)
    gateway = LLMGateway(LLMRoles(target=[target], retries=0))
    made.append(gateway)
    return SpeculativeAnswerer(
        LOOKUP,
        gateway,
        block_tokens=block_tokens,
        temperature=temperature,
        reply_budget=reply_budget,
        retrieval_check="draft",
        rng=random.Random(3),
    )


def drafted(draft: str, context: str) -> AnswerRequest:
    return AnswerRequest("q", Language.EN, FaqAnswer(draft, "entry", 1.0), faq_context=context)


async def run(answer: VerifiedAnswer) -> str:
    return "".join([chunk async for chunk in answer])


# --- whole characters (Korean, emoji) ----------------------------------------

SPLIT_TEXT = [
    # (what the target says, a draft that stops where the next character is split across tokens)
    ("Shipping is 똠 free today", "Shipping is"),
    ("Your gift 🎁 ships today, 똠얌 too.", "Your gift"),
    ("배송은 내일 도착합니다. 똠얌 소스 🎁 도 같이 보내요.", "배송은 내일 도착합니다."),
    (
        "배송은 내일 도착합니다. 똠얌 소스 🎁 도 같이 보내요.",
        "배송은 내일 도착합니다. 똠얌 소스 🎁 도 같이 보내요.",
    ),
]


def test_the_cases_really_split_characters_across_tokens() -> None:
    for text in ("똠", "🎁", " 똠"):
        ids = O200K.encode(text)
        assert len(ids) > 1 and O200K.decode(ids[:1]).endswith("\ufffd")


@pytest.mark.parametrize("block_tokens", [1, 2, 3, 5, 192])
@pytest.mark.parametrize(("target", "draft"), SPLIT_TEXT)
async def test_split_characters_are_shown_whole_and_once(
    double: OpenAIDouble, gateways: list[LLMGateway], target: str, draft: str, block_tokens: int
) -> None:
    """Blocks and the draft's end fall inside multi-token characters; nothing is lost or doubled."""
    double.models["target"].answer = lambda q: target
    answer = token_answerer(double, gateways, block_tokens=block_tokens).stream(drafted(draft, target))
    shown = await run(answer)
    assert shown == answer.final_text == target
    assert "\ufffd" not in shown and answer.report.mode.step is Step.TOKEN


@pytest.mark.parametrize("reply_budget", [1, 5, 9])
async def test_a_reply_is_no_longer_than_its_budget(
    double: OpenAIDouble, gateways: list[LLMGateway], reply_budget: int
) -> None:
    """A block cut by the budget is the reply's last: the scoring pass's extra token after it is not
    taken, and nothing is asked of the target after."""
    target = "Shipping is free today. It usually arrives the next day."
    double.models["target"].answer = lambda q: target
    answer = token_answerer(double, gateways, reply_budget=reply_budget).stream(drafted(target, target))
    text = await run(answer)
    assert text == O200K.decode(O200K.encode(target)[:reply_budget])
    assert [c for c in double.calls("/v1/completions") if not c.body.get("echo")] == []


@pytest.mark.parametrize(("reply_budget", "left"), [(4, 2), (3, 1)])
async def test_a_budget_ending_inside_a_character_leaves_the_rest_of_it_to_the_target(
    double: OpenAIDouble, gateways: list[LLMGateway], reply_budget: int, left: int
) -> None:
    """ "Shipping 𓀀 done" is "Shipping", " ", then 𓀀's four bytes as four tokens. A reply budget
    of 4 ends the draft two bytes into 𓀀, one of 3 after its first byte: the text shown stops after
    "Shipping ", and the target goes on from there with what is left of the budget, even a single
    token."""
    target = "Shipping 𓀀 done"
    ids = O200K.encode(target)
    assert O200K.decode(ids[:2]) == "Shipping " and O200K.decode(ids[:6]) == "Shipping 𓀀"
    assert all(O200K.decode(ids[:cut]).endswith("\ufffd") for cut in (3, 4, 5)), "𓀀 is four tokens"
    double.models["target"].answer = lambda q: target
    answer = token_answerer(double, gateways, reply_budget=reply_budget).stream(drafted(target, target))
    await run(answer)
    [continuation] = [c for c in double.calls("/v1/completions") if not c.body.get("echo")]
    assert continuation.body["max_tokens"] == left
    assert continuation.body["prompt"][-2:] == ids[:2], "from the last whole character on"


async def test_bytes_that_make_no_character_are_looked_past_to_the_text_before(
    double: OpenAIDouble, gateways: list[LLMGateway]
) -> None:
    """ "Hi" and four bytes that never become a character (a broken emoji and a stray lead byte):
    the text released before the target goes on alone is "Hi", however many pieces follow it."""
    gateway = LLMGateway(LLMRoles(target=[LLMEndpoint(base_url=double.base_url, model="target")], retries=0))
    gateways.append(gateway)
    whole = O200K.encode("Hi")
    byte_token = cast(Any, O200K).encode_single_token  # the byte-level BPE's one token per byte
    broken = [byte_token(bytes([byte])) for byte in (0xF0, 0x9F, 0x98, 0xF0)]
    assembly = _Assembly(gateway, CallLedger())
    assert await assembly.settle([*whole, *broken]) == "Hi"
    assert assembly.whole == len(whole)
    assert await assembly.settle([*whole, *broken]) == "", "nothing is released twice"


# --- accepted blocks, re-sync ------------------------------------------------

RESYNC_DRAFT = (
    "Orders paid by 2 p.m. on a weekday ship the same day and usually arrive the next day. "
    "Orders after 2 p.m. ship the next business day, and Jeju takes 1-2 days more."
)


async def test_after_a_fully_accepted_block_the_extra_token_continues_the_draft(
    double: OpenAIDouble, gateways: list[LLMGateway]
) -> None:
    double.models["target"].answer = lambda q: RESYNC_DRAFT
    block = 8
    answer = token_answerer(double, gateways, block_tokens=block).stream(drafted(RESYNC_DRAFT, RESYNC_DRAFT))
    assert await run(answer) == RESYNC_DRAFT
    report = answer.report
    size = len(O200K.encode(RESYNC_DRAFT))
    assert report.accepted_tokens == report.draft_tokens == size, "every draft token was the target's"
    assert report.verify_calls <= math.ceil(size / (block + 1)), "each call covers a block and one token"


@pytest.mark.parametrize(
    ("original", "substitute"),
    [(" same day", " next day"), (" usually", " often"), (" weekday", " working weekday")],
)
async def test_after_a_one_word_change_the_draft_is_picked_up_again(
    double: OpenAIDouble, gateways: list[LLMGateway], original: str, substitute: str
) -> None:
    target = RESYNC_DRAFT.replace(original, substitute, 1)
    double.models["target"].answer = lambda q: target
    answer = token_answerer(double, gateways).stream(drafted(RESYNC_DRAFT, f"{RESYNC_DRAFT}\n{target}"))
    assert await run(answer) == target
    report = answer.report
    size = len(O200K.encode(RESYNC_DRAFT))
    assert report.accepted_tokens == size - 1, "every draft token kept but the one the target changed"
    assert [c.kind for c in report.ledger.calls].count("completion") == 0, "no generation call needed"


async def test_a_second_change_after_kept_tokens_starts_a_new_run_of_corrections(
    double: OpenAIDouble, gateways: list[LLMGateway]
) -> None:
    """Two one-word changes ten tokens apart: the draft is picked up after each, the second looked
    for near itself, not from where the first began (further than the re-sync window)."""
    target = RESYNC_DRAFT.replace(" same day", " next day", 1).replace(" after 2", " past 2", 1)
    double.models["target"].answer = lambda q: target
    answer = token_answerer(double, gateways).stream(drafted(RESYNC_DRAFT, f"{RESYNC_DRAFT}\n{target}"))
    assert await run(answer) == target
    report = answer.report
    assert report.accepted_tokens == len(O200K.encode(RESYNC_DRAFT)) - 2
    assert [c.kind for c in report.ledger.calls].count("completion") == 0, "no generation call needed"


# --- temperature > 0 -----------------------------------------------------------


def test_the_extra_token_after_a_whole_block_is_sampled_at_temperature() -> None:
    rows = TopScores([{7: math.log(0.9), 8: math.log(0.1)}, {1: math.log(0.55), 2: math.log(0.45)}])
    rng = random.Random(11)
    extras = [accept_block(rows, [7], temperature=1.0, rng=rng).next_token for _ in range(2000)]
    kept = [accept_block(rows, [7], temperature=0.0, rng=rng) for _ in range(20)]
    assert all(outcome.kept == 1 and outcome.next_token == 1 for outcome in kept), "greedy: argmax"
    share = extras.count(2) / len(extras)
    assert 0.35 < share < 0.55, f"the extra token follows p (0.45 for token 2), got {share:.3f}"


async def test_the_continuation_samples_at_the_answerers_temperature(
    double: OpenAIDouble, gateways: list[LLMGateway]
) -> None:
    double.models["target"].answer = lambda q: "Shipping is free today. It arrives tomorrow."
    answer = token_answerer(double, gateways, temperature=0.7).stream(
        drafted("Shipping is free today.", "Shipping is free today.")
    )
    await run(answer)
    [continuation] = [c for c in double.calls("/v1/completions") if not c.body.get("echo")]
    assert continuation.body["temperature"] == 0.7


async def test_at_temperature_the_end_of_the_answer_is_the_sampled_token(
    double: OpenAIDouble, gateways: list[LLMGateway]
) -> None:
    """The double offers end-of-text at 5% beside its own token: sampled, an answer sometimes ends early."""
    double.models["target"].answer = lambda q: RESYNC_DRAFT
    speculative = token_answerer(double, gateways, temperature=1.0, block_tokens=4)
    lengths = set()
    for _ in range(6):
        answer = speculative.stream(drafted(RESYNC_DRAFT, RESYNC_DRAFT))
        text = await run(answer)
        assert RESYNC_DRAFT.startswith(text.rstrip()) or text == RESYNC_DRAFT
        lengths.add(len(text))
    assert len(lengths) > 1, "with T = 1 the target's own end-of-text choices show"


@pytest.mark.parametrize("temperature", [0.8, 1.0])
async def test_at_temperature_the_token_after_a_whole_answer_is_sampled_not_the_servers_stop(
    double: OpenAIDouble, gateways: list[LLMGateway], temperature: float
) -> None:
    """The whole draft accepted, the target's greedy choice is to stop ("finish_reason": "stop"), and
    the double offers its runner-up ("!", token 0) beside it: at a temperature above 0 that token is
    sampled now and then, and the answer goes on with it; only greedy decoding may take the
    server's stop as the end."""
    answer_text = "Shipping is free today."
    double.models["target"].answer = lambda q: answer_text
    speculative = token_answerer(double, gateways, temperature=temperature)
    endings = set()
    for _ in range(80):
        text = await run(speculative.stream(drafted(answer_text, answer_text)))
        # (an end of text sampled inside the answer cuts it short: not the case read here)
        endings.add(text[len(answer_text) :] if text.startswith(answer_text) else "cut short")
    assert "" in endings, "mostly the sampled token is the end of text"
    assert "!" in endings, "the runner-up after a whole answer is sampled too: the stop is not the end"


async def test_greedy_the_servers_stop_ends_the_answer_with_no_call_to_read_the_token(
    double: OpenAIDouble, gateways: list[LLMGateway]
) -> None:
    """At temperature 0 the server's own generated token after a whole block is the target's choice:
    its finish reason says the answer is over, with no /detokenize of that one token."""
    answer_text = "Shipping is free today."
    double.models["target"].answer = lambda q: answer_text
    text = await run(token_answerer(double, gateways).stream(drafted(answer_text, answer_text)))
    assert text == answer_text
    single = [c for c in double.calls("/detokenize") if len(c.body["tokens"]) == 1]
    assert single == [], "the end is read from the finish reason, not by decoding the token"


# --- the token-mode probe -----------------------------------------------------


async def test_a_refused_tokenize_probe_is_asked_again_after_a_cool_down(
    gateways: list[LLMGateway], caplog: pytest.LogCaptureFixture
) -> None:
    """Refused, the probe waits 5 minutes before asking again; the change is logged once each way,
    not at every refusal."""
    caplog.set_level(logging.INFO, logger="services.llm.token_verifier")
    probes: list[str] = []
    tokenizer_up = False

    async def tokenize(request: web.Request) -> web.Response:
        probes.append((await request.json())["prompt"])
        if not tokenizer_up:
            return web.json_response({"error": {"message": "not found"}}, status=404)
        return web.json_response({"tokens": [1], "count": 1, "max_model_len": 8192})

    app = web.Application()
    app.router.add_post("/tokenize", tokenize)
    runner, base_url = await serve_on_loopback(app, "127.0.0.1")
    try:
        gateway = LLMGateway(LLMRoles(target=[LLMEndpoint(base_url=base_url, model="m")], retries=0))
        gateways.append(gateway)
        clock = ManualClock()
        probe = TokenModeProbe(clock=clock)  # after a refusal, asked again 5 minutes later
        assert await probe.supported(gateway) is False
        clock.now = 299
        assert await probe.supported(gateway) is False and len(probes) == 1, "no probe during the cool-down"
        clock.now = 301
        assert await probe.supported(gateway) is False and len(probes) == 2, "asked again after it"
        tokenizer_up = True
        clock.now = 602
        assert await probe.supported(gateway) is True and len(probes) == 3
        assert await probe.supported(gateway) is True and len(probes) == 3
        said = [
            record.getMessage() for record in caplog.records if record.name == "services.llm.token_verifier"
        ]
        assert [line.split(":")[0] for line in said] == [
            "the target has no tokenizer API",
            "the target's tokenizer API answers again",
        ]
    finally:
        await runner.cleanup()


async def test_an_endpoint_probed_without_token_mode_is_not_asked_for_tokens_at_a_reply(
    gateways: list[LLMGateway],
) -> None:
    """The start-up probe found no /tokenize: each reply goes to judge mode at once, with no
    /tokenize call (and no 404 in the server's log) per reply."""
    double = OpenAIDouble({"m": ScriptedModel(lambda text: "ok")})
    double.models["m"].faults.extend(Fault("500", path="/tokenize") for _ in range(3))
    await double.start()
    try:
        gateway = LLMGateway(LLMRoles(target=[LLMEndpoint(base_url=double.base_url, model="m")], retries=0))
        gateways.append(gateway)
        await gateway.probe()
        found = gateway.capabilities(LLMRole.TARGET)
        assert found is not None and found.chat and not found.tokenize
        asked = len(double.calls("/tokenize"))
        probe = TokenModeProbe(recheck_after=300, clock=ManualClock())
        assert [await probe.supported(gateway) for _ in range(3)] == [False, False, False]
        assert len(double.calls("/tokenize")) == asked
    finally:
        await double.stop()


# --- the same on the local engine ---------------------------------------------


async def test_split_characters_on_the_local_engine(gateways: list[LLMGateway]) -> None:
    """SmolLM2 writes Korean in byte pieces; a draft that stops before a split syllable is finished whole."""
    from services.llm.local.availability import local_generation_available

    available, why = local_generation_available()
    if not available:
        pytest.skip(f"local model not installed: {why}")
    from services.llm.local.decoding import Decoder
    from services.llm.local.engine import LocalEngine
    from services.llm.local.server import LocalOpenAIServer
    from services.llm.reply import ReplyReport

    engine = LocalEngine(n_ctx=1024)
    server = LocalOpenAIServer(engine)
    await server.start()
    try:
        # the decoding is under test, not the clock: a loaded machine must reach no timeout or deadline
        target = LLMEndpoint(
            base_url=server.base_url,
            model="local",
            verify="token",
            timeout=3600.0,
            first_token_timeout=3600.0,
        )
        gateway = LLMGateway(LLMRoles(target=[target], retries=0))
        gateways.append(gateway)
        budget = 16
        answerer = SpeculativeAnswerer(
            LOOKUP, gateway, reply_budget=budget, retrieval_check="draft", reply_deadline=3600.0
        )
        context = "배송은 내일 도착합니다 🎁"
        question = "배송은 내일 도착합니다 🎁 이 문장을 그대로 따라 쓰세요."

        def request(draft: str) -> AnswerRequest:
            return AnswerRequest(question, Language.KO, FaqAnswer(draft, "entry", 1.0), faq_context=context)

        messages = await answerer._messages(request(context), ReplyReport())
        with engine.exclusive():
            alone, _ = Decoder(engine).greedy(engine.render_chat(messages), budget)
        splits = [
            k
            for k in range(1, len(alone))
            if not engine.detokenize(alone[:k]).endswith("\ufffd")
            and engine.detokenize(alone[: k + 1]).endswith("\ufffd")
        ]
        assert splits, f"the model was expected to write split characters: {engine.detokenize(alone)!r}"
        answer = answerer.stream(request(engine.detokenize(alone[: splits[0]])))
        shown = await run(answer)
        assert shown == engine.detokenize(alone), "exactly the model's own answer, no byte lost or doubled"
        assert answer.report.mode.step is Step.TOKEN and answer.report.guard is None
    finally:
        await server.stop()
        engine.close()


@pytest.mark.parametrize(
    ("original", "substitute", "written"),
    [(" ship the next", " leave the next", False), (" the next business", " our next business", True)],
    ids=["16 draft tokens left", "15 left"],
)
async def test_after_a_correction_a_draft_of_fewer_than_16_tokens_left_is_not_scored(
    double: OpenAIDouble, gateways: list[LLMGateway], original: str, substitute: str, written: bool
) -> None:
    """MIN_RESYNC_TOKENS: a correction that leaves 16 tokens of the draft goes on verifying it; one
    that leaves 15 has the target write the rest (a scoring call re-sends the whole prompt)."""
    assert MIN_RESYNC_TOKENS == 16
    target = RESYNC_DRAFT.replace(original, substitute, 1)
    assert target != RESYNC_DRAFT
    double.models["target"].answer = lambda q: target
    answer = token_answerer(double, gateways).stream(drafted(RESYNC_DRAFT, f"{RESYNC_DRAFT}\n{target}"))
    assert await run(answer) == target
    completions = [c.kind for c in answer.report.ledger.calls].count("completion")
    assert (completions > 0) is written


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_a_rejected_draft_token_is_replaced_by_a_correction(temperature: float) -> None:
    """The target prefers 8 where the draft has 5: two tokens kept, and 8 is a correction (it takes
    the rejected token's place), not the extra token after a whole block."""
    rows = TopScores([{7: 0.0}, {9: 0.0}, {8: 0.0}, {6: 0.0}])
    outcome = accept_block(rows, [7, 9, 5], temperature=temperature, rng=random.Random(1))
    assert outcome == BlockOutcome(2, 8, corrected=True)
    whole = accept_block(rows, [7, 9, 8], temperature=temperature, rng=random.Random(1))
    assert whole == BlockOutcome(3, 6, corrected=False)


def test_a_kept_end_token_ends_the_block_with_itself_kept_and_nothing_after() -> None:
    """Token 9 ends the answer: the draft after it is never read, and the block keeps 2 tokens, not 3."""
    rows = TopScores([{7: 0.0}, {9: 0.0}, {5: 0.0}, {6: 0.0}])
    outcome = accept_block(rows, [7, 9, 5], temperature=0.0, rng=random.Random(1), is_end=lambda t: t == 9)
    assert outcome == BlockOutcome(2, None, corrected=False)
