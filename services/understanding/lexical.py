"""Lexical evidence: which texts share the customer's words.

One term extractor and one TF-IDF index for everything that compares words (the
intent classifier's examples and the FAQ matcher's entries). Korean particles
attach to stems and Japanese has no spaces, so CJK runs become overlapping
character bigrams; Latin words lose a plural or -ing/-ed ending so "returns",
"returned" and "return" meet.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from services.text.normalize import normalize

_LATIN = re.compile(r"[a-z0-9]+")
_CJK_RUN = re.compile(r"[\uac00-\ud7a3\u3040-\u30ff\u4e00-\u9fff]+")
_STOPWORDS = frozenset(
    "a an the i my me we you your is are am was do does did can could would should how what when where "  # noqa: SIM905
    "which who why to of for in on at it its and or if be been will with this that there please hi "
    "hello so any some have has had get got i'm im us our they them by from as about not no yes "
    "policy policies info information detail details rule rules process procedure question questions "
    "cost costs price prices fee fees charge charges".split()
)
_SUFFIXES = ("ing", "ed", "es", "s")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def terms(text: str) -> list[str]:
    """Latin word stems plus CJK character bigrams (a lone CJK character stands for itself); stopwords
    and Korean function words (`_FUNCTION_WORDS`) carry no topic and are left out."""
    return list(_terms(text))


@lru_cache(maxsize=64)
def _terms(text: str) -> tuple[str, ...]:
    """Each message is split four times (the classifier's two lexical models, the FAQ matcher's
    two indexes): the last few splits are kept."""
    clean = normalize(text)
    found = [_stem(word) for word in _LATIN.findall(clean) if word not in _STOPWORDS]
    for run in _CJK_RUN.findall(clean):
        if run in _FUNCTION_WORDS:  # "알려주세요", "어떻게": their bigrams matched whichever entry had them
            continue
        found.extend(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return tuple(found)


class TfidfIndex:
    """Sublinear TF-IDF cosine over an inverted index: a query costs its own terms' postings."""

    def __init__(self, texts: Iterable[str]) -> None:
        bags = [Counter(terms(text)) for text in texts]
        self.size = len(bags)
        frequency: Counter[str] = Counter(term for bag in bags for term in bag)
        self._idf = {term: math.log(1 + self.size / df) for term, df in frequency.items()}
        self._postings: dict[str, list[tuple[int, float]]] = {}
        for number, bag in enumerate(bags):
            for term, weight in self._weigh(bag).items():
                self._postings.setdefault(term, []).append((number, weight))

    def _weigh(self, bag: Counter[str]) -> dict[str, float]:
        vector = {term: (1 + math.log(n)) * self._idf.get(term, 0.0) for term, n in bag.items()}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {term: v / norm for term, v in vector.items() if v}

    def knows(self, term: str) -> bool:
        """Whether any indexed text has the term."""
        return term in self._idf

    def rarity(self, term: str) -> float:
        """The term's inverse document frequency; a term no indexed text has counts as the rarest."""
        return self._idf.get(term, math.log(1 + self.size))

    def similarities(self, text: str) -> dict[int, float]:
        """Cosine similarity of `text` to every indexed text that shares a term with it."""
        scores: dict[int, float] = {}
        for term, weight in self._weigh(Counter(terms(text))).items():
            for number, other in self._postings.get(term, ()):
                scores[number] = scores.get(number, 0.0) + weight * other
        return scores


def best_per_group(similarities: dict[int, float], groups: Sequence[int], count: int) -> list[float]:
    """The highest similarity per group (intent, FAQ entry) of the indexed texts."""
    best = [0.0] * count
    for number, score in similarities.items():
        group = groups[number]
        if score > best[group]:
            best[group] = score
    return best


_FUNCTION_WORDS = frozenset(
    "할 수 있나요 있어요 있나 되나요 돼요 해요 하나요 알려주세요 알려 주세요 어떻게 뭐예요 뭐 언제 얼마나 "  # noqa: SIM905
    "주세요 싶어요 가능한가요 가능해요 가능 저 제 좀 그 이 거 것 있을까요 되요 하고 해도 "
    "정책 정책이 정책은 정책을 규정 규정이 규정은 규정을 방침 방침이 방침은 절차 절차가 절차는 안내 정보 "
    "know want need like tell much many way anything something thing".split()
)


class TermLikelihood:
    """Naive Bayes over the same terms: how typical each of a message's terms is of each group.

    Nearest-example TF-IDF asks "which single example shares the most words";
    this asks "which group uses these words", pooling every example of a group.
    It matters most for Korean and Japanese, where one stem ("반품", "返品")
    decides the intent but the rest of a short message ("택배 언제 ... 가요?")
    overlaps a different intent's nearest example.
    """

    SMOOTHING = 0.5

    def __init__(self, texts: Iterable[str], groups: Sequence[int], count: int) -> None:
        documents = [Counter(set(terms(text))) for text in texts]
        per_group: list[Counter[str]] = [Counter() for _ in range(count)]
        for bag, group in zip(documents, groups, strict=True):
            per_group[group].update(bag)
        vocabulary = set().union(*per_group)
        self._count = count
        self._log_probability: list[dict[str, float]] = []
        self._unseen: list[float] = []
        for bag in per_group:
            denominator = sum(bag.values()) + self.SMOOTHING * max(1, len(vocabulary))
            self._log_probability.append(
                {term: math.log((n + self.SMOOTHING) / denominator) for term, n in bag.items()}
            )
            self._unseen.append(math.log(self.SMOOTHING / denominator))

    def log_likelihoods(self, text: str) -> list[float]:
        """Mean log-probability of the message's distinct terms under each group (0s when it has none)."""
        found = set(terms(text))
        if not found:
            return [0.0] * self._count
        return [
            sum(table.get(term, unseen) for term in found) / len(found)
            for table, unseen in zip(self._log_probability, self._unseen, strict=True)
        ]
