"""What a product may be used with or washed in must be what the sources say: "食洗機にも電子レンジにも
対応しています" is unsupported where the catalogue says nothing of dishwashers.

A use is no number, so the fact guard's reading of numbers passes it by, and a customer who puts a
mug the shop never said was microwave-safe in the microwave on the bot's word has been told a fact
the shop never gave. Each use is known by its words in Korean, English and Japanese; a sentence of
a reply naming a use the sources never name is unsupported, unless it says the bot does not know
("IH対応につきましては、こちらでご案内できる情報がございません", "I don't have details about oven
use"). Whether the sources allow or forbid the use is not read: naming it is enough.
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum

from services.llm.fact_claims import SOURCES_KEPT
from services.text.patterns import any_of, named_in


class Use(StrEnum):
    DISHWASHER = "dishwasher"
    MICROWAVE = "microwave"
    OVEN = "oven"
    INDUCTION = "induction hob"
    OPEN_FLAME = "open flame"
    FREEZER = "freezer"
    WASHING_MACHINE = "washing machine"
    TUMBLE_DRYER = "tumble dryer"


_WORDS: list[tuple[Use, re.Pattern[str]]] = [
    (Use.DISHWASHER, any_of(r"dish\s?washer", r"식기\s?세척기|식세기", r"食洗機|食器洗い(?:乾燥)?機")),
    (Use.MICROWAVE, any_of(r"microwave", r"전자\s?레인지", r"電子レンジ|レンジ(?:対応|可|OK|で温め)")),
    (Use.OVEN, any_of(r"\bovens?\b|oven-(?:safe|proof)", r"오븐", r"オーブン")),
    (
        Use.INDUCTION,
        any_of(
            r"\binduction\b",
            r"인덕션",
            r"(?-i:\bIH\b|IH(?:にも|に|でも)?(?:対応|調理器|クッキングヒーター|使用|使え|お使い))",
        ),
    ),
    (
        Use.OPEN_FLAME,
        any_of(
            r"\b(?:gas (?:hob|stove|flame)|open flame)\b",
            r"직화|가스\s?(?:레인지|불)",
            r"直火|ガス(?:火|コンロ)",
        ),
    ),
    (Use.FREEZER, any_of(r"\bfreezer\b", r"냉동(?:실|고)", r"冷凍庫")),
    (Use.WASHING_MACHINE, any_of(r"machine[- ]wash", r"세탁기", r"洗濯機")),
    (Use.TUMBLE_DRYER, any_of(r"tumble[- ]dr", r"(?<!식기\s)건조기", r"(?<!洗い)乾燥機")),
]
_UNKNOWN = any_of(
    r"\b(?:don't|do not|doesn't|does not) (?:have|list|say|mention)"
    r"|\bnot (?:sure|listed|stated|in (?:my|our))|\bno (?:information|details|info)\b"
    r"|\b(?:can't|cannot|can not|couldn't) (?:confirm|say|tell)"
    r"|\bcheck with\b|\bunsure\b",
    r"정보(?:가|는)?\s?(?:없|확인되지|나와\s?있지)|확인(?:이|이\s)?\s?(?:어렵|안\s?되|되지\s?않)|안내(?:해\s?)?(?:드리기|하기)\s?어렵"
    r"|모르겠|알\s?수\s?없|확인\s?후\s?(?:안내|알려)|문의해?\s?(?:주세요|주시|보시)",
    r"情報(?:が|は)?(?:ございません|ありません|ない|見当たりません)|わかりかね|分かりかね|確認(?:でき|いたしかね|が取れ)"
    r"|ご案内(?:でき|いたしかね)|お答え(?:でき|いたしかね)|手元の情報に|お問い合わせ(?:ください|いただけ)",
)


@functools.lru_cache(maxsize=SOURCES_KEPT)
def uses(text: str) -> frozenset[Use]:
    """Every use `text` names."""
    return named_in(text, _WORDS)


def uses_claimed(sentences: list[str]) -> frozenset[Use]:
    """The uses named by those of `sentences` that do not say the bot does not know."""
    return frozenset().union(*(uses(sentence) for sentence in sentences if not _UNKNOWN.search(sentence)))
