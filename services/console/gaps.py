"""The FAQ's gaps: questions the bot answered with "I don't know", grouped by what they ask.

Grouping is by character bigrams (Jaccard similarity), which works the same for
Korean and Japanese (no spaces between words) as for English, and needs no model:
"환불 언제 되나요?" and "환불은 언제 되나요" land in one group. The way a question is
asked is taken off first (`_ASKING`): "선물 포장 되나요?", "선물 포장 가능한가요?" and "선물포장
해주시나요?" all ask about 선물포장, and "ギフト包装できますか" and "ギフト包装はありますか" about
ギフト包装. Greedy and frequency-first, so each group is named by its most-asked phrasing.
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
    _topics: set[str] = field(default_factory=set)


_ASKING = re.compile(
    r"(?:"
    # 가능한가요, 되나요, 해주시나요, 있나요
    r"(?:가능|될|되|할|해|하|받을|있|없)[가-힣]{0,4}(?:요|까|니|나|죠|지)"
    r"|(?:でき|あり|ござい|いただけ|もらえ|くれ)[ぁ-ん]{0,6}"  # できますか, ありますか
    r"|(?:ですか|でしょうか|ますか)"
    r")$"
)
_PARTICLE = re.compile(r"(?:은|는|이|가|을|를|도|は|を|が|も|って|の)$")
_ENGLISH_ASKING = re.compile(
    r"^(?:(?:hi|hello|hey)\s+)?(?:can|could|do|does|is|are|will)\s+(?:i|you|we|there|it)\s+(?:get|have|do|offer|be)?\s*"
)


def _key(text: str) -> str:
    return _NOT_WORD.sub("", normalize(text))


def _topic(text: str) -> str:
    """What a question asks about, without how it asks: its key less the asking ending."""
    key = _NOT_WORD.sub("", _ENGLISH_ASKING.sub("", normalize(text)))
    for _ in range(2):  # "포장은 가능한가요": the ending, then its particle
        stripped = _PARTICLE.sub("", _ASKING.sub("", key))
        if len(stripped) < 2 or stripped == key:
            break
        key = stripped
    return key


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
        topic = _topic(first_seen[key])
        home = next(
            (g for g in groups if topic in g._topics or _similarity(g._grams, grams) >= SIMILAR), None
        )
        if home is None:
            home = QuestionGroup(first_seen[key], _grams=grams)
            groups.append(home)
        home._topics.add(topic)
        home.count += count
        if len(home.variants) < 5 and first_seen[key] != home.example:
            home.variants.append(first_seen[key])
    groups.sort(key=lambda g: -g.count)
    return groups[:limit]
