"""The one normalisation every cue and the word index read customer text through."""

from __future__ import annotations

import pytest

from services.text.normalize import normalize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("해외배송 되나여?", "해외배송 되나요?"),
        ("재고 있나용?", "재고 있나요?"),
        ("배송비 얼마에여", "배송비 얼마에요"),
        ("안녕하세여~", "안녕하세요~"),
        ("ＳＫＵ－７８９０  재고", "sku-7890 재고"),
    ],
)
def test_chat_spellings_and_full_width_forms_are_read_as_written_properly(text: str, expected: str) -> None:
    assert normalize(text) == expected


@pytest.mark.parametrize(
    "word", ["사용법", "이용 약관", "내용 확인", "비용이 얼마", "가용 재고", "여기", "여름 세일"]
)
def test_words_that_merely_end_in_the_same_syllables_stay(word: str) -> None:
    assert normalize(word) == word


def test_text_without_hangul_is_only_folded() -> None:
    assert normalize("Do You Ship  Internationally?") == "do you ship internationally?"
