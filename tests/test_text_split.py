from __future__ import annotations

import pytest

from services.text.split import split_text


def test_short_text_is_one_part() -> None:
    assert split_text("hello") == ["hello"]


def test_paragraphs_are_preferred() -> None:
    text = "a" * 3000 + "\n\n" + "b" * 3000
    assert split_text(text) == ["a" * 3000, "b" * 3000]


def test_sentences_then_words() -> None:
    text = ("배송은 내일 도착합니다. " * 400).strip()
    parts = split_text(text)
    assert all(len(p) <= 4096 for p in parts)
    assert all(p.endswith("다.") for p in parts)
    assert " ".join(parts) == text


@pytest.mark.parametrize("length", [4096, 4097, 10_000])
def test_no_boundary_cuts_hard_and_loses_nothing(length: int) -> None:
    text = "가" * length
    parts = split_text(text)
    assert "".join(parts) == text and all(len(p) <= 4096 for p in parts)
