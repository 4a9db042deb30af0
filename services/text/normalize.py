"""One normalisation for everything that matches customer text."""

from __future__ import annotations

import re
import unicodedata

from services.text.sentences import Language

_SPACES = re.compile(r"\s+")
HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
KANA = re.compile(r"[\u3040-\u30ff]")


_CHAT_POLITE_ENDING = re.compile(r"(?<=[나에해돼되세까죠래데있없줘])[여용](?![\uac00-\ud7a3])")
"""Chat spellings of the polite ending 요: "해외배송 되나여?", "재고 있나용?". Only after the syllables
that end a polite question or statement, and only at the end of a word, so 사용, 이용, 내용 and 비용
stay as they are."""


def normalize(text: str) -> str:
    """NFKC (full-width digits and letters become ASCII), lower case, single spaces, 요 for its chat
    spellings (every cue and the word index then read "되나여" as "되나요")."""
    clean = _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip().lower()
    return _CHAT_POLITE_ENDING.sub("요", clean)  # its look-behind is Hangul: other text passes as is


CJK_IDEOGRAPH = re.compile(r"[\u4e00-\u9fff]")


def detect_language(text: str) -> Language:
    """`ko` when the customer writes any Hangul, `ja` for kana (or kanji without Hangul), else `en`.

    Mixed Korean-Japanese messages are answered in Korean: Hangul is the surer
    sign of who is writing.
    """
    if HANGUL.search(text):
        return Language.KO
    if KANA.search(text) or CJK_IDEOGRAPH.search(text):
        return Language.JA
    return Language.EN
