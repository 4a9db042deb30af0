"""The consonants of a word, alike in Latin letters, Hangul and katakana.

A loanword keeps the consonants of the word it borrows and changes its vowels: "towel" is 타월 in
Korean and タオル in Japanese, "mug" 머그 and マグ, "tablecloth" 테이블클로스 and テーブルクロス. Written
down as consonant classes, voiced and voiceless alike (g/k, d/t, b/p/f/v), r and l alike, h, w and
y and the vowels dropped, runs of one class made one, each of those is the same string: "TR",
"MK", "TPRKRS". That is enough to tell which of a few names a word is; it is no transliteration.
"""

from __future__ import annotations

import functools
import re

WORDS_KEPT = 4096
"""The words whose sounds are kept: the names of the sources and the words of replies, read again
reply after reply."""

_LATIN_RULES = (
    ("ph", "P"),
    ("th", "S"),
    ("sh", "S"),
    ("ch", "J"),
    ("ck", "K"),
    ("ng", "N"),
    ("x", "KS"),
)
_LATIN = {
    **dict.fromkeys("bpfv", "P"),
    **dict.fromkeys("dt", "T"),
    **dict.fromkeys("cgkq", "K"),
    **dict.fromkeys("sz", "S"),
    **dict.fromkeys("lr", "R"),
    "j": "J",
    "m": "M",
    "n": "N",
}
_SOFT_C = re.compile(r"c(?=[eiy])")

_INITIALS = "KKNTTRMPPSS-JJJKTP-"
"""ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"""
_FINALS: tuple[str, ...] = ("", *"KKKNNNTRKMRRRPRMPPTT", "N", *"TTKTP", "")
"""None, ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆ, then ㅇ (ng) ㅈㅊㅋㅌㅍㅎ: as a loanword's last consonant
is written (캣, 북, 롱)."""

_KANA_ROWS = {
    "K": "カキクケコガギグゲゴヵヶ",
    "S": "サシスセソザズゼゾツヅ",
    "J": "ジチヂ",
    "T": "タテトダデド",
    "N": "ナニヌネノン",
    "P": "フバビブベボパピプペポヴ",
    "M": "マミムメモ",
    "R": "ラリルレロ",
}
_KANA = {kana: sound for sound, row in _KANA_ROWS.items() for kana in row}
"""The katakana with a consonant (ハヒヘホ and the vowel, y and w rows have none; フ is f)."""


_RUN = re.compile(r"(.)\1+")


def _collapsed(sounds: str) -> str:
    return _RUN.sub(r"\1", sounds)


def _latin(word: str) -> str:
    word = _SOFT_C.sub("s", word.lower())
    sounds = []
    while word:
        spelled = next((rule for rule in _LATIN_RULES if word.startswith(rule[0])), None)
        if spelled is not None:
            sounds.append(spelled[1])
            word = word[len(spelled[0]) :]
        else:
            sounds.append(_LATIN.get(word[0], ""))
            word = word[1:]
    return "".join(sounds)


def _hangul(syllable: str) -> str:
    index = ord(syllable) - 0xAC00
    initial = _INITIALS[index // 588]
    return ("" if initial == "-" else initial) + _FINALS[index % 28]


_PIECE = re.compile(r"[A-Za-z]+|.", re.DOTALL)


@functools.lru_cache(maxsize=WORDS_KEPT)
def consonants(word: str) -> str:
    """`word`'s consonant classes ("towel", "타월" and "タオル" are all "TR"); letters of other
    scripts (kanji, hiragana) give none."""
    sounds = []
    for piece in _PIECE.findall(word):
        if piece.isascii() and piece.isalpha():
            sounds.append(_latin(piece))
        elif "\uac00" <= piece <= "\ud7a3":
            sounds.append(_hangul(piece))
        else:
            sounds.append(_KANA.get(piece, ""))
    return _collapsed("".join(sounds))
