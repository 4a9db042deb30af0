"""The gateway through the real openai client and real HTTP to the local double."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator

import openai
import pytest
from pydantic import SecretStr

from bench.openai_double import Fault, OpenAIDouble, Profile, ScriptedModel
from services.llm.config import LLMEndpoint, LLMRole, LLMRoles
from services.llm.deadline import Deadline, within
from services.llm.gateway import (
    CallLedger,
    DeadlineExceeded,
    LLMGateway,
    LLMUnavailable,
    Message,
    StreamIncomplete,
    strip_overlap,
)

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
        LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=200
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
        LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=50
    )
    assert result.text
    assert sleep.waits == [7.0]
    assert ledger.calls[0].retries == 1
    assert len(double.calls("/v1/chat/completions")) == 2, "the SDK's own retries are off"


async def test_server_errors_back_off_then_succeed(double: OpenAIDouble) -> None:
    double.models["primary"].faults.extend([Fault("500"), Fault("500")])
    sleep = FakeSleep()
    await gateway(endpoint(double, "primary"), sleep=sleep).chat(
        LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5
    )
    assert len(sleep.waits) == 2 and all(0 <= wait <= 8 for wait in sleep.waits)


async def test_refused_key_rotates_to_the_next(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("401", api_key="key-a"))
    keys = [SecretStr("key-a"), SecretStr("key-b")]
    await gateway(endpoint(double, "primary", api_keys=keys)).chat(
        LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5
    )
    assert [r.api_key for r in double.calls("/v1/chat/completions")] == ["key-a", "key-b"]


async def test_refused_keys_rotate_in_order_and_round(double: OpenAIDouble) -> None:
    """Three keys, the first two refused: a, b, then c answers; refused again, c goes round to a."""
    double.models["primary"].faults.extend([Fault("401", api_key="key-a"), Fault("401", api_key="key-b")])
    keys = [SecretStr("key-a"), SecretStr("key-b"), SecretStr("key-c")]
    llm = gateway(endpoint(double, "primary", api_keys=keys))
    await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)
    double.models["primary"].faults.append(Fault("401", api_key="key-c"))
    await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)
    used = [r.api_key for r in double.calls("/v1/chat/completions")]
    assert used == ["key-a", "key-b", "key-c", "key-c", "key-a"]


async def test_fallback_and_cooldown(double: OpenAIDouble) -> None:
    double.models["primary"].faults.extend(Fault("500") for _ in range(4))
    llm = gateway(
        endpoint(double, "primary"), endpoint(double, "backup"), retries=1, cooldown_after_failures=1
    )
    ledger = CallLedger()
    assert (await llm.chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=5)).text
    assert [c.model for c in ledger.calls] == ["primary", "backup"]
    error = ledger.calls[0].error or ""
    assert error.startswith("InternalServerError"), "the server's own error once retries are spent"
    await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)
    assert len(double.calls("/v1/chat/completions", "primary")) == 2, "cooling down: not asked again"


async def test_token_ids_never_go_to_an_endpoint_of_another_model(double: OpenAIDouble) -> None:
    """The primary down, the backup another model: chat goes on at the backup, while scoring,
    /tokenize, /detokenize and completions of ids stay with the primary's vocabulary and fail as
    unavailable (the answerer then falls back), instead of sending the backup ids that mean
    other words to it."""
    double.models["primary"].faults.extend(Fault("500") for _ in range(40))
    llm = gateway(endpoint(double, "primary"), endpoint(double, "backup"), retries=0)
    assert (await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)).text
    ledger = CallLedger()
    for call in (
        llm.score(LLMRole.TARGET, [1, 2, 3], ledger=ledger),
        llm.tokenize(LLMRole.TARGET, text="hi", ledger=ledger),
        llm.detokenize(LLMRole.TARGET, [1, 2], ledger=ledger),
        collect(llm.stream_completion(LLMRole.TARGET, [1, 2, 3], ledger=ledger, max_tokens=3)),
    ):
        with pytest.raises(LLMUnavailable, match="primary"):
            await call
    assert {c.model for c in ledger.calls} == {"primary"}
    for path in ("/v1/completions", "/tokenize", "/detokenize"):
        assert not double.calls(path, "backup"), path


async def test_everything_failing_raises_llm_unavailable(double: OpenAIDouble) -> None:
    double.models["primary"].faults.extend(Fault("500") for _ in range(10))
    with pytest.raises(LLMUnavailable, match="primary"):
        await gateway(endpoint(double, "primary"), retries=2).chat(
            LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5
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
    pieces = await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=200))
    assert "".join(pieces) == ANSWER, "the backup repeats 12 characters; none are shown twice"
    assert [c.model for c in ledger.calls] == ["primary", "backup"]
    [continuation] = double.calls("/v1/chat/completions", "backup")
    assert continuation.body["messages"][-2]["role"] == "assistant"


async def test_hang_before_first_token_is_retried(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("hang"))
    llm = gateway(endpoint(double, "primary", first_token_timeout=1.0, timeout=5))
    ledger = CallLedger()
    assert (
        "".join(await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=200)))
        == ANSWER
    )
    # at least the hung attempt is retried (on a loaded machine a slow first token may be too)
    assert ledger.calls[0].retries >= 1 and ledger.calls[0].ttft_ms is not None


async def test_stream_records_usage(double: OpenAIDouble) -> None:
    double.models["primary"].profile = Profile(tokens_per_second=2000)
    ledger = CallLedger()
    await collect(
        gateway(endpoint(double, "primary")).stream_chat(
            LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=200
        )
    )
    assert ledger.completion_tokens > 10 and ledger.cost_usd > 0


async def test_score_returns_top_tokens_for_every_position(double: OpenAIDouble) -> None:
    prompt = double.tokenizer.encode("hello there")
    result = await gateway(endpoint(double, "primary")).score(LLMRole.TARGET, prompt, ledger=CallLedger())
    assert len(result.top) == len(prompt) and result.top[0] is None
    second = result.top[1]
    assert second is not None and max(second, key=second.__getitem__) == prompt[1]
    [call] = double.calls("/v1/completions")
    assert call.body["logprobs"] == 5, "the most alternatives OpenAI's completions endpoint gives"
    assert call.body["echo"] is True and call.body["max_tokens"] == 1


async def test_rpm_limit_spaces_requests(double: OpenAIDouble) -> None:
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary", rpm=6), sleep=sleep)
    for _ in range(8):
        await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=1)
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
    verdict = await llm.chat(LLMRole.TARGET, MESSAGES, ledger=first, max_tokens=1, top_logprobs=5)
    assert verdict.text == "YES" and verdict.top_logprobs == []
    sent = [c.body for c in double.calls("/v1/chat/completions", "alias")]
    assert len(sent) == 4, "max_tokens, temperature and logprobs refused in turn, then answered"
    assert sent[-1]["max_completion_tokens"] == 1 + 1024 and "temperature" not in sent[-1]
    assert first.calls[0].error is None and first.calls[0].retries == 0 and sleep.waits == []
    streamed = "".join(
        [d async for d in llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=second, max_tokens=50)]
    )
    assert streamed == "YES"
    assert len(double.calls("/v1/chat/completions", "alias")) == 5, "learned: no refusal the second time"


async def test_reasoning_models_known_by_name_get_their_options_first_time(double: OpenAIDouble) -> None:
    double.models["gpt-5-mini"] = ScriptedModel(lambda q: ANSWER, reasoning=True)
    llm = gateway(endpoint(double, "gpt-5-mini", reasoning_effort="low", reasoning_budget=256))
    result = await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=200, top_logprobs=5)
    assert result.text == ANSWER
    [sent] = double.calls("/v1/chat/completions", "gpt-5-mini")
    assert sent.body["max_completion_tokens"] == 456 and sent.body["reasoning_effort"] == "low"
    assert not {"max_tokens", "temperature", "logprobs"} & sent.body.keys()


async def test_a_reasoning_effort_goes_to_reasoning_models_only(double: OpenAIDouble) -> None:
    """A shared setting's `reasoning_effort` is not sent to a chat model, which would refuse it."""
    llm = gateway(endpoint(double, "primary", reasoning_effort="low"))
    await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=20)
    [sent] = double.calls("/v1/chat/completions", "primary")
    assert "reasoning_effort" not in sent.body and sent.body["max_tokens"] == 20


async def test_other_bad_requests_are_neither_retried_nor_learned(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("400"))
    llm = gateway(endpoint(double, "primary"))
    with pytest.raises(LLMUnavailable):
        await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)
    assert len(double.calls("/v1/chat/completions")) == 1
    assert llm._states[LLMRole.TARGET][0].refused == set()


# --- the reply deadline caps every wait --------------------------------------


async def test_a_retry_after_longer_than_the_time_left_goes_to_the_fallback_at_once(
    double: OpenAIDouble,
) -> None:
    double.models["primary"].faults.append(Fault("429", retry_after=25))
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary"), endpoint(double, "backup"), sleep=sleep)
    ledger = CallLedger()
    with within(Deadline(20, clock=sleep.clock)):
        result = await llm.chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=50)
    assert result.text == ANSWER
    assert sleep.waits == [], "25 s of Retry-After cannot fit in 20 s: not waited at all"
    assert [c.model for c in ledger.calls] == ["primary", "backup"]


async def test_without_a_deadline_retry_after_is_capped_and_a_long_one_rests_the_endpoint(
    double: OpenAIDouble,
) -> None:
    double.models["primary"].faults.append(Fault("429", retry_after=3600))
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary"), sleep=sleep, max_retry_wait=30)
    with pytest.raises(LLMUnavailable):
        await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)
    assert sleep.waits == [], "an hour is not waited out"
    with pytest.raises(LLMUnavailable, match="cooling down"):
        await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)
    assert len(double.calls("/v1/chat/completions")) == 1, "it asked for an hour's rest: it gets it"
    sleep.now += 3600
    assert (await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)).text


async def test_a_retry_after_of_exactly_the_cap_is_waited(double: OpenAIDouble) -> None:
    """`max_retry_wait` is the longest wait taken, not the shortest refused."""
    double.models["primary"].faults.append(Fault("429", retry_after=30))
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary"), sleep=sleep, max_retry_wait=30)
    assert (await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)).text
    assert sleep.waits == [30.0]


async def test_a_retry_after_within_the_cap_and_the_time_left_is_waited(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("429", retry_after=7))
    sleep = FakeSleep()
    with within(Deadline(20, clock=sleep.clock)):
        await gateway(endpoint(double, "primary"), sleep=sleep).chat(
            LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5
        )
    assert sleep.waits == [7.0]


async def test_backoff_never_sleeps_past_the_deadline(double: OpenAIDouble) -> None:
    double.models["primary"].faults.extend(Fault("500") for _ in range(20))
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary"), sleep=sleep, retries=10)
    with within(Deadline(0.05, clock=sleep.clock)), pytest.raises(LLMUnavailable):
        await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)
    assert sleep.now < 0.05, f"slept {sleep.waits} with 0.05 s to spare"


async def test_a_hung_call_is_cut_when_the_reply_s_time_is_up(double: OpenAIDouble) -> None:
    """timeout=30 and 3 retries would hold the customer two minutes; the deadline holds 0.3 s."""
    double.models["primary"].faults.append(Fault("hang"))
    llm = gateway(endpoint(double, "primary", timeout=30), cooldown_after_failures=1)
    ledger = CallLedger()
    with within(Deadline(0.3)), pytest.raises(DeadlineExceeded, match="deadline"):
        await asyncio.wait_for(llm.chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=5), 20)
    assert ledger.calls[0].error is not None and "Deadline" in ledger.calls[0].error
    assert not llm._states[LLMRole.TARGET][0].cooldown.resting, "our budget ran out, not the endpoint"


async def test_a_stream_stalled_mid_answer_is_cut_when_the_reply_s_time_is_up(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("stall", after_tokens=4))
    llm = gateway(endpoint(double, "primary", timeout=30), endpoint(double, "backup"))
    shown: list[str] = []
    with within(Deadline(0.5)), pytest.raises(DeadlineExceeded):
        async for delta in llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=200):
            shown.append(delta)
    assert shown and ANSWER.startswith("".join(shown))
    assert double.calls("/v1/chat/completions", "backup") == [], "no time left to ask the fallback"


async def test_a_rate_limit_wait_past_the_deadline_is_not_taken(double: OpenAIDouble) -> None:
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary", rpm=1), endpoint(double, "backup"), sleep=sleep)
    await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=1)
    ledger = CallLedger()
    with within(Deadline(20, clock=sleep.clock)):
        await llm.chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=1)
    assert sleep.waits == [], "the next request slot is 60 s away: the backup answers now"
    assert [c.model for c in ledger.calls] == ["primary", "backup"]
    assert not llm._states[LLMRole.TARGET][0].cooldown.resting


# --- /tokenize and /detokenize are calls like any other ------------------------


async def test_tokenize_falls_back_to_a_replica_of_the_same_model(double: OpenAIDouble) -> None:
    """A second deployment of the primary's model takes its token-id calls; another model's does not
    (`test_token_ids_never_go_to_an_endpoint_of_another_model`)."""
    double.models["primary"].faults.append(Fault("500", path="/tokenize"))
    ledger = CallLedger()
    llm = gateway(
        endpoint(double, "primary"), endpoint(double, "backup"), endpoint(double, "primary"), retries=0
    )
    tokens = await llm.tokenize(LLMRole.TARGET, text="배송 언제 와요?", ledger=ledger)
    assert double.tokenizer.decode(tokens) == "배송 언제 와요?"
    assert [c.body["model"] for c in double.calls("/tokenize")] == ["primary", "primary"]
    assert [(c.model, c.kind) for c in ledger.calls] == [("primary", "tokenize"), ("primary", "tokenize")]
    assert await llm.detokenize(LLMRole.TARGET, tokens) == "배송 언제 와요?"


async def test_text_is_tokenized_without_the_servers_special_tokens(double: OpenAIDouble) -> None:
    """vLLM's /tokenize adds the model's BOS to a text unless asked not to: a draft's or a reply's ids
    are pieces of a prompt, never its start, so the gateway asks for none; a chat's messages come
    with the template's own."""
    llm = gateway(endpoint(double, "primary"), retries=0)
    await llm.tokenize(LLMRole.TARGET, text="배송 언제 와요?")
    await llm.tokenize(LLMRole.TARGET, messages=[{"role": "user", "content": "배송 언제 와요?"}])
    text, chat = (call.body for call in double.calls("/tokenize"))
    assert text["add_special_tokens"] is False
    assert chat["add_generation_prompt"] is True and "add_special_tokens" not in chat


async def test_tokenize_is_retried_and_rate_limited(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("429", retry_after=2, path="/tokenize"))
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary", rpm=6), sleep=sleep)
    ledger = CallLedger()
    for _ in range(3):
        await llm.tokenize(LLMRole.TARGET, messages=MESSAGES, ledger=ledger)
        await llm.detokenize(LLMRole.TARGET, [1, 2, 3], ledger=ledger)
    assert ledger.calls[0].retries == 1 and sleep.waits[0] == 2.0
    assert len(double.calls("/tokenize") + double.calls("/detokenize")) == 7
    assert sum(sleep.waits) == pytest.approx(10.0), "at 6 per minute the 7th request is due 10 s in"


async def test_tokenizer_errors_are_the_gateway_s_own(double: OpenAIDouble) -> None:
    llm = gateway(endpoint(double, "no-such-model"))
    with pytest.raises(LLMUnavailable, match="no-such-model"):
        await llm.tokenize(LLMRole.TARGET, text="hi")
    with pytest.raises(LLMUnavailable):
        await llm.detokenize(LLMRole.TARGET, [1, 2])


async def test_tokenizer_failures_count_toward_the_cooldown(double: OpenAIDouble) -> None:
    double.models["primary"].faults.extend(Fault("500", path="/tokenize") for _ in range(2))
    primary, replica = endpoint(double, "primary"), endpoint(double, "primary", api_keys=[SecretStr("r")])
    llm = gateway(primary, replica, retries=1, cooldown_after_failures=1)
    await llm.tokenize(LLMRole.TARGET, text="hi")
    await llm.tokenize(LLMRole.TARGET, text="hi")
    keys = [c.api_key for c in double.calls("/tokenize")]
    assert keys == [keys[0], keys[0], "r", "r"] and keys[0] != "r", (
        "the failing one rests: the replica serves"
    )


# --- streams: limits, cooldown and faults for their whole length ---------------


async def test_max_concurrency_holds_for_the_whole_stream(double: OpenAIDouble) -> None:
    llm = gateway(endpoint(double, "primary", max_concurrency=1))
    first = llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=200)
    head = await anext(first)
    second = asyncio.create_task(
        collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=200))
    )
    await asyncio.sleep(0.3)  # ample for a request over loopback, were the slot free
    assert len(double.calls("/v1/chat/completions")) == 1, "the second stream waits for the slot"
    assert head + "".join(await collect(first)) == ANSWER
    assert "".join(await asyncio.wait_for(second, 10)) == ANSWER
    assert len(double.calls("/v1/chat/completions")) == 2


async def test_an_abandoned_stream_frees_its_slot(double: OpenAIDouble) -> None:
    llm = gateway(endpoint(double, "primary", max_concurrency=1))
    first = llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=200)
    await anext(first)
    await first.aclose()
    again = llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=200)
    assert "".join(await asyncio.wait_for(collect(again), 10)) == ANSWER


async def test_a_broken_stream_counts_toward_the_cooldown(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("cut", after_tokens=5))
    llm = gateway(endpoint(double, "primary"), endpoint(double, "backup"), cooldown_after_failures=1)
    await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=200))
    ledger = CallLedger()
    assert (
        "".join(await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=200)))
        == ANSWER
    )
    assert [c.model for c in ledger.calls] == ["backup"], "the primary rests after its broken stream"
    assert len(double.calls("/v1/chat/completions", "primary")) == 1


async def test_a_broken_stream_is_logged_with_its_endpoint_and_how_much_was_shown(
    double: OpenAIDouble, caplog: pytest.LogCaptureFixture
) -> None:
    double.models["primary"].faults.append(Fault("cut", after_tokens=5))
    llm = gateway(endpoint(double, "primary"), endpoint(double, "backup"))
    with caplog.at_level(logging.WARNING, logger="services.llm.gateway"):
        await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=200))
    [failed] = [record for record in caplog.records if record.getMessage() == "llm stream failed"]
    assert failed.__dict__["endpoint"].startswith("primary@") and failed.__dict__["shown_chars"] > 0
    assert failed.__dict__["role"] == LLMRole.TARGET and failed.__dict__["error"]


async def test_a_whole_stream_between_two_broken_ones_starts_the_failure_count_over(
    double: OpenAIDouble,
) -> None:
    """Two failures in a row rest the primary; a stream that arrives whole between them means they
    were not in a row, so the primary still serves after the second."""
    llm = gateway(endpoint(double, "primary"), endpoint(double, "backup"), cooldown_after_failures=2)

    async def stream(cut: bool) -> list[str]:
        if cut:
            double.models["primary"].faults.append(Fault("cut", after_tokens=5))
        ledger = CallLedger()
        await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=200))
        return [c.model for c in ledger.calls]

    assert await stream(cut=True) == ["primary", "backup"]
    assert await stream(cut=False) == ["primary"]
    assert await stream(cut=True) == ["primary", "backup"]
    assert await stream(cut=False) == ["primary"], "not resting: the failures were not in a row"


async def test_streams_respect_the_cooldown(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("500"))
    llm = gateway(
        endpoint(double, "primary"), endpoint(double, "backup"), retries=0, cooldown_after_failures=1
    )
    await llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)
    ledger = CallLedger()
    assert (
        "".join(await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=200)))
        == ANSWER
    )
    assert [c.model for c in ledger.calls] == ["backup"]
    assert len(double.calls("/v1/chat/completions", "primary")) == 1, "not asked while cooling down"
    lone = gateway(endpoint(double, "primary"), retries=0, cooldown_after_failures=1)
    double.models["primary"].faults.append(Fault("500"))
    with pytest.raises(LLMUnavailable):
        await lone.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5)
    with pytest.raises(LLMUnavailable, match="cooling down"):
        await collect(lone.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=200))


async def test_a_stream_that_ends_without_a_finish_reason_is_not_complete(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("no_finish", after_tokens=6))
    ledger = CallLedger()
    llm = gateway(endpoint(double, "primary"), endpoint(double, "backup"))
    assert (
        "".join(await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=200)))
        == ANSWER
    )
    assert [c.model for c in ledger.calls] == ["primary", "backup"]
    assert StreamIncomplete.__name__ in (ledger.calls[0].error or "")


async def test_a_stream_stalled_longer_than_the_timeout_is_finished_elsewhere(double: OpenAIDouble) -> None:
    double.models["primary"].faults.append(Fault("stall", after_tokens=6))
    ledger = CallLedger()
    llm = gateway(endpoint(double, "primary", timeout=1.0), endpoint(double, "backup"))
    assert (
        "".join(await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=200)))
        == ANSWER
    )
    assert [c.model for c in ledger.calls] == ["primary", "backup"]


async def test_faults_are_chosen_per_request(double: OpenAIDouble) -> None:
    """A stream fault waits for a stream; a "none" slot lets one request through untouched."""
    double.models["primary"].faults.extend([Fault("cut", after_tokens=2), Fault("none"), Fault("500")])
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary"), endpoint(double, "backup"), sleep=sleep)
    first, second = CallLedger(), CallLedger()
    await llm.chat(LLMRole.TARGET, MESSAGES, ledger=first, max_tokens=5)
    await llm.chat(LLMRole.TARGET, MESSAGES, ledger=second, max_tokens=5)
    assert (first.calls[0].retries, second.calls[0].retries) == (0, 1)
    streamed = CallLedger()
    assert (
        "".join(await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=streamed, max_tokens=200)))
        == ANSWER
    )
    assert [c.model for c in streamed.calls] == ["primary", "backup"], "the cut waited for this stream"


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("language", ["ko", "ja"])
async def test_the_tpm_window_holds_for_korean_and_japanese_from_the_usage_that_comes_back(
    language: str, streamed: bool
) -> None:
    """Before each call, what the endpoint reported using so far stays within the window: one
    minute's tokens plus what refilled while waiting (the estimate alone runs low for ko/ja), for a
    streamed reply and a whole one alike."""
    policy = {
        "ko": "배송은 보통 하루에서 이틀 걸리고 제주는 더 걸려요. ",
        "ja": "配送には通常一日から二日かかります。",
    }[language]
    reply = "네." if language == "ko" else "はい。"
    # cl100k_base: a vocabulary that spends more tokens on Korean and Japanese than o200k_base
    server = OpenAIDouble({"target": ScriptedModel(lambda _: reply, vocabulary="cl100k_base")})
    await server.start()
    time_ = FakeSleep()
    endpoint = LLMEndpoint(base_url=server.base_url, model="target", tpm=5000)
    gateway = LLMGateway(LLMRoles(target=[endpoint], retries=0), clock=time_.clock, sleep=time_)
    ledger = CallLedger()
    messages: list[Message] = [{"role": "system", "content": policy * 80}, {"role": "user", "content": "?"}]
    overshoot = []
    try:
        for _ in range(8):
            used_before = ledger.prompt_tokens + ledger.completion_tokens
            overshoot.append(used_before - (5000 + time_.now * 5000 / 60))
            if streamed:
                async for _delta in gateway.stream_chat(
                    LLMRole.TARGET, messages, ledger=ledger, max_tokens=16
                ):
                    pass
            else:
                await gateway.chat(LLMRole.TARGET, messages, ledger=ledger, max_tokens=16)
    finally:
        await gateway.close()
        await server.stop()
    per_call = ledger.prompt_tokens / len(ledger.calls)
    assert ledger.prompt_tokens > 10_000, "the calls used more than two windows: the limit had to hold"
    # A limiter learns a call's real size only after it: over by at most one call's estimating
    # error (here about a fifth of a call), never by errors piling up call after call.
    assert max(overshoot) <= 0.25 * per_call, (overshoot, per_call)


async def test_an_endpoint_down_at_start_is_probed_as_unknown_not_as_incapable(
    double: OpenAIDouble, caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing it failed to answer is held against it: no capabilities recorded (token mode is asked
    at its first reply, as without a probe), and it serves once it is up."""
    double.models["primary"].faults.extend(Fault("500") for _ in range(20))
    llm = gateway(endpoint(double, "primary", max_concurrency=3), retries=0)
    with caplog.at_level(logging.WARNING, logger="services.llm.gateway"):
        await llm.probe()
    assert llm.capabilities(LLMRole.TARGET) is None
    assert any("did not answer the probe" in record.getMessage() for record in caplog.records)
    double.models["primary"].faults.clear()
    replies = await asyncio.gather(
        *(
            collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=5))
            for _ in range(3)
        )
    )
    assert all(replies)


async def test_a_call_is_timed_in_milliseconds(double: OpenAIDouble) -> None:
    """The double waits 50 ms before it answers: each call's recorded time is at least that, and
    no more than the whole call took here (the gateway on its default clock)."""
    double.models["primary"].profile.ttft = 0.05
    llm = LLMGateway(LLMRoles(target=[endpoint(double, "primary")]))
    _open.append(llm)
    ledger = CallLedger()
    began = time.perf_counter()
    await llm.chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=5)
    await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=5))
    elapsed_ms = (time.perf_counter() - began) * 1000
    for call in ledger.calls:
        assert call.ttft_ms is not None and 50 <= call.ttft_ms <= call.total_ms <= elapsed_ms, call


# --- settings and requests the rest of the suite leaves unpinned ------------------------------
def test_an_explicit_reasoning_flag_beats_the_model_s_name() -> None:
    base = "http://127.0.0.1:9/v1"
    assert LLMEndpoint(base_url=base, model="o3-mini", reasoning=False).is_reasoning is False
    assert LLMEndpoint(base_url=base, model="house-model", reasoning=True).is_reasoning is True
    assert LLMEndpoint(base_url=base, model="openai/gpt-5-mini").is_reasoning is True
    assert LLMEndpoint(base_url=base, model="house-model").is_reasoning is False


def test_retry_after_may_be_never_waited_and_a_rest_may_be_none() -> None:
    roles = LLMRoles(
        target=[LLMEndpoint(base_url="http://127.0.0.1:9/v1", model="m")],
        max_retry_wait=0,
        cooldown_seconds=0,
    )
    assert (roles.max_retry_wait, roles.cooldown_seconds) == (0, 0)


async def test_a_reply_whose_time_is_up_asks_no_endpoint_for_a_stream(double: OpenAIDouble) -> None:
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary"), endpoint(double, "backup"), sleep=sleep)
    with within(Deadline(1, clock=sleep.clock)):
        sleep.now += 2
        with pytest.raises(DeadlineExceeded, match="no attempt yet"):
            await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=20))
    assert double.calls("/v1/chat/completions") == []


@pytest.mark.parametrize("partial", [True, False])
async def test_only_a_server_that_skips_unread_positions_is_told_where_reading_starts(
    double: OpenAIDouble, partial: bool
) -> None:
    prompt = double.tokenizer.encode("hello there friend")
    llm = gateway(endpoint(double, "primary", partial_prompt_logprobs=partial))
    await llm.score(LLMRole.TARGET, prompt, ledger=CallLedger(), needed_from=2)
    (request,) = double.calls("/v1/completions")
    assert ("prompt_logprobs_from" in request.body) is partial
    if partial:
        assert request.body["prompt_logprobs_from"] == 2


def test_a_usage_report_with_null_counts_is_billed_as_nothing_used() -> None:
    """Some servers send usage with null counts (an aborted or cached call): nothing is made up,
    and a reported count is taken as it is, zero included."""
    from types import SimpleNamespace

    from services.llm.gateway import CallRecord, _count_usage

    priced = LLMEndpoint(base_url="http://127.0.0.1:9/v1", model="m", price_in=8.0, price_out=32.0)
    record = CallRecord(LLMRole.TARGET, "primary", "m", "chat")
    _count_usage(record, priced, SimpleNamespace(prompt_tokens=None, completion_tokens=None))
    assert (record.prompt_tokens, record.completion_tokens, record.cost_usd) == (0, 0, 0.0)
    _count_usage(record, priced, SimpleNamespace(prompt_tokens=1000, completion_tokens=0))
    assert (record.prompt_tokens, record.completion_tokens) == (1000, 0)
    assert record.cost_usd == pytest.approx(priced.cost(1000, 0)) and record.cost_usd > 0


async def test_the_probe_asks_for_few_tokens_greedily(double: OpenAIDouble) -> None:
    """The probe runs at every start on every endpoint, paid for like any call: each of its chats
    asks for at most 16 tokens, at temperature 0 (what it sees does not depend on sampling)."""
    llm = gateway(endpoint(double, "primary"))
    await llm.probe()
    chats = double.calls("/v1/chat/completions")
    assert len(chats) >= 2, "one stream alone, then streams at once"
    assert all(0 < call.body["max_tokens"] <= 16 for call in chats), [c.body["max_tokens"] for c in chats]
    assert {call.body["temperature"] for call in chats} == {0.0}


async def test_an_endpoint_that_tokenizes_but_refuses_token_id_prompts_is_not_given_token_mode(
    double: OpenAIDouble, caplog: pytest.LogCaptureFixture
) -> None:
    """/tokenize answers, /v1/completions refuses the probe's token ids (as some servers answer
    500 to them): token-id scoring no, so verification stays in judge mode; chat still yes."""
    double.models["primary"].faults.append(Fault("500", path="/v1/completions"))
    llm = gateway(endpoint(double, "primary", verify="token"), retries=0)
    with caplog.at_level(logging.INFO, logger="services.llm.gateway"):
        await llm.probe()
    found = llm.capabilities(LLMRole.TARGET)
    assert found is not None and found.chat and found.tokenize
    assert not found.token_scoring and not found.token_mode
    said = [record.getMessage() for record in caplog.records if "token-id scoring no" in record.getMessage()]
    assert said, [record.getMessage() for record in caplog.records]


async def test_an_endpoint_that_echoes_no_alternatives_is_not_given_token_mode(double: OpenAIDouble) -> None:
    """/tokenize answers and token-id prompts are echoed with log-probabilities, but with no
    alternatives at each position: nothing to verify a draft against, so token scoring is no."""
    double.models["primary"].echo_alternatives = False
    llm = gateway(endpoint(double, "primary", verify="token"), retries=0)
    await llm.probe()
    found = llm.capabilities(LLMRole.TARGET)
    assert found is not None and found.chat and found.tokenize
    assert not found.token_scoring and not found.token_mode


async def test_a_completion_stream_is_admitted_for_its_prompt_and_reply_budget(double: OpenAIDouble) -> None:
    """Before a stream of token ids starts, the TPM window takes the prompt's ids plus the reply's
    budget: a second stream started while the first still runs waits for what the first may use
    (1,000 a minute, 700 taken: 400 more come in 24 s)."""
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary", tpm=1000), sleep=sleep)
    prompt = [1] * 100
    first = llm.stream_completion(LLMRole.TARGET, prompt, ledger=CallLedger(), max_tokens=600)
    assert await anext(first), "the first stream is admitted and running"
    assert sleep.waits == []
    await collect(llm.stream_completion(LLMRole.TARGET, prompt, ledger=CallLedger(), max_tokens=600))
    assert sleep.waits == [pytest.approx(24.0)]
    await collect(first)


async def test_reading_token_ids_takes_nothing_of_the_tpm_window(double: OpenAIDouble) -> None:
    """/tokenize and /detokenize generate nothing: a window of 2 tokens a minute lets any number of
    them through without a wait."""
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary", tpm=2), sleep=sleep)
    for _ in range(4):
        ids = await llm.tokenize(LLMRole.TARGET, text="Shipping is free", ledger=CallLedger())
        assert await llm.detokenize(LLMRole.TARGET, ids, ledger=CallLedger()) == "Shipping is free"
    assert sleep.waits == []


async def test_a_chat_is_admitted_for_its_messages_and_reply_budget(double: OpenAIDouble) -> None:
    """As for a completion: a chat, streamed or not, holds its messages' estimate plus its
    900-token budget of the minute's 1,000 while it runs, so a second one at the same time waits
    at least 48 s (1,800 - 1,000) on the virtual clock."""
    sleep = FakeSleep()
    llm = gateway(endpoint(double, "primary", tpm=1000), sleep=sleep)
    first = llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=900)
    assert await anext(first)
    await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=900))
    [waited] = sleep.waits
    assert waited >= 48.0
    await collect(first)
    calls = FakeSleep()  # and a whole (unstreamed) reply, two at once
    llm = gateway(endpoint(double, "primary", tpm=1000), sleep=calls)
    await asyncio.gather(
        *(llm.chat(LLMRole.TARGET, MESSAGES, ledger=CallLedger(), max_tokens=900) for _ in range(2))
    )
    [waited] = calls.waits
    assert waited >= 48.0


async def test_a_call_s_time_is_read_on_the_gateway_s_clock_waits_included(double: OpenAIDouble) -> None:
    """Two 500s, each followed by a wait the server asks for (Retry-After 3 s), then an answer: the
    call took the 6 s it waited, as the gateway's clock counts them; a call that never gets an
    answer is timed the same way."""
    sleep = FakeSleep()
    double.models["primary"].faults.extend(Fault("500", retry_after=3) for _ in range(2))
    llm = gateway(endpoint(double, "primary"), sleep=sleep, retries=2)
    ledger = CallLedger()
    await llm.chat(LLMRole.TARGET, MESSAGES, ledger=ledger, max_tokens=5)
    [call] = ledger.calls
    assert sleep.waits == [3.0, 3.0] and call.total_ms == 6000.0 and call.ttft_ms == 6000.0
    double.models["primary"].faults.extend(Fault("500", retry_after=3) for _ in range(3))
    failed = CallLedger()
    with pytest.raises(LLMUnavailable):
        await llm.chat(LLMRole.TARGET, MESSAGES, ledger=failed, max_tokens=5)
    assert failed.calls[0].error and failed.calls[0].total_ms == 6000.0
    double.models["primary"].faults.extend(Fault("500", retry_after=3) for _ in range(1))
    streamed = CallLedger()
    assert await collect(llm.stream_chat(LLMRole.TARGET, MESSAGES, ledger=streamed, max_tokens=5))
    assert streamed.calls[0].total_ms == 3000.0 and streamed.calls[0].ttft_ms == 3000.0


async def test_a_completion_finished_by_a_replica_asks_it_for_what_is_left_of_the_budget(
    double: OpenAIDouble,
) -> None:
    """The first endpoint streams the whole budget and ends without saying it finished: the replica
    is given the shown text and asked for at least one more token, never for a budget of nothing;
    one that broke early is asked for what is left."""
    primary, replica = endpoint(double, "primary"), endpoint(double, "primary", api_keys=[SecretStr("r")])
    llm = gateway(primary, replica, retries=0)
    double.models["primary"].faults.append(Fault("no_finish", api_key=None))
    await collect(llm.stream_completion(LLMRole.TARGET, [1, 2, 3], ledger=CallLedger(), max_tokens=4))
    first, second = double.calls("/v1/completions")
    assert first.body["max_tokens"] == 4 and second.api_key == "r"
    assert len(second.body["prompt"]) > 3 and second.body["max_tokens"] == 1
    double.requests.clear()
    double.models["primary"].faults.append(Fault("cut", after_tokens=2))
    await collect(llm.stream_completion(LLMRole.TARGET, [1, 2, 3], ledger=CallLedger(), max_tokens=8))
    first, second = double.calls("/v1/completions")
    shown = len(second.body["prompt"]) - 3
    assert 0 < shown < 8 and second.body["max_tokens"] == 8 - shown


@pytest.mark.parametrize(
    ("logprobs", "said"),
    [
        (None, "returned no prompt log-probabilities"),
        ({"tokens": ["token_id:1"], "top_logprobs": None}, "returned no prompt log-probabilities"),
        ({"tokens": ["token_id:1"], "top_logprobs": [None, {"token_id:2": -0.1}]}, "did not echo the prompt"),
    ],
)
async def test_a_score_without_prompt_log_probabilities_is_said_so(logprobs: object, said: str) -> None:
    """A server that answers `echo` + `logprobs` with none (no `logprobs`, no `top_logprobs` in it,
    or fewer positions than the prompt and the next token) cannot verify in token mode: the error
    says what is missing."""
    from aiohttp import web

    from services.llm.wire import serve_on_loopback

    async def completions(request: web.Request) -> web.Response:
        choice = {"index": 0, "text": "", "finish_reason": "length", "logprobs": logprobs}
        usage = {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3}
        body = {"id": "c", "object": "text_completion", "created": 0, "model": "m", "choices": [choice]}
        return web.json_response(body | {"usage": usage})

    app = web.Application()
    app.router.add_post("/v1/completions", completions)
    runner, base_url = await serve_on_loopback(app, "127.0.0.1")
    try:
        llm = gateway(LLMEndpoint(base_url=base_url, model="m"), retries=0)
        with pytest.raises(LLMUnavailable, match=said):
            await llm.score(LLMRole.TARGET, [1, 2], ledger=CallLedger())
    finally:
        await runner.cleanup()


def test_a_transport_error_mid_stream_is_retried_and_a_bug_is_not() -> None:
    """A stream broken in the HTTP library (httpx's own errors, a half-read JSON body) is worth
    another try; an error of our own code is not."""
    import importlib
    import json

    from services.llm.gateway import is_retryable

    client = openai.AsyncOpenAI(api_key="unused", base_url="http://127.0.0.1:9")
    library = next(
        k for k in type(client._client).__mro__ if not k.__module__.startswith(("openai", "builtins"))
    )
    http = importlib.import_module(library.__module__.split(".")[0])  # httpx, or the fork the SDK uses
    assert is_retryable(http.RemoteProtocolError("peer closed connection"))
    assert is_retryable(json.JSONDecodeError("Expecting value", "", 0))
    assert not is_retryable(ValueError("a bug"))
    assert not is_retryable(KeyError("choices"))
