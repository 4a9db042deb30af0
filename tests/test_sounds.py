"""A word's consonants, alike in Latin letters, Hangul and katakana (`services.text.sounds`)."""

from __future__ import annotations

import pytest

from services.text.sounds import consonants


@pytest.mark.parametrize(
    ("words", "sound"),
    [
        (("towel", "타월", "타올", "タオル"), "TR"),
        (("mug", "머그", "マグ"), "MK"),
        (("teapot", "티포트", "ティーポット"), "TPT"),
        (("tablecloth", "테이블클로스", "テーブルクロス"), "TPRKRS"),  # th as s, r and l alike
        (("cotton", "코튼", "コットン"), "KTN"),  # a doubled consonant and ッ are one
        (("ceramic", "세라믹", "セラミック"), "SRMK"),  # c before e is s; a final ㄱ is k
        (("cushion", "쿠션", "クッション"), "KSN"),
        (("blanket", "블랭킷", "ブランケット"), "PRNKT"),  # ng as n; a final ㅅ is t
        (("chair", "체어", "チェア"), None),  # Korean and Japanese drop the r: no match, no harm
        (("photo", "포토", "フォト"), "PT"),  # ph and フ are f, f is p
    ],
)
def test_a_loanword_keeps_the_consonants_it_borrows(words: tuple[str, ...], sound: str | None) -> None:
    heard = {consonants(word) for word in words}
    if sound is None:
        assert len(heard) > 1
    else:
        assert heard == {sound}


def test_other_scripts_and_vowels_give_nothing() -> None:
    assert consonants("鍋") == ""
    assert consonants("あいう") == ""
    assert consonants("아이어") == ""
    assert consonants("Eau") == ""
    assert consonants("box") == "PKS"  # x is two
    assert consonants("캣") == "KT"
    assert consonants("롱") == "RN"
