"""Exact token counts (offline) and trimming long Korean/Japanese conversations."""

from __future__ import annotations

import pytest

from services.llm.tokens import ContextOverflow, TokenCounter, encoding, encoding_name_for, trim_to_window

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
