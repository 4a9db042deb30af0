"""The colours a reply names must be ones the shop's text names: "アイボリーとグレーの2色から
お選びいただけます" is invented of a tablecloth whose catalogue line names no colour.

A colour is no number, so the fact guard's reading of numbers passes it by; a customer told a
product comes in grey orders it, or asks to exchange for it. Each colour is known by its names in
Korean, English and Japanese ("grey", "그레이", "회색", "グレー"); a colour a reply names that neither
the sources nor the customer's own words name is unsupported. Words that hold a colour's name but
mean something else are not read ("Black Friday", "面白い", "赤ちゃん"); gold is a membership here,
not a colour.
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum

from services.llm.fact_claims import SOURCES_KEPT
from services.text.numerals import CJK_DIGITS, ENGLISH_SMALL, NATIVE_KOREAN
from services.text.patterns import any_of, named_in


class Colour(StrEnum):
    WHITE = "white"
    BLACK = "black"
    GREY = "grey"
    IVORY = "ivory"
    BEIGE = "beige"
    NAVY = "navy"
    BLUE = "blue"
    RED = "red"
    GREEN = "green"
    PINK = "pink"
    BROWN = "brown"
    YELLOW = "yellow"
    PURPLE = "purple"
    ORANGE = "orange"
    CHARCOAL = "charcoal"
    KHAKI = "khaki"
    SILVER = "silver"


_NAMES: list[tuple[Colour, re.Pattern[str]]] = [
    (
        Colour.WHITE,
        any_of(r"\bwhite\b", r"화이트|흰색|하얀", r"ホワイト|(?<![面明空告])白(?:色|い|と|や|の2色)|純白"),
    ),
    (
        Colour.BLACK,
        any_of(
            r"\bblack\b(?!\s*friday)",
            r"블랙(?!\s*프라이데이)|검정|검은",
            r"ブラック(?!フライデー)|黒(?:色|い|と|や)",
        ),
    ),
    (Colour.GREY, any_of(r"\bgr[ae]y\b", r"(?<!업)그레이(?!드)|회색", r"グレー|グレイ|灰色")),
    (Colour.IVORY, any_of(r"\bivory\b", r"아이보리", r"アイボリー")),
    (Colour.BEIGE, any_of(r"\bbeige\b", r"베이지", r"ベージュ")),
    (Colour.NAVY, any_of(r"\bnavy\b", r"네이비|남색", r"ネイビー|紺色")),
    (Colour.BLUE, any_of(r"\bblue\b", r"블루|파란|파랑", r"ブルー|青(?:色|い)")),
    (Colour.RED, any_of(r"\bred\b", r"레드|빨간|빨강", r"レッド|赤(?:色|い)")),
    (Colour.GREEN, any_of(r"\bgreen\b", r"그린(?!\s*티)|초록|녹색", r"グリーン|緑色?")),
    (Colour.PINK, any_of(r"\bpink\b", r"핑크|분홍", r"ピンク")),
    (Colour.BROWN, any_of(r"\bbrown\b", r"브라운|갈색", r"ブラウン|茶色")),
    (Colour.YELLOW, any_of(r"\byellow\b", r"옐로우?|노란|노랑", r"イエロー|黄色")),
    (Colour.PURPLE, any_of(r"\bpurple\b", r"퍼플|보라", r"パープル|紫色?")),
    (Colour.ORANGE, any_of(r"\borange\b", r"오렌지색|주황", r"オレンジ色?")),
    (Colour.CHARCOAL, any_of(r"\bcharcoal\b", r"차콜", r"チャコール")),
    (Colour.KHAKI, any_of(r"\bkhaki\b", r"카키", r"カーキ")),
    (Colour.SILVER, any_of(r"\bsilver\b", r"실버|은색", r"シルバー|銀色")),
]


@functools.lru_cache(maxsize=SOURCES_KEPT)
def colours(text: str) -> frozenset[Colour]:
    """Every colour `text` names."""
    return named_in(text, _NAMES)


_COUNTED = any_of(
    rf"\b(?P<en>\d+|{'|'.join(ENGLISH_SMALL)}) (?:different |lovely |colou?r )?"
    r"(?:colou?rs|colou?rways|shades)\b",
    rf"(?P<ko>\d+|{'|'.join(NATIVE_KOREAN)})\s?(?:가지\s?)?(?:색상|색깔|컬러|색(?![가-힣]{2}))"
    rf"|(?:색상|색깔|컬러)(?:은|는|이|가)?\s?(?P<ko2>\d+|{'|'.join(NATIVE_KOREAN)})\s?가지",
    rf"(?P<ja>\d+|[{''.join(CJK_DIGITS)}])\s?(?:色|カラー)(?:展開|から|の|で|が|を|です|ございます|あり|$)",
)
"""A count of colours: "comes in three colours", "세 가지 색상", "색상은 2가지", "3色展開"."""


def colour_counts(text: str) -> frozenset[int]:
    """The counts of colours `text` gives ("available in three colours": 3), from two on: "한 가지
    색상만 골라 주세요" asks for a choice, not a count of what there is."""
    found = set()
    for match in _COUNTED.finditer(text):
        word = next(group for group in match.groups() if group)
        if word.isdigit():
            found.add(int(word))
        else:
            found.add(ENGLISH_SMALL.get(word.lower()) or NATIVE_KOREAN.get(word) or CJK_DIGITS.get(word, 0))
    return frozenset(count for count in found if count > 1)
