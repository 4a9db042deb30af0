"""Exact token counts (offline) and trimming long Korean/Japanese conversations."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import pytest

from bench.openai_double import Fault, OpenAIDouble, ScriptedModel
from services.llm.config import LLMEndpoint, LLMRole, LLMRoles
from services.llm.gateway import LLMGateway
from services.llm.local.availability import bundled_model_path, local_generation_available
from services.llm.prompts import LANGUAGE_NAMES, SYSTEM_PROMPT, PromptBuilder
from services.llm.reply import AnswerRequest, ReplyReport
from services.llm.tokens import (
    GGUF_PREFIX,
    ContextOverflow,
    TokenCounter,
    TrimResult,
    bpe_name_for,
    counter_for,
    encoding,
    encoding_name_for,
    trim_exactly,
    trim_to_window,
)
from services.text.sentences import LANGUAGES, Language

if TYPE_CHECKING:
    from services.llm.local.engine import LocalEngine

local_available, local_missing = local_generation_available()

COUNTER = TokenCounter(encoding("o200k_base"))


def conversation(turns: int) -> list[dict[str, str]]:
    history = []
    for n in range(turns):
        history.append(
            {
                "role": "user",
                "content": f"{n}번째 질문: 주문번호 20240115-00{n:04d} 배송状況を教えてください。" * 3,
            }
        )
        history.append(
            {"role": "assistant", "content": f"{n}번째 답변: 배송 중이며 내일 도착 예정입니다。" * 3}
        )
    return history


def test_counts_match_the_encoding_exactly() -> None:
    text = "반품은 어떻게 하나요? 返品したいです"
    assert COUNTER.count(text) == len(encoding("o200k_base").encode(text))
    message = {"role": "user", "content": text}
    assert COUNTER.conversation([message]) == COUNTER.count(text) + 3 + 3


def test_encoding_follows_the_model() -> None:
    assert encoding_name_for("gpt-4o-mini") == "o200k_base"
    assert encoding_name_for("gpt-4-0613") == "cl100k_base"
    assert encoding_name_for("gpt-3.5-turbo") == "cl100k_base"
    assert encoding_name_for("anything", "cl100k_base") == "cl100k_base"


@pytest.mark.parametrize("window", [600, 1200, 4000])
def test_trimmed_prompt_always_fits_and_keeps_the_newest_turns(window: int) -> None:
    history = conversation(40)
    system = "사실: 평일 오후 2시까지 결제된 주문은 당일 발송됩니다. " * 5
    result = trim_to_window(
        COUNTER,
        system=system,
        history=history,
        question="오늘 주문하면 언제 와요?",
        context_window=window,
        reply_budget=256,
    )
    assert result.prompt_tokens + 256 <= window
    assert result.prompt_tokens == COUNTER.conversation(result.messages)
    assert (
        result.messages[0]["content"] == system
        and result.messages[-1]["content"] == "오늘 주문하면 언제 와요?"
    )
    kept = result.messages[1:-1]
    assert kept == history[len(history) - len(kept) :], "the newest turns, in order"
    assert not kept or kept[0]["role"] == "user", "never an answer without its question"
    assert result.dropped_turns == len(history) - len(kept) > 0


class ThinkingTemplate:
    """A chat template that wraps every assistant turn in more tokens than a user turn (as
    templates that keep an empty reasoning block do): one character, one token."""

    def encode(self, text: str) -> list[int]:
        return [ord(character) for character in text]

    def decode(self, tokens: Sequence[int]) -> str:
        return "".join(map(chr, tokens))

    def render(self, messages: Sequence[Mapping[str, str]]) -> list[int]:
        rendered: list[int] = []
        for message in messages:
            wrapper = "<think></think>" if message["role"] == "assistant" else "<>"
            rendered += self.encode(wrapper + message["content"])
        return rendered


def test_turns_chosen_by_their_own_counts_still_go_until_the_rendered_prompt_fits() -> None:
    """The per-message cost is measured on a user turn; this template's assistant turns cost
    more, so the turns first chosen overflow, and the oldest go, a question with its answer,
    until the prompt as rendered fits; no more than that go."""
    template = ThinkingTemplate()
    counter = TokenCounter(template)
    history = [
        {"role": role, "content": f"{role} turn {n}"} for n in range(6) for role in ("user", "assistant")
    ]
    arguments = {"system": "Facts.", "history": history, "question": "When?", "reply_budget": 10}
    per_message = sum(counter.message(m) for m in history[-6:])
    fixed = counter.conversation(
        [{"role": "system", "content": "Facts."}, {"role": "user", "content": "When?"}]
    )
    window = 10 + fixed + per_message  # the newest three pairs fit by their per-message counts
    result = trim_to_window(counter, context_window=window, **arguments)  # type: ignore[arg-type]
    assert result.prompt_tokens == len(template.render(result.messages)) <= window - 10
    kept = result.messages[1:-1]
    assert kept == history[-4:], "two pairs fit as rendered; the third pair's question went with its answer"
    assert len(template.render([result.messages[0], *history[-6:], result.messages[-1]])) > window - 10


def test_the_oldest_answer_is_not_kept_without_its_question() -> None:
    """Room for three turns of four: the newest question and answer, and not the oldest answer
    alone (it goes with the question before it, which does not fit)."""
    history = [
        {"role": "user", "content": "Do you ship to Jeju?"},
        {"role": "assistant", "content": "Yes, with a 3,000 won surcharge."},
        {"role": "user", "content": "And to Ulleungdo?"},
        {"role": "assistant", "content": "Yes, the same surcharge."},
    ]
    arguments = {"system": "Facts.", "history": history, "question": "How long?", "reply_budget": 10}
    fixed = [{"role": "system", "content": "Facts."}, {"role": "user", "content": "How long?"}]
    three = COUNTER.conversation([fixed[0], *history[1:], fixed[1]])
    assert three < COUNTER.conversation([fixed[0], *history, fixed[1]])
    result = trim_to_window(COUNTER, context_window=three + 10, **arguments)  # type: ignore[arg-type]
    assert result.messages[1:-1] == history[2:] and result.dropped_turns == 2


def test_nothing_fits_is_an_error_not_a_silent_cut() -> None:
    with pytest.raises(ContextOverflow):
        trim_to_window(
            COUNTER, system="x " * 900, history=[], question="q", context_window=512, reply_budget=256
        )


def test_truncation_never_splits_a_character() -> None:
    text = "배송状況を教えてください 🙏 감사합니다"
    for limit in range(1, COUNTER.count(text)):
        cut = COUNTER.truncate(text, limit)
        assert text.startswith(cut) and "\ufffd" not in cut
        assert COUNTER.count(cut) <= limit
    pasted = "a broken byte a customer pasted: \ufffd"
    assert COUNTER.truncate(pasted + " and more words", COUNTER.count(pasted)) == pasted, (
        "its own U+FFFD stays"
    )


# --- the target's own tokenizer -------------------------------------------------


def endpoint(model: str, **overrides: object) -> LLMEndpoint:
    return LLMEndpoint(base_url="http://127.0.0.1:9/v1", model=model, **overrides)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("openai/gpt-4.1", "o200k_base"),
        ("gpt-4-0613", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("Qwen/Qwen2.5-7B-Instruct", None),
        ("meta-llama/Llama-3.1-8B-Instruct", None),
        ("local", None),
        ("solar-pro", None),
    ],
)
def test_openai_encodings_only_for_openai_models(model: str, expected: str | None) -> None:
    assert bpe_name_for(model) == expected
    assert counter_for(endpoint(model)).exact is (expected is not None)


def test_a_configured_encoding_wins() -> None:
    assert bpe_name_for("my-finetune", "cl100k_base") == "cl100k_base"
    assert counter_for(endpoint("my-finetune", tokenizer="cl100k_base")).exact


@pytest.fixture(scope="module")
def local_engine() -> Iterator[LocalEngine]:
    if not local_available:
        pytest.skip(f"local model not installed: {local_missing}")
    from services.llm.local.engine import LocalEngine

    loaded = LocalEngine(n_ctx=2048)
    yield loaded
    loaded.close()


def test_the_local_engine_is_counted_with_its_own_vocabulary_and_template(local_engine: LocalEngine) -> None:
    counter = counter_for(endpoint("local", tokenizer=f"{GGUF_PREFIX}{bundled_model_path()}"))
    text = "반품은 어떻게 하나요? 返品したいです 🙏"
    assert counter.exact and counter.count(text) == len(local_engine.tokenize(text))
    messages = conversation(3)
    assert counter.conversation(messages) == len(local_engine.render_chat(messages))
    assert COUNTER.conversation(messages) != len(local_engine.render_chat(messages)), "o200k is not it"


def test_trimming_for_the_local_engine_fits_exactly(local_engine: LocalEngine) -> None:
    counter = counter_for(endpoint("local", tokenizer=f"{GGUF_PREFIX}{bundled_model_path()}"))
    arguments = {
        "system": "사실: 평일 오후 2시까지 결제된 주문은 당일 발송됩니다.",
        "history": conversation(40),
        "question": "오늘 주문하면 언제 와요?",
        "context_window": 1500,
        "reply_budget": 256,
    }
    trimmed = trim_to_window(counter, **arguments)  # type: ignore[arg-type]
    seen = len(local_engine.render_chat(trimmed.messages))
    assert trimmed.prompt_tokens == seen <= 1500 - 256
    kept = len(trimmed.messages) - 2
    history = conversation(40)
    with_one_more = [trimmed.messages[0], *history[len(history) - kept - 2 :], trimmed.messages[-1]]
    one_more = len(local_engine.render_chat(with_one_more))
    assert one_more > 1500 - 256, "no room was left unused: one more turn pair would not fit"
    estimated = trim_to_window(COUNTER, **arguments)  # type: ignore[arg-type]
    assert len(local_engine.render_chat(estimated.messages)) > 1500 - 256, "o200k would overflow the window"


@pytest.fixture
async def vllm_like() -> AsyncIterator[LLMGateway]:
    """A non-OpenAI model behind /tokenize, with a vocabulary that spends more tokens on Korean."""
    double = OpenAIDouble(
        {"Qwen/Qwen2.5-7B-Instruct": ScriptedModel(lambda text: "ok", vocabulary="cl100k_base")}
    )
    await double.start()
    gateway = LLMGateway(
        LLMRoles(target=[LLMEndpoint(base_url=double.base_url, model="Qwen/Qwen2.5-7B-Instruct")])
    )
    yield gateway
    await gateway.close()
    await double.stop()


async def test_other_models_are_trimmed_by_their_endpoint_s_own_count(vllm_like: LLMGateway) -> None:
    counter = counter_for(vllm_like.primary(LLMRole.TARGET))
    assert not counter.exact

    async def count(messages: list[dict[str, str]]) -> int:
        return await vllm_like.prompt_tokens(LLMRole.TARGET, messages)

    arguments = {
        "system": "Facts: orders paid by 2 p.m. ship the same day.",
        "history": conversation(40),
        "question": "When does it arrive?",
        "context_window": 1200,
        "reply_budget": 200,
    }
    estimated = trim_to_window(counter, **arguments)  # type: ignore[arg-type]
    assert await count(estimated.messages) > 1000, "the o200k estimate alone would overflow"
    trimmed = await trim_exactly(counter, count, **arguments)  # type: ignore[arg-type]
    assert trimmed.prompt_tokens == await count(trimmed.messages) <= 1000
    assert trimmed.messages[-1]["content"] == "When does it arrive?" and trimmed.messages[1]["role"] == "user"
    assert trimmed.dropped_turns == 80 - (len(trimmed.messages) - 2) > estimated.dropped_turns


async def test_the_endpoint_s_count_drops_a_question_with_its_answer() -> None:
    """The endpoint's count says one turn too many: the oldest question goes with its answer,
    never leaving an answer without its question at the start."""
    counter = counter_for(endpoint("Qwen/Qwen2.5-7B-Instruct"))
    arguments = {"system": "Facts.", "history": conversation(3), "question": "When?", "reply_budget": 10}
    estimate = trim_to_window(counter, context_window=100_000, **arguments).prompt_tokens  # type: ignore[arg-type]
    limit = estimate + 1  # the estimate keeps every turn and is far above half the room

    async def count(messages: list[dict[str, str]]) -> int:
        return limit + 1 if len(messages) > 7 else limit  # one turn fewer would fit

    trimmed = await trim_exactly(counter, count, context_window=limit + 10, **arguments)  # type: ignore[arg-type]
    roles = [message["role"] for message in trimmed.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert trimmed.messages[1:-1] == conversation(3)[2:] and trimmed.dropped_turns == 2


def estimated_prompt(endpoint: LLMEndpoint, request: AnswerRequest) -> TrimResult:
    """The answer prompt trimmed by the o200k estimate alone, a 1,400-token window, 200 to reply."""
    return trim_to_window(
        counter_for(endpoint),
        system=SYSTEM_PROMPT.format(language="English", facts="(none)", faq="(none)"),
        history=request.history,
        question=request.question,
        context_window=1400,
        reply_budget=200,
    )


async def test_the_answer_prompt_fits_by_the_target_s_own_count() -> None:
    """The answerer's prompt builder, not only the helper: a Korean history that fits by o200k's
    count but not by the model's own is trimmed until /tokenize says it fits."""
    double = OpenAIDouble(
        {"Qwen/Qwen2.5-7B-Instruct": ScriptedModel(lambda text: "ok", vocabulary="cl100k_base")}
    )
    await double.start()
    endpoint = LLMEndpoint(base_url=double.base_url, model="Qwen/Qwen2.5-7B-Instruct", context_window=1400)
    gateway = LLMGateway(LLMRoles(target=[endpoint]))
    try:
        builder = PromptBuilder(gateway, reply_budget=200, summarizer=None)
        request = AnswerRequest("When does it arrive?", Language.EN, None, "", history=conversation(40))
        estimated = estimated_prompt(endpoint, request)
        assert await gateway.prompt_tokens(LLMRole.TARGET, estimated.messages) > 1200, "o200k alone overflows"
        report = ReplyReport()
        messages = await builder.trimmed(request, report)
        assert await gateway.prompt_tokens(LLMRole.TARGET, messages) <= 1200
        assert report.dropped_turns > estimated.dropped_turns
    finally:
        await gateway.close()
        await double.stop()


async def test_a_target_that_cannot_count_gets_the_estimated_prompt_and_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """/tokenize down: the reply is not lost for want of a count; the turns the estimate chose
    go, and the log says the size was estimated."""
    double = OpenAIDouble({"Qwen/Qwen2.5-7B-Instruct": ScriptedModel(lambda text: "ok")})
    double.models["Qwen/Qwen2.5-7B-Instruct"].faults.extend(Fault("500", path="/tokenize") for _ in range(9))
    await double.start()
    endpoint = LLMEndpoint(base_url=double.base_url, model="Qwen/Qwen2.5-7B-Instruct", context_window=1400)
    gateway = LLMGateway(LLMRoles(target=[endpoint], retries=0))
    try:
        request = AnswerRequest("When does it arrive?", Language.EN, None, "", history=conversation(40))
        estimated = estimated_prompt(endpoint, request)
        report = ReplyReport()
        with caplog.at_level(logging.WARNING, logger="services.llm.prompts"):
            messages = await PromptBuilder(gateway, reply_budget=200, summarizer=None).trimmed(
                request, report
            )
        assert messages[1:] == estimated.messages[1:] and report.dropped_turns == estimated.dropped_turns > 0
        assert any("prompt size estimated" in record.getMessage() for record in caplog.records)
        assert double.calls("/tokenize"), "the target was asked first"
    finally:
        await gateway.close()
        await double.stop()


async def test_the_answer_prompt_names_every_reply_language() -> None:
    """A Japanese question's prompt asks for Japanese (not the English fallback), and every
    language the bot speaks has its name in the prompt."""
    assert set(LANGUAGE_NAMES) == set(LANGUAGES)
    double = OpenAIDouble({"Qwen/Qwen2.5-7B-Instruct": ScriptedModel(lambda text: "ok")})
    await double.start()
    endpoint = LLMEndpoint(base_url=double.base_url, model="Qwen/Qwen2.5-7B-Instruct", context_window=4000)
    gateway = LLMGateway(LLMRoles(target=[endpoint]))
    try:
        builder = PromptBuilder(gateway, reply_budget=200, summarizer=None)
        request = AnswerRequest("今日注文したらいつ届きますか？", Language.JA, None, "")
        system = (await builder.trimmed(request, ReplyReport()))[0]["content"]
        assert "in Japanese" in system and "in English" not in system, system
    finally:
        await gateway.close()
        await double.stop()


def test_a_prompt_that_fills_the_window_exactly_fits() -> None:
    """The system prompt, the question and the reply budget to the last token: no overflow."""
    fixed = [{"role": "system", "content": "Facts: shipping is 3,000 won."}, {"role": "user", "content": "q"}]
    window = COUNTER.conversation(fixed) + 100
    result = trim_to_window(
        COUNTER, system=fixed[0]["content"], history=[], question="q", context_window=window, reply_budget=100
    )
    assert result.prompt_tokens == window - 100
    with pytest.raises(ContextOverflow):
        trim_to_window(
            COUNTER,
            system=fixed[0]["content"],
            history=[],
            question="q",
            context_window=window - 1,
            reply_budget=100,
        )


async def test_an_endpoint_count_that_fills_the_window_exactly_drops_nothing() -> None:
    estimate = TokenCounter(encoding("o200k_base"), exact=False)
    history = conversation(4)
    arguments = {"system": "Facts.", "history": history, "question": "When?", "reply_budget": 100}
    whole = trim_to_window(estimate, context_window=100_000, **arguments)  # type: ignore[arg-type]
    counted = whole.prompt_tokens + 50  # the endpoint counts 50 more than the estimate does

    async def count(messages: list[dict[str, str]]) -> int:
        return estimate.conversation(messages) + 50

    exact = await trim_exactly(estimate, count, context_window=counted + 100, **arguments)  # type: ignore[arg-type]
    assert exact.dropped_turns == 0 and exact.prompt_tokens == counted
    fewer = await trim_exactly(estimate, count, context_window=counted + 99, **arguments)  # type: ignore[arg-type]
    assert fewer.dropped_turns > 0
    assert fewer.messages[-2] == history[-1], "the oldest turns go: the newest answer stays"
