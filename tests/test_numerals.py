"""Numbers in words and East Asian numerals, read as values (the fact guard relies on these)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from services.text.numerals import cjk_value, english_value, native_korean_value


@pytest.mark.parametrize(
    ("words", "value"),
    [("thirty", 30), ("thirty-one", 31), ("twenty four", 24), ("one hundred and fifty", 150),
     ("two thousand five hundred", 2500), ("million", 1_000_000)],
)  # fmt: skip
def test_english_number_words(words: str, value: int) -> None:
    assert english_value(words) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [("5만", 50_000), ("120만", 1_200_000), ("1만 2천", 12_000), ("1万5000", 15_000), ("삼십", 30),
     ("三十", 30), ("이천오백", 2500), ("二千五百", 2500), ("59,000", 59_000), ("19.99", Decimal("19.99")),
     ("1.5만", 15_000), ("십", 10), ("一億", 100_000_000)],
)  # fmt: skip
def test_cjk_numerals_with_place_units(text: str, value: int | Decimal) -> None:
    assert cjk_value(text) == value


@pytest.mark.parametrize("text", ["1,2", "1.2.3", "", "5개"])
def test_what_is_not_one_number_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        cjk_value(text)


@pytest.mark.parametrize(
    ("word", "value"), [("한", 1), ("두", 2), ("열두", 12), ("스물네", 24), ("이틀", 2), ("보름", 15)]
)
def test_native_korean_numbers(word: str, value: int) -> None:
    assert native_korean_value(word) == value
