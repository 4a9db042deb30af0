"""The FAQ's gaps: questions the bot answered with "I don't know", grouped by what they ask.

Grouping is by character bigrams (Jaccard similarity), which works the same for
Korean and Japanese (no spaces between words) as for English, and needs no model:
"환불 언제 되나요?" and "환불은 언제 되나요" land in one group. Greedy and
frequency-first, so each group is named by its most-asked phrasing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from services.text.normalize import normalize

SIMILAR = 0.5
_NOT_WORD = re.compile(r"[^\w]+")


@dataclass
class QuestionGroup:
    example: str
    count: int = 0
    variants: list[str] = field(default_factory=list)
    language_hint: str = ""
    _grams: frozenset[str] = frozenset()


def _key(text: str) -> str:
    return _NOT_WORD.sub("", normalize(text))


def _bigrams(key: str) -> frozenset[str]:
    return frozenset(key[i : i + 2] for i in range(len(key) - 1)) if len(key) > 1 else frozenset({key})


def _similarity(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def group_questions(questions: Iterable[str], *, limit: int = 20) -> list[QuestionGroup]:
    """The most frequent unanswered questions, similar phrasings counted together."""
    exact: Counter[str] = Counter()
    first_seen: dict[str, str] = {}
    for question in questions:
        key = _key(question)
        if not key:
            continue
        exact[key] += 1
        first_seen.setdefault(key, " ".join(question.split()))
    groups: list[QuestionGroup] = []
    for key, count in exact.most_common():
        grams = _bigrams(key)
        home = next((g for g in groups if _similarity(g._grams, grams) >= SIMILAR), None)
        if home is None:
            home = QuestionGroup(first_seen[key], _grams=grams)
            groups.append(home)
        home.count += count
        if len(home.variants) < 5 and first_seen[key] != home.example:
            home.variants.append(first_seen[key])
    groups.sort(key=lambda g: -g.count)
    return groups[:limit]
