"""One contract, every backend: the OpenAI-compatible servers csbot talks to.

As aiogram runs its storage tests over every storage, these tests run the same
checks over every backend csbot ships or tests with, through the real gateway
(the real `openai` client, real HTTP on loopback):
- the HTTP double (bench/openai_double.py), which the rest of the suite trusts
  to behave like a vLLM server;
- the local engine's own server (services/llm/local/server.py) with the bundled
  SmolLM2-135M, skipped with the reason where the `local` extra is missing;
- llama-cpp-python's own OpenAI-compatible server (`python -m llama_cpp.server`,
  the `local` extra's `llama-cpp-python[server]`) on the same model: a peer
  server nobody here wrote.
Checked: what the probe finds each can do (services/llm/capabilities.py), chat
streaming, usage in streams (counted here where a server sends none), two
replies at once, scoring with echo + logprobs, /tokenize and /detokenize
(Korean and emoji included), and the errors every backend must give by itself
(another model's name, ids outside the vocabulary, a prompt longer than the
context, an abandoned stream). A check of what a server cannot do (llama-cpp-
python's has no /tokenize and scores no token ids) is skipped for it with that
reason; the probe test asserts it cannot, and the gateway then verifies in
judge mode. Faults only the double can be told to produce (cuts, stalls, 429s)
are the gateway's tests, in test_llm_gateway.py.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import pytest

from bench.openai_double import OpenAIDouble, ScriptedModel
from services.llm.acceptance import argmax
from services.llm.capabilities import Capabilities
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


ALL_CAPABLE = Capabilities(
    chat=True, stream_usage=True, tokenize=True, token_scoring=True, concurrent_streams=True
)
LLAMA_CPP_SERVER = Capabilities(
    chat=True, stream_usage=False, tokenize=False, token_scoring=False, concurrent_streams=False
)
"""llama-cpp-python 0.3.36's server: its tokenizer is at /extras/tokenize, token-id prompts answer
500, streams carry no usage, and of two streams at once one ends early with no finish reason."""


@dataclass
class Backend:
    name: str
    base_url: str
    context_window: int
    gateways: list[LLMGateway]
    can: Capabilities = ALL_CAPABLE
    one_model: bool = False
    """The server answers any model name with its one model (llama-cpp-python's)."""

    def needs_token_mode(self) -> None:
        if not self.can.token_mode:
            pytest.skip(f"{self.name} has no /tokenize nor token-id scoring (the probe test shows it)")

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


@pytest.fixture(scope="module")
def llama_cpp_server() -> Iterator[str]:
    """llama-cpp-python's server on the bundled model, started once for the module: its base URL."""
    if not local_available:
        pytest.skip(f"local model not installed: {local_missing}")
    if importlib.util.find_spec("llama_cpp.server") is None or importlib.util.find_spec("uvicorn") is None:
        pytest.skip(
            "llama-cpp-python's server is not installed (the `local` extra's llama-cpp-python[server])"
        )
    from services.llm.local.availability import bundled_model_path

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_model_path())]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "1"]
    command += ["--model_alias", MODEL, "--verbose", "False"]
    with tempfile.TemporaryFile() as log:  # llama.cpp writes much while loading: a pipe would fill
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_for_models(f"http://127.0.0.1:{port}/v1/models", server, log)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            server.terminate()
            server.wait(timeout=30)


def _wait_for_models(url: str, server: subprocess.Popen[bytes], log: IO[bytes]) -> None:
    """Until the server lists its model (it loads the GGUF first), or it exits."""
    while server.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    log.seek(0)
    raise RuntimeError(f"llama-cpp-python's server exited: {log.read().decode(errors='replace')[-500:]}")


@pytest.fixture(params=["double", "local", "llama-cpp-python"])
async def backend(request: pytest.FixtureRequest, engines: dict[str, LocalEngine]) -> AsyncIterator[Backend]:
    gateways: list[LLMGateway] = []
    if request.param == "double":
        double = OpenAIDouble({MODEL: ScriptedModel({QUESTION: DOUBLE_ANSWER})})
        yield Backend("double", await double.start(), 32_768, gateways)
        stop = double.stop
    elif request.param == "llama-cpp-python":
        base_url = request.getfixturevalue("llama_cpp_server")
        yield Backend("llama-cpp-python's server", base_url, 2048, gateways, LLAMA_CPP_SERVER, one_model=True)

        async def stop() -> None:
            return None
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
    began = time.perf_counter()
    await collect(gateway.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=REPLY_TOKENS))
    elapsed_ms = (time.perf_counter() - began) * 1000
    [call] = ledger.calls
    assert call.error is None and call.ttft_ms is not None
    assert 0 < call.ttft_ms <= call.total_ms <= elapsed_ms, "times within the call, in order"
    assert call.counted_here is not backend.can.stream_usage, "counted here only where none is reported"
    if backend.can.tokenize:
        assert call.prompt_tokens == await gateway.prompt_tokens(LLMRole.TARGET, MESSAGES), (
            "template included"
        )
    else:
        assert call.prompt_tokens > len(QUESTION.split()), "the prompt is counted, never billed as 0"
    assert 0 < call.completion_tokens <= 2 * REPLY_TOKENS
    assert call.cost_usd == pytest.approx((call.prompt_tokens + 2 * call.completion_tokens) / 1e6)


async def test_what_any_openai_client_reads_adds_up(backend: Backend) -> None:
    """What another OpenAI client reads (a shop's own dashboard, a proxy): total = prompt + completion,
    and a stream's one choice is choice 0."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=backend.base_url, api_key="unused", max_retries=0)
    try:
        messages: Any = MESSAGES  # the SDK's TypedDicts; ours are plain dicts of the same shape
        reply = await client.chat.completions.create(model=MODEL, messages=messages, max_tokens=REPLY_TOKENS)
        stream = await client.chat.completions.create(
            model=MODEL, messages=messages, max_tokens=REPLY_TOKENS, stream=True
        )
        indexes = {choice.index async for chunk in stream for choice in chunk.choices}
    finally:
        await client.close()
    assert indexes == {0}, "one choice, numbered as the OpenAI clients assemble them"
    usage = reply.usage
    assert usage is not None and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


async def test_max_tokens_is_a_hard_limit(backend: Backend) -> None:
    ledger = CallLedger()
    gateway = backend.gateway()
    await collect(gateway.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=3))
    await gateway.chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=3)
    streamed, whole = ledger.calls
    assert whole.completion_tokens == 3 and not whole.counted_here
    if backend.can.stream_usage:
        assert streamed.completion_tokens == 3


async def test_the_probe_finds_what_the_backend_can_do(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    gateway = backend.gateway()
    with caplog.at_level(logging.INFO, logger="services.llm.gateway"):
        await gateway.probe()
    assert gateway.capabilities(LLMRole.TARGET) == backend.can
    [line] = [record.getMessage() for record in caplog.records if "llm endpoint" in record.getMessage()]
    scores_ids = backend.can.tokenize and backend.can.token_scoring  # not `token_mode`: that is under test
    assert f"verifies in {'token' if scores_ids else 'judge'} mode" in line
    assert ("1 stream(s) at a time" in line) is not backend.can.concurrent_streams
    assert ("counted here" in line) is not backend.can.stream_usage


async def test_two_replies_at_once_both_arrive_whole_once_probed(backend: Backend) -> None:
    """Where two streams at once break each other (llama-cpp-python's server), the probe leaves
    one at a time: the second reply waits for the first instead of failing."""
    gateway = backend.gateway()
    await gateway.probe()
    ledgers = [CallLedger(), CallLedger()]
    replies = await asyncio.gather(
        *(
            collect(gateway.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=REPLY_TOKENS))
            for ledger in ledgers
        )
    )
    assert all(replies) and all(call.error is None for ledger in ledgers for call in ledger.calls)


async def test_an_abandoned_stream_leaves_the_server_serving(backend: Backend) -> None:
    gateway = backend.gateway()
    stream = gateway.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=REPLY_TOKENS)
    assert await anext(stream)
    await stream.aclose()
    assert (await gateway.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)).text


# --- scoring (token mode) ---------------------------------------------------------


async def test_scoring_reads_every_position_and_predicts_the_greedy_continuation(backend: Backend) -> None:
    backend.needs_token_mode()
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
    backend.needs_token_mode()
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
    if backend.one_model:
        pytest.skip(f"{backend.name} answers any model name with its one model")
    gateway = backend.gateway("nobody-here")
    for call in (
        gateway.chat(LLMRole.TARGET, MESSAGES, ledger=(ledger := CallLedger()), max_tokens=5),
        gateway.tokenize(LLMRole.TARGET, text="hi", ledger=ledger),
    ):
        with pytest.raises(LLMUnavailable, match="NotFound"):
            await call
    assert [c.retries for c in ledger.calls] == [0, 0]


async def test_token_ids_outside_the_vocabulary_are_a_bad_request(backend: Backend) -> None:
    backend.needs_token_mode()
    gateway = backend.gateway()
    ledger = CallLedger()
    with pytest.raises(LLMUnavailable, match="BadRequest"):
        await gateway.score(LLMRole.TARGET, [1, 10**9], ledger=ledger)
    with pytest.raises(LLMUnavailable, match="BadRequest"):
        await gateway.detokenize(LLMRole.TARGET, [-1], ledger=ledger)
    assert [c.retries for c in ledger.calls] == [0, 0]


async def test_a_prompt_longer_than_the_context_is_a_bad_request(backend: Backend) -> None:
    backend.needs_token_mode()
    gateway = backend.gateway()
    [token] = await gateway.tokenize(LLMRole.TARGET, text="a")
    ledger = CallLedger()
    with pytest.raises(LLMUnavailable, match="BadRequest"):
        await gateway.score(LLMRole.TARGET, [token] * (backend.context_window + 1), ledger=ledger)
    assert ledger.calls[0].retries == 0
    assert (await gateway.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=3)).text, (
        "still serving"
    )
