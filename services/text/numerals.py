"""Numbers written in words or East Asian numerals, read as values.

A reply may say "thirty days", "삼십일", "三十日" or "5만 원" where the shop wrote
"30 days" or "₩50,000"; whatever checks the numbers in a reply must read them
all, or a spelled-out number walks past it. Only the reading lives here; which
words count as numbers in which context is the caller's decision.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

ENGLISH_SMALL = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
COUNTERS = "개|장|벌|세트|잔|권|켤레|박스|병|봉|팩|점|個|点|枚|本|着|セット|つ|箱"
"""The Korean and Japanese words a count of things is written with: "두 개", "2点", "三つ"."""
ENGLISH_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}

# Sino-Korean and Japanese digits; 일 (1) doubles as "day" and 이 (2) as "this", so callers only
# read Hangul numerals in front of a unit.
CJK_DIGITS = {
    "〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
    "영": 0, "공": 0, "일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "륙": 6, "칠": 7,
    "팔": 8, "구": 9,
}  # fmt: skip
CJK_SMALL_UNITS = {"十": 10, "십": 10, "百": 100, "백": 100, "千": 1_000, "천": 1_000}
CJK_LARGE_UNITS = {"万": 10_000, "萬": 10_000, "만": 10_000, "億": 100_000_000, "억": 100_000_000}

NATIVE_KOREAN = {
    "한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "석": 3, "네": 4, "넷": 4, "다섯": 5,
    "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10, "스무": 20, "스물": 20,
}  # fmt: skip
"""Native Korean numbers as used before counters (한 시간, 두 달, 세 시); tens combine: 열두, 스물네."""
NATIVE_KOREAN_DAYS = {
    "하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "이레": 7, "여드레": 8,
    "아흐레": 9, "열흘": 10, "보름": 15,
}  # fmt: skip
"""Native Korean day counts are words of their own: 이틀 is "2 days", no digit in sight."""
KOREAN_PAIRS = {
    "한두": (1, 2), "두세": (2, 3), "서너": (3, 4), "세네": (3, 4), "너덧": (4, 5), "네댓": (4, 5),
    "네다섯": (4, 5), "대여섯": (5, 6), "대엿": (5, 6), "예닐곱": (6, 7), "일고여덟": (7, 8),
    "일여덟": (7, 8), "여덟아홉": (8, 9),
    "일이": (1, 2), "이삼": (2, 3), "삼사": (3, 4), "사오": (4, 5), "오륙": (5, 6), "오육": (5, 6),
    "육칠": (6, 7), "칠팔": (7, 8), "팔구": (8, 9),
}  # fmt: skip
"""Two neighbouring numbers in one word, before a unit: 두세 시간 is "two or three hours", 이삼일 "2-3
days" (Hangul digits only there: 일이 alone is "work")."""
DAY_PAIRS = {
    "하루이틀": (1, 2), "이틀사흘": (2, 3), "사나흘": (3, 4), "너더댓새": (4, 5), "네댓새": (4, 5),
    "대엿새": (5, 6), "예니레": (6, 7), "一両日": (1, 2),
}  # fmt: skip
"""Day counts of two neighbouring numbers in one word: 사나흘 is "three or four days", 一両日 "a day
or two"."""
DAY_WORDS = {"fortnight": 14, "半日": 0.5, "반나절": 0.5}
"""Day counts with no digit: "a fortnight" is 14 days, 半日 and 반나절 half a day."""


def english_value(words: str) -> int:
    """ "thirty-one" -> 31, "two hundred and fifty" -> 250, "1 thousand" is not read here."""
    total, current = 0, 0
    for word in words.lower().replace("-", " ").split():
        if word == "and":
            continue
        if word in ENGLISH_SMALL:
            current += ENGLISH_SMALL[word]
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in ENGLISH_SCALES:
            total += (current or 1) * ENGLISH_SCALES[word]
            current = 0
        else:
            raise ValueError(f"{word!r} is not an English number word")
    return total + current


def cjk_value(text: str) -> Decimal:
    """Digits, kanji and Sino-Korean numerals with their place units: "5만" -> 50000,
    "1万2千" -> 12000, "삼십" -> 30, "120만" -> 1200000, "三十" -> 30, "59,000" -> 59000.

    Raises ValueError for text that is not one number (a dangling comma, two decimal points).
    """
    total, section = Decimal(0), Decimal(0)
    current: Decimal | None = None
    index, compact = 0, text.replace(" ", "")
    if not compact:
        raise ValueError("no number")
    while index < len(compact):
        char = compact[index]
        if char.isdigit():
            end = index
            while end < len(compact) and (compact[end].isdigit() or compact[end] in ",."):
                end += 1
            current = _arabic(compact[index:end])
            index = end
            continue
        if char in CJK_DIGITS:
            current = Decimal(CJK_DIGITS[char])
        elif char in CJK_SMALL_UNITS:
            section += (Decimal(1) if current is None else current) * CJK_SMALL_UNITS[char]
            current = None
        elif char in CJK_LARGE_UNITS:
            block = section + (current or 0)
            total += (block or Decimal(1)) * CJK_LARGE_UNITS[char]
            section, current = Decimal(0), None
        else:
            raise ValueError(f"{char!r} is not a numeral")
        index += 1
    return total + section + (current or 0)


def native_korean_value(text: str) -> int:
    """ "열두" -> 12, "스물네" -> 24, "한" -> 1, "이틀" -> 2."""
    word = text.replace(" ", "")
    if word in NATIVE_KOREAN_DAYS:
        return NATIVE_KOREAN_DAYS[word]
    for tens in ("스물", "스무", "열"):
        if word.startswith(tens) and word != tens:
            return NATIVE_KOREAN[tens] + NATIVE_KOREAN[word[len(tens) :]]
    if word in NATIVE_KOREAN:
        return NATIVE_KOREAN[word]
    raise ValueError(f"{text!r} is not a native Korean number")


def _arabic(text: str) -> Decimal:
    """ "59,000" and "19.99"; commas only as thousands separators."""
    head, _, tail = text.partition(".")
    groups = head.split(",")
    if len(groups) > 1 and (not 1 <= len(groups[0]) <= 3 or any(len(g) != 3 for g in groups[1:])):
        raise ValueError(f"{text!r} is not one number")
    try:
        return Decimal("".join(groups) + ("." + tail if tail else ""))
    except InvalidOperation:
        raise ValueError(f"{text!r} is not one number") from None
