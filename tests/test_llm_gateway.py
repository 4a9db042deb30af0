"""The gateway through the real openai client and real HTTP to the local double."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from pydantic import SecretStr

from bench.openai_double import Fault, OpenAIDouble, Profile, ScriptedModel
from services.llm.config import LLMEndpoint, LLMRoles
from services.llm.gateway import CallLedger, LLMGateway, LLMUnavailable, strip_overlap

ANSWER = (
    "Orders paid by 2 p.m. on a weekday ship the same day and usually arrive the next day. "
    "오후 2시 이후 주문은 다음 영업일에 발송됩니다."
)


@pytest.fixture
async def double() -> AsyncIterator[OpenAIDouble]:
    server = OpenAIDouble(
        {
            "primary": ScriptedModel(lambda q: ANSWER),
            "backup": ScriptedModel(lambda q: ANSWER, overlap_on_continue=12),
        }
    )
    await server.start()
    yield server
    await server.stop()


class FakeSleep:
    """Sleeping advances a fake clock instead of wall time."""

    def __init__(self) -> None:
        self.waits: list[float] = []
        self.now = 0.0

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


def endpoint(double: OpenAIDouble, model: str, **overrides: object) -> LLMEndpoint:
    values: dict[str, object] = {
        "base_url": double.base_url,
        "model": model,
        "price_in": 8.0,
        "price_out": 32.0,
    }
    values.update(overrides)
    return LLMEndpoint(**values)  # type: ignore[arg-type]


_open: list[LLMGateway] = []


def gateway(*endpoints: LLMEndpoint, sleep: FakeSleep | None = None, **roles: object) -> LLMGateway:
    sleep = sleep or FakeSleep()
    built = LLMGateway(LLMRoles(target=list(endpoints), **roles), sleep=sleep, clock=sleep.clock)  # type: ignore[arg-type]
    _open.append(built)
    return built


@pytest.fixture(autouse=True)
async def close_gateways() -> AsyncIterator[None]:
    yield
    while _open:
        await _open.pop().close()


MESSAGES = [{"role": "system", "content": "Answer from the facts."}, {"role": "user", "content": "when?"}]


async def test_chat_records_tokens_and_cost(double: OpenAIDouble) -> None:
    ledger = CallLedger()
    result = await gateway(endpoint(double, "primary")).chat(
        "target", MESSAGES, ledger=ledger, max_tokens=200
    )
    assert result.text == ANSWER
    [call] = ledger.calls
    assert call.prompt_tokens > 0 and call.completion_tokens > 10
    assert call.cost_usd == pytest.approx((call.prompt_tokens * 8 + call.completion_tokens * 32) / 1e6)
    assert call.retries == 0 and call.error is None


async def test_429_waits_as_long_as_retry_after_says(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("429", retry_after=7))
    sleep = FakeSleep()
    ledger = CallLedger()
    result = await gateway(endpoint(double, "primary"), sleep=sleep).chat(
        "target", MESSAGES, ledger=ledger, max_tokens=50
    )
    assert result.text
    assert sleep.waits == [7.0]
    assert ledger.calls[0].retries == 1
    assert len(double.calls("/v1/chat/completions")) == 2, "the SDK's own retries are off"


async def test_server_errors_back_off_then_succeed(double: OpenAIDouble) -> None:
    double.models["primary"].faults.extend([Fault("500"), Fault("500")])
    sleep = FakeSleep()
    await gateway(endpoint(double, "primary"), sleep=sleep).chat(
        "target", MESSAGES, ledger=CallLedger(), max_tokens=5
    )
    assert len(sleep.waits) == 2 and all(0 <= wait <= 8 for wait in sleep.waits)


async def test_refused_key_rotates_to_the_next(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("401", api_key="key-a"))
    keys = [SecretStr("key-a"), SecretStr("key-b")]
    await gateway(endpoint(double, "primary", api_keys=keys)).chat(
        "target", MESSAGES, ledger=CallLedger(), max_tokens=5
    )
    assert [r.api_key for r in double.calls("/v1/chat/completions")] == ["key-a", "key-b"]


async def test_fallback_and_cooldown(double: OpenAIDouble) -> None:
    double.models["primary"].faults.extend(Fault("500") for _ in range(4))
    llm = gateway(
        endpoint(double, "primary"), endpoint(double, "backup"), retries=1, cooldown_after_failures=1
    )
    ledger = CallLedger()
    assert (await llm.chat("target", MESSAGES, ledger=ledger, max_tokens=5)).text
    assert [c.model for c in ledger.calls] == ["primary", "backup"]
    assert ledger.calls[0].error is not None
    await llm.chat("target", MESSAGES, ledger=CallLedger(), max_tokens=5)
    assert len(double.calls("/v1/chat/completions", "primary")) == 2, "cooling down: not asked again"


async def test_everything_failing_raises_llm_unavailable(double: OpenAIDouble) -> None:
    double.models["primary"].faults.extend(Fault("500") for _ in range(10))
    with pytest.raises(LLMUnavailable, match="primary"):
        await gateway(endpoint(double, "primary"), retries=2).chat(
            "target", MESSAGES, ledger=CallLedger(), max_tokens=5
        )


async def collect(stream: AsyncIterator[str]) -> list[str]:
    return [piece async for piece in stream]


@pytest.mark.parametrize("kind", ["cut", "malformed"])
async def test_broken_stream_is_finished_by_the_next_endpoint_without_repeats(
    double: OpenAIDouble, kind: str
) -> None:
    double.models["primary"].faults.append(Fault(kind, after_tokens=9))  # type: ignore[arg-type]
    ledger = CallLedger()
    llm = gateway(endpoint(double, "primary"), endpoint(double, "backup"))
    pieces = await collect(llm.stream_chat("target", MESSAGES, ledger=ledger, max_tokens=200))
    assert "".join(pieces) == ANSWER, "the backup repeats 12 characters; none are shown twice"
    assert [c.model for c in ledger.calls] == ["primary", "backup"]
    [continuation] = double.calls("/v1/chat/completions", "backup")
    assert continuation.body["messages"][-2]["role"] == "assistant"


async def test_hang_before_first_token_is_retried(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("hang"))
    llm = gateway(endpoint(double, "primary", first_token_timeout=0.3, timeout=5))
    ledger = CallLedger()
    assert (
        "".join(await collect(llm.stream_chat("target", MESSAGES, ledger=ledger, max_tokens=200))) == ANSWER
    )
    assert ledger.calls[0].retries == 1 and ledger.calls[0].ttft_ms is not None


async def test_stream_records_usage(double: OpenAIDouble) -> None:
    double.models["primary"].profile = Profile(tokens_per_second=2000)
    ledger = CallLedger()
    await collect(
        gateway(endpoint(double, "primary")).stream_chat("target", MESSAGES, ledger=ledger, max_tokens=200)
    )
    assert ledger.completion_tokens > 10 and ledger.cost_usd > 0


async def test_score_returns_top_tokens_for_every_position(double: OpenAIDouble) -> None:
    prompt = double.tokenizer.encode("hello there")
    result = await gateway(endpoint(double, "primary")).score("target", prompt, ledger=CallLedger())
    assert len(result.top) == len(prompt) and result.top[0] is None
    second = result.top[1]
    assert second is not None and max(second, key=second.__getitem__) == prompt[1]


async def test_rpm_limit_spaces_requests(double: OpenAIDouble) -> None:
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary", rpm=6), sleep=sleep)
    for _ in range(8):
        await llm.chat("target", MESSAGES, ledger=CallLedger(), max_tokens=1)
    assert sum(sleep.waits) == pytest.approx(20.0), "requests 7 and 8 wait 10 s each at 6 per minute"


def test_strip_overlap() -> None:
    assert strip_overlap("the same day and usually", "day and usually arrive") == " arrive"
    assert strip_overlap("abc", "xyz") == "xyz"


async def test_a_reasoning_model_s_refusals_are_learned_once_without_retries(double: OpenAIDouble) -> None:
    """A model the name does not give away (a gateway alias): the first 400s teach the endpoint."""
    double.models["alias"] = ScriptedModel(lambda q: "YES", reasoning=True)
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "alias"), sleep=sleep, retries=0)
    first, second = CallLedger(), CallLedger()
    verdict = await llm.chat("target", MESSAGES, ledger=first, max_tokens=1, top_logprobs=5)
    assert verdict.text == "YES" and verdict.top_logprobs == []
    sent = [c.body for c in double.calls("/v1/chat/completions", "alias")]
    assert len(sent) == 4, "max_tokens, temperature and logprobs refused in turn, then answered"
    assert sent[-1]["max_completion_tokens"] == 1 + 1024 and "temperature" not in sent[-1]
    assert first.calls[0].error is None and first.calls[0].retries == 0 and sleep.waits == []
    streamed = "".join([d async for d in llm.stream_chat("target", MESSAGES, ledger=second, max_tokens=50)])
    assert streamed == "YES"
    assert len(double.calls("/v1/chat/completions", "alias")) == 5, "learned: no refusal the second time"


async def test_reasoning_models_known_by_name_get_their_options_first_time(double: OpenAIDouble) -> None:
    double.models["gpt-5-mini"] = ScriptedModel(lambda q: ANSWER, reasoning=True)
    llm = gateway(endpoint(double, "gpt-5-mini", reasoning_effort="low", reasoning_budget=256))
    result = await llm.chat("target", MESSAGES, ledger=CallLedger(), max_tokens=200, top_logprobs=5)
    assert result.text == ANSWER
    [sent] = double.calls("/v1/chat/completions", "gpt-5-mini")
    assert sent.body["max_completion_tokens"] == 456 and sent.body["reasoning_effort"] == "low"
    assert not {"max_tokens", "temperature", "logprobs"} & sent.body.keys()


async def test_other_bad_requests_are_neither_retried_nor_learned(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("400"))
    llm = gateway(endpoint(double, "primary"))
    with pytest.raises(LLMUnavailable):
        await llm.chat("target", MESSAGES, ledger=CallLedger(), max_tokens=5)
    assert len(double.calls("/v1/chat/completions")) == 1
    assert llm._states["target"][0].refused == set()
