"""One normalisation for everything that matches customer text."""

from __future__ import annotations

import re
import unicodedata

_SPACES = re.compile(r"\s+")
HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
KANA = re.compile(r"[\u3040-\u30ff]")


def normalize(text: str) -> str:
    """NFKC (full-width digits and letters become ASCII), lower case, single spaces."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip().lower()


CJK_IDEOGRAPH = re.compile(r"[\u4e00-\u9fff]")


def detect_language(text: str) -> str:
    """`ko` when the customer writes any Hangul, `ja` for kana (or kanji without Hangul), else `en`.

    Mixed Korean-Japanese messages are answered in Korean: Hangul is the surer
    sign of who is writing.
    """
    if HANGUL.search(text):
        return "ko"
    if KANA.search(text) or CJK_IDEOGRAPH.search(text):
        return "ja"
    return "en"
