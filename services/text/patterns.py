"""Word lists as one regular expression."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypeVar

_T = TypeVar("_T")

NOT_BEFORE_ITS_DAY = r"(?!(?<=[ap]\.m\.)\s+(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?\b)"
"""After a stop: not the "p.m." of a time its day follows ("a 1 p.m. Tuesday order"), which ends no
sentence."""
CJK = re.compile(r"[\uac00-\ud7a3\u3040-\u30ff\u4e00-\u9fff]")
"""A Hangul syllable, kana or a CJK ideograph: text in Korean or Japanese."""


def any_of(*patterns: str) -> re.Pattern[str]:
    """One case-insensitive pattern matching any of `patterns` (each its own group, so an
    alternative's `|` stays inside it)."""
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


def named_in(text: str, words: Iterable[tuple[_T, re.Pattern[str]]]) -> frozenset[_T]:
    """Every thing of `words` (each with the pattern of its names) that `text` names."""
    return frozenset(thing for thing, pattern in words if pattern.search(text))
