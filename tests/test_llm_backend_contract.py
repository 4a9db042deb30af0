"""One contract, every backend: the OpenAI-compatible servers csbot talks to.

As aiogram runs its storage tests over every storage, these tests run the same
checks over every backend csbot ships or tests with, through the real gateway
(the real `openai` client, real HTTP on loopback):
- the HTTP double (bench/openai_double.py), which the rest of the suite trusts
  to behave like a vLLM server;
- the local engine's own server (services/llm/local/server.py) with the bundled
  SmolLM2-135M, skipped with the reason where the `local` extra is missing.
Checked: chat streaming, scoring with echo + logprobs, /tokenize and
/detokenize (Korean and emoji included), usage in streams, and the errors
every backend must give by itself (another model's name, ids outside the
vocabulary, a prompt longer than the context, an abandoned stream). Faults
only the double can be told to produce (cuts, stalls, 429s) are the gateway's
tests, in test_llm_gateway.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from bench.openai_double import OpenAIDouble, ScriptedModel
from services.llm.acceptance import argmax
from services.llm.config import LLMEndpoint, LLMRole, LLMRoles
from services.llm.gateway import CallLedger, LLMGateway, LLMUnavailable
from services.llm.local.availability import local_generation_available

if TYPE_CHECKING:
    from services.llm.local.engine import LocalEngine

local_available, local_missing = local_generation_available()

MODEL = "contract"
QUESTION = "How much is shipping?"
MESSAGES = [
    {"role": "system", "content": "You are a shop assistant. Shipping is 3,000 won, free over 50,000 won."},
    {"role": "user", "content": QUESTION},
]
DOUBLE_ANSWER = "Shipping is 3,000 won, and free over 50,000 won. 배송비는 3,000원입니다 🙏"
MIXED_TEXT = "배송비는 3,000원입니다 🙏 返品は30日以内 — free over ₩50,000."
REPLY_TOKENS = 12


@dataclass
class Backend:
    name: str
    base_url: str
    context_window: int
    gateways: list[LLMGateway]

    def gateway(self, model: str = MODEL) -> LLMGateway:
        endpoint = LLMEndpoint(base_url=self.base_url, model=model, price_in=1, price_out=2)
        built = LLMGateway(LLMRoles(target=[endpoint], retries=1))
        self.gateways.append(built)
        return built


@pytest.fixture(scope="module")
def engines() -> Iterator[dict[str, LocalEngine]]:
    """The local model, loaded once for the module and only if a test asks for it."""
    loaded: dict[str, LocalEngine] = {}
    yield loaded
    for engine in loaded.values():
        engine.close()


@pytest.fixture(params=["double", "local"])
async def backend(request: pytest.FixtureRequest, engines: dict[str, LocalEngine]) -> AsyncIterator[Backend]:
    gateways: list[LLMGateway] = []
    if request.param == "double":
        double = OpenAIDouble({MODEL: ScriptedModel({QUESTION: DOUBLE_ANSWER})})
        yield Backend("double", await double.start(), 32_768, gateways)
        stop = double.stop
    else:
        if not local_available:
            pytest.skip(f"local model not installed: {local_missing}")
        from services.llm.local.engine import LocalEngine
        from services.llm.local.server import LocalOpenAIServer

        if "smollm2" not in engines:
            # One thread: llama.cpp's threads spin while they wait, and on a CPU shared with other
            # jobs (CI, a busy machine) two of them run ten times slower than one (measured here).
            engines["smollm2"] = LocalEngine(n_ctx=2048, n_threads=1)
        engine = engines["smollm2"]
        server = LocalOpenAIServer(engine, model=MODEL)
        yield Backend("local", await server.start(), engine.n_ctx, gateways)
        stop = server.stop
    for gateway in gateways:
        await gateway.close()
    await stop()


async def collect(stream: AsyncIterator[str]) -> list[str]:
    return [piece async for piece in stream]


# --- chat ----------------------------------------------------------------------


async def test_a_streamed_reply_is_the_whole_reply_in_pieces(backend: Backend) -> None:
    gateway = backend.gateway()
    pieces = await collect(
        gateway.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=REPLY_TOKENS)
    )
    whole = await gateway.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=REPLY_TOKENS)
    assert pieces and whole.text.strip()
    assert "".join(pieces) == whole.text, "greedy: the same reply streamed or not"


async def test_a_stream_reports_its_usage_as_the_endpoint_counts_it(backend: Backend) -> None:
    gateway = backend.gateway()
    ledger = CallLedger()
    await collect(gateway.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=REPLY_TOKENS))
    [call] = ledger.calls
    assert call.error is None and call.ttft_ms is not None
    assert call.prompt_tokens == await gateway.prompt_tokens(LLMRole.TARGET, MESSAGES), "template included"
    assert 0 < call.completion_tokens <= REPLY_TOKENS
    assert call.cost_usd == pytest.approx((call.prompt_tokens + 2 * call.completion_tokens) / 1e6)


async def test_max_tokens_is_a_hard_limit(backend: Backend) -> None:
    ledger = CallLedger()
    await collect(backend.gateway().stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=3))
    assert ledger.calls[0].completion_tokens == 3


async def test_an_abandoned_stream_leaves_the_server_serving(backend: Backend) -> None:
    gateway = backend.gateway()
    stream = gateway.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=REPLY_TOKENS)
    assert await anext(stream)
    await stream.aclose()
    assert (await gateway.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)).text


# --- scoring (token mode) ---------------------------------------------------------


async def test_scoring_reads_every_position_and_predicts_the_greedy_continuation(backend: Backend) -> None:
    gateway = backend.gateway()
    ledger = CallLedger()
    prompt = await gateway.tokenize(LLMRole.TARGET, messages=MESSAGES, ledger=ledger)
    first = await gateway.score(LLMRole.TARGET, prompt, ledger=ledger)
    assert len(first.top) == len(prompt) and first.top[0] is None
    for alternatives in first.top[1:]:
        assert alternatives and all(logprob <= 0 for logprob in alternatives.values())
    next_token = argmax(first.next_top)
    second = await gateway.score(LLMRole.TARGET, [*prompt, next_token], ledger=ledger)
    at_next = second.top[len(prompt)]
    assert at_next is not None and argmax(at_next) == next_token
    after = argmax(second.next_top)
    greedy = "".join(
        await collect(gateway.stream_completion(LLMRole.TARGET, prompt, ledger=ledger, max_tokens=2))
    )
    assert greedy == await gateway.detokenize(LLMRole.TARGET, [next_token, after], ledger=ledger)
    assert [call.kind for call in ledger.calls] == ["tokenize", "score", "score", "completion", "detokenize"]
    assert all(call.error is None for call in ledger.calls)


# --- the tokenizer endpoints ----------------------------------------------------


async def test_tokens_round_trip_korean_japanese_and_emoji(backend: Backend) -> None:
    gateway = backend.gateway()
    ids = await gateway.tokenize(LLMRole.TARGET, text=MIXED_TEXT)
    assert await gateway.detokenize(LLMRole.TARGET, ids) == MIXED_TEXT
    assert await gateway.detokenize(LLMRole.TARGET, []) == ""
    split = 0
    for end in range(1, len(ids)):
        prefix = await gateway.detokenize(LLMRole.TARGET, ids[:end])
        assert MIXED_TEXT.startswith(prefix.rstrip("\ufffd")), "a cut shows at most replacement marks"
        split += prefix.endswith("\ufffd")
    assert split > 0, "some cut falls inside a character (the case token assembly must handle)"


# --- errors every backend gives by itself -------------------------------------


async def test_another_model_s_name_is_not_found_and_not_retried(backend: Backend) -> None:
    gateway = backend.gateway("nobody-here")
    for call in (
        gateway.chat(LLMRole.TARGET, MESSAGES, ledger=(ledger := CallLedger()), max_tokens=5),
        gateway.tokenize(LLMRole.TARGET, text="hi", ledger=ledger),
    ):
        with pytest.raises(LLMUnavailable, match="NotFound"):
            await call
    assert [c.retries for c in ledger.calls] == [0, 0]


async def test_token_ids_outside_the_vocabulary_are_a_bad_request(backend: Backend) -> None:
    gateway = backend.gateway()
    ledger = CallLedger()
    with pytest.raises(LLMUnavailable, match="BadRequest"):
        await gateway.score(LLMRole.TARGET, [1, 10**9], ledger=ledger)
    with pytest.raises(LLMUnavailable, match="BadRequest"):
        await gateway.detokenize(LLMRole.TARGET, [-1], ledger=ledger)
    assert [c.retries for c in ledger.calls] == [0, 0]


async def test_a_prompt_longer_than_the_context_is_a_bad_request(backend: Backend) -> None:
    gateway = backend.gateway()
    [token] = await gateway.tokenize(LLMRole.TARGET, text="a")
    ledger = CallLedger()
    with pytest.raises(LLMUnavailable, match="BadRequest"):
        await gateway.score(LLMRole.TARGET, [token] * (backend.context_window + 1), ledger=ledger)
    assert ledger.calls[0].retries == 0
    assert (await gateway.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=3)).text, (
        "still serving"
    )
