"""The checkable claims in a text: amounts, durations, times, dates, phone and order numbers, addresses.

Each claim carries canonical keys, so forms that mean the same thing compare
equal ("010 1234 5678" and "+82-10-1234-5678"; "December 1, 2026", "2026년 12월 1일"
and "2026-12-01"; "1 to 2 days" and "1~2일"; "thirty days", "삼십일" and "30 days")
while a number never stands for another unit ("$59,000" is not "₩59,000", "5 days"
is not "5%", "2 weeks" is not "2 p.m."). A claim *needs* one of its keys in the
sources and *offers* its keys (plus weaker ones: a full date offers its month and
day, a range its endpoints) when it is itself a source.

Text is read pass by pass, each masking what it took, so a phone number or a date
is never read again as loose numbers: addresses, phone numbers, dates, order
numbers and other identifiers, quantities (ranges joined), then any digit left.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal

from services.shop.phone import normalize_phone
from services.text.numerals import (
    CJK_DIGITS,
    DAY_PAIRS,
    DAY_WORDS,
    ENGLISH_SCALES,
    ENGLISH_SMALL,
    KOREAN_PAIRS,
    NATIVE_KOREAN_DAYS,
    cjk_value,
    english_value,
    native_korean_value,
)


@dataclass(frozen=True)
class Claim:
    text: str
    """As written (after NFKC and whitespace folding)."""
    shown: str
    """The canonical reading, for the log: "2500 KRW", "14 day", "2026-12-01"."""
    needs: frozenset[str]
    """One of these must be among the sources' offers."""
    offers: frozenset[str]


def reading_kind(reading: str) -> str:
    """What a reading (a need or an offer) is a number of: "KRW" of "KRW:2500", "day" of "day:14"."""
    return reading.partition(":")[0]


MASK = "\x00"
"""Masked text can neither start nor join a match (it is not a word character, a digit or a space)."""

# ---------------------------------------------------------------- addresses
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_URL_CHARS = r"[A-Za-z0-9\-._~:/?#\[\]@!$&*+,;=%]"
_URL = re.compile(rf"(?:https?://|www\.){_URL_CHARS}+", re.IGNORECASE)
_TLDS = (
    "com|net|org|edu|gov|int|kr|jp|cn|tw|hk|sg|us|uk|de|fr|io|co|ai|me|app|dev|shop|store|"
    "example|info|biz|xyz|online|site|link|page|tv|cc|ly|gl|to|eu|asia|global|mall|kakao|naver"
)
_DOMAIN = re.compile(
    rf"(?<![A-Za-z0-9@./\-])(?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.)+(?:{_TLDS})(?![A-Za-z0-9\-])"
    rf"(?:/{_URL_CHARS}*)?",
    re.IGNORECASE,
)
_TRAILING_PUNCTUATION = ".,;:!?"


def _url_keys(url: str) -> tuple[str, str]:
    """(as written, without the scheme), host lower-cased, trailing slash dropped."""
    scheme, _, rest = url.rpartition("://")
    host, slash, path = rest.partition("/")
    bare = host.lower() + (slash + path).rstrip("/")
    return (f"url:{scheme.lower()}://{bare}" if scheme else f"url:{bare}", f"url:{bare}")


def _addresses(text: str) -> Iterator[tuple[int, int, Claim]]:
    for pattern in (_EMAIL, _URL, _DOMAIN):
        for match in pattern.finditer(text):
            raw = match.group().rstrip(_TRAILING_PUNCTUATION)
            if pattern is _EMAIL:
                key = "email:" + raw.lower()
                claim = Claim(raw, raw.lower(), frozenset({key}), frozenset({key}))
            else:
                full, bare = _url_keys(raw)
                claim = Claim(raw, full[4:], frozenset({full}), frozenset({full, bare}))
            yield match.start(), match.start() + len(raw), claim
            text = _mask(text, match.start(), match.start() + len(raw))


# ---------------------------------------------------------------- phone numbers
_PHONE = re.compile(
    r"(?<![A-Za-z0-9+\-.])(?:"
    r"\+\d{1,3}[\s.-]?\(?0?\)?\s?\d{1,4}\)?[\s.-]?\d{3,4}[\s.-]?\d{4}"  # +82-10-1234-5678, +82 (0)2 ...
    r"|\(?0\d{1,2}\)?[\s.-]?\d{3,4}[\s.-]?\d{4}"  # 010-1234-5678, 02 123 4567, (02) 123-4567
    r"|01[016789]\d{7,8}"  # 01012345678
    r"|1[5-9]\d{2}[\s.-]\d{4}"  # 1588-1234: nationwide numbers
    r")(?![A-Za-z0-9\-])"
)


def _phones(text: str) -> Iterator[tuple[int, int, Claim]]:
    for match in _PHONE.finditer(text):
        digits = normalize_phone(match.group())
        key = "phone:" + digits
        claim = Claim(match.group(), "+" + digits, frozenset({key}), frozenset({key}))
        yield match.start(), match.end(), claim


# ---------------------------------------------------------------- dates
_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("January", "Jan"),
            ("February", "Feb"),
            ("March", "Mar"),
            ("April", "Apr"),
            ("May",),
            ("June", "Jun"),
            ("July", "Jul"),
            ("August", "Aug"),
            ("September", "Sep", "Sept"),
            ("October", "Oct"),
            ("November", "Nov"),
            ("December", "Dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + ")"
_ORDINAL = r"(?:st|nd|rd|th)"
_DATE_PATTERNS = [
    # 2026-12-01, 2026.12.01, 2026/12/01, 2026. 12. 1.
    re.compile(
        r"(?<![\d.])(?P<y>\d{4})\s?(?P<sep>[-./])\s?(?P<m>\d{1,2})\s?(?P=sep)\s?(?P<d>\d{1,2})(?!\d)\.?"
    ),
    # 2026년 12월 1일, 2026年12月1日, 12월 1일, 12月1日
    re.compile(r"(?:(?P<y>\d{4})\s?[년年]\s?)?(?P<m>\d{1,2})\s?[월月]\s?(?P<d>\d{1,2})\s?[일日]"),
    # December 1, 2026; Dec. 1st; December 1
    re.compile(rf"\b(?P<mn>{_MONTH})\.?\s(?P<d>\d{{1,2}}){_ORDINAL}?(?!\d)(?:,?\s(?P<y>\d{{4}})(?!\d))?"),
    # 1 December 2026; the 1st of December
    re.compile(
        rf"(?<!\d)(?P<d>\d{{1,2}}){_ORDINAL}?\s(?:of\s)?(?P<mn>{_MONTH})\b\.?(?:,?\s(?P<y>\d{{4}})(?!\d))?"
    ),
]
_SLASH_DATE = re.compile(r"(?<![\d/])(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?(?![\d/])")
_NOT_DATES = {"24/7"}


def _date_claim(text: str, year: str | None, month: int, day: int) -> Claim | None:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    month_day = f"md:{month:02d}-{day:02d}"
    partial = {month_day, f"moy:{month}", f"dom:{day}"}
    if year is None:
        return Claim(text, f"{month:02d}-{day:02d}", frozenset({month_day}), frozenset(partial))
    full_year = int(year) + (2000 if len(year) == 2 else 0)
    date = f"{full_year:04d}-{month:02d}-{day:02d}"
    offers = {"date:" + date, f"year:{full_year}", f"bare:{full_year}", *partial}
    return Claim(text, date, frozenset({"date:" + date}), frozenset(offers))


def _dates(text: str) -> Iterator[tuple[int, int, Claim]]:
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            groups = match.groupdict()
            month = _MONTHS[groups["mn"]] if groups.get("mn") else int(groups["m"])
            claim = _date_claim(match.group().strip(), groups.get("y"), month, int(groups["d"]))
            if claim is not None:
                yield match.start(), match.end(), claim
                text = _mask(text, match.start(), match.end())
    for match in _SLASH_DATE.finditer(text):
        if match.group() in _NOT_DATES:
            continue
        first, second = int(match["a"]), int(match["b"])
        if first > 12 >= second:  # 25/12: day first
            claim = _date_claim(match.group(), match["y"], second, first)
        elif second > 12 >= first:  # 12/25: month first
            claim = _date_claim(match.group(), match["y"], first, second)
        else:  # 12/1 is the 1st of December in Seoul and the 12th of January in Paris: as written only
            key = "literal:" + match.group()
            claim = Claim(match.group(), match.group(), frozenset({key}), frozenset({key}))
        if claim is not None:
            yield match.start(), match.end(), claim


# ---------------------------------------------------------------- identifiers
_IDENTIFIER = re.compile(
    r"(?<![A-Za-z\d.\-#])(?<!\d:)(?:#\d[\dA-Za-z]*(?:-[\dA-Za-z]+)*|[A-Z]{1,10}-?\d[\dA-Za-z]*(?:-[\dA-Za-z]+)*"
    r"|\d+(?:-\d+)+(?:-[\dA-Za-z]+)*)(?![A-Za-z\d\-]|:\d)"
)
_SHORT_PAIR = re.compile(r"[1-9]\d{0,3}-(?:0|[1-9]\d{0,3})")
"""1-2, 12-1, 2-6: a range, read with its unit below, not an identifier."""
_CURRENCY_CODES = {"KRW", "USD", "US", "EUR", "JPY", "GBP"}


def _identifiers(text: str) -> Iterator[tuple[int, int, Claim]]:
    """Order, tracking and return numbers compare whole; only separators may differ."""
    for match in _IDENTIFIER.finditer(text):
        token = match.group()
        letters = re.match(r"[A-Z]+", token)
        if _SHORT_PAIR.fullmatch(token) or (letters and letters.group() in _CURRENCY_CODES):
            continue
        key = "id:" + re.sub(r"[-#]", "", token).upper()
        yield match.start(), match.end(), Claim(token, key[3:], frozenset({key}), frozenset({key}))


# ---------------------------------------------------------------- quantities
_KO_DAYS_AFTER = (
    r"(?:간|이내|안에|안으로|내(?:에|로)?(?![가-힣])|동안|만에|후|뒤|전"
    r"|(?:정도|쯤|가량|이나|씩)? ?걸(?:려|리|립|린)|(?:이|가)? ?(?:지나(?!치)|지났|지난|넘))"
)
"""What follows a count of days in Korean (after 일): "이내", "동안", "정도 걸려요", "이 지났어도"."""
_TIME_UNITS = {"am", "pm", "clock"}
"""clock: an hour of the day not known to be a.m. or p.m. ("2시", "14:00", "3 o'clock")."""

_SUFFIXES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(pattern, re.IGNORECASE), unit)
    for pattern, unit in [
        (r"[ -]?(?:business|working)[ -]days?\b", "bday"),
        (r"영업 ?일", "bday"),
        (r"営業日", "bday"),
        (r"[ -]?(?:calendar )?days?\b", "day"),
        (r"일(?=\s*(?:전|후|뒤|이내|안에|만에))", "day"),  # 30일 전: days ago, not the 30th
        (rf" 일(?= ?{_KO_DAYS_AFTER})", "day"),  # "7 일 이내", "칠 일 안에"
        (r"日(?=前|後|以内|以上|ほど|くらい|ぐらい)", "day"),
        (r"일(?:간)?", "day|dom"),  # 7일: seven days, or the 7th
        (r"日(?:間)?", "day|dom"),
        (r"[ -]?(?:(?:business|working|calendar)[ -])?(?:weeks?\b|wks?\b)", "week"),
        (r" ?(?:영업)?주(?:일|간)?(?![문소말년])", "week"),  # not 주문 (order), 주소, 주말, 주년
        (r"週間|週", "week"),
        (r"[ -]?months?\b", "month"),
        (r" ?개월|か月|ヶ月|カ月|ヵ月|ケ月|箇月| ?달", "month"),
        (r"월(?!요)|月(?!曜)", "moy"),
        (r"[ -]?years?\b|[ -]?yrs?\b", "year"),
        (r"년(?:간)?|年(?:間)?", "year"),
        (r"[ -]?hours?\b|[ -]?hrs?\b|h\b", "hour"),
        (r" ?시간|時間", "hour"),
        (r"[ -]?minutes?\b|[ -]?mins?\b", "minute"),
        (r" ?(?:mg|milligrams?|밀리그램|ミリグラム)(?![A-Za-z])", "mass:0.001"),
        (r" ?(?:kg|kilograms?|kilos?|킬로그램|킬로|キログラム|キロ)(?![A-Za-z])", "mass:1000"),
        (r" ?(?:g|grams?|그램|グラム)(?![A-Za-z])", "mass:1"),
        (r" ?(?:t|tonnes?|tons?|톤|トン)(?![A-Za-z])", "mass:1000000"),
        # imperial measures: the shop's facts are metric, so one is a conversion nobody checked
        (r" ?(?:lbs?|pounds?|파운드|ポンド)(?![A-Za-z])", "pound:1"),
        (r" ?(?:US |U\.S\. )?(?:fl\.? ?oz|fluid ounces?)(?![A-Za-z])", "floz:1"),
        (r" ?(?:oz|ounces?|온스|オンス)(?![A-Za-z])", "ounce:1"),
        (r" ?(?:inch(?:es)?|in\.|인치|インチ)(?![A-Za-z])", "inch:1"),
        (r" ?(?:ft|feet|foot|피트|フィート)(?![A-Za-z])", "foot:1"),
        (r" ?(?:gallons?|gal|갤런|ガロン)(?![A-Za-z])", "gallon:1"),
        (r" ?(?:miles?|마일|マイル)(?![A-Za-z])", "mile:1"),
        (r" ?(?:dl|decilit(?:re|er)s?|데시리터|デシリットル)(?![A-Za-z])", "volume:100"),
        (r" ?(?:cl|centilit(?:re|er)s?|센티리터|センチリットル)(?![A-Za-z])", "volume:10"),
        (r" ?(?:ml|cc|millilit(?:re|er)s?|밀리리터|시시|ミリリットル|ミリ)(?![A-Za-z])", "volume:1"),
        (r" ?(?:l|lit(?:re|er)s?|리터|リットル)(?![A-Za-z])", "volume:1000"),
        (r" ?(?:mm|millimet(?:re|er)s?|밀리미터|밀리|ミリメートル)(?![A-Za-z])", "length:1"),
        (r" ?(?:cm|centimet(?:re|er)s?|센티미터|센티|センチメートル|センチ)(?![A-Za-z])", "length:10"),
        (r" ?(?:m|met(?:re|er)s?|미터|メートル)(?![A-Za-z])", "length:1000"),
        (r"분|分(?:間)?", "minute"),
        (r" ?a\.? ?m\b\.?", "am"),
        (r" ?p\.? ?m\b\.?", "pm"),
        (r" ?o'?clock\b", "clock"),
        (r" ?시(?!간|적)|時(?!間)", "clock"),
        (r" ?원(?!하)| ?(?:won|krw)\b|ウォン", "KRW"),
        (r"円| ?(?:yen|jpy)\b", "JPY"),
        (r" ?(?:usd|us dollars?|dollars?)\b", "USD"),
        (r" ?(?:eur|euros?)\b|€", "EUR"),
        (r" ?gbp\b", "GBP"),
        (r" ?(?:%|percent\b|per cent\b|퍼센트|프로|パーセント)", "percent"),
        (r"割(?!合)", "tenths"),  # 1割 is 10%
        (r"(?:st|nd|rd|th)\b", "dom"),
    ]
]
_PREFIX_CURRENCY = re.compile(r"(US\$|\$|₩|€|¥|£|KRW|USD|EUR|JPY|GBP) ?$")
_PREFIX_CURRENCIES = {"US$": "USD", "$": "USD", "₩": "KRW", "€": "EUR", "¥": "JPY", "£": "GBP"}
CURRENCIES = frozenset({"KRW", "JPY", "USD", "EUR", "GBP"})
"""The units of an amount of money, as readings name them ("KRW:3000")."""


def money_in(readings: Iterable[str]) -> dict[str, set[Decimal]]:
    """The amounts of money among `readings` (needs or offers), by currency: {"KRW": {3000}}."""
    found: dict[str, set[Decimal]] = {}
    for reading in readings:
        currency, _, value = reading.partition(":")
        if currency in CURRENCIES:
            found.setdefault(currency, set()).add(Decimal(value))
    return found


BOUND_AFTER = re.compile(
    r"\s*(?:이상|이하|미만|초과|以上|以下|未満|超|or more|and (?:over|up)|or (?:less|above))", re.IGNORECASE
)
"""An amount said as a bound, not as an order's (matched at its end): "주문 금액이 50만 원 이상이면"
is a threshold, "5万ウォン以上の送料無料" too."""

SOURCES_KEPT = 64
"""How many sets of sources each reader keeps read (a shop's FAQ, the facts of the customers chatting
at once): the same text is checked reply after reply."""
_DAYTIME_AFTER = re.compile(r" (?:this|in the) (morning|afternoon|evening)\b", re.IGNORECASE)
_PREFIX_DAYTIME = re.compile(r"(오전|새벽|아침|午前|오후|저녁|밤|午後) ?$")
_PM_WORDS = {"오후", "저녁", "밤", "午後"}
_HALF_HOUR = re.compile(r" ?(?:반|半)")
_MINUTES = re.compile(r" ?(\d{1,2}) ?(?:분|分)")
_AND_A_HALF = re.compile(
    r" ?반나절| ?반(?:(?![가-힣])|(?=이|입니|정도|쯤|으로|까지))|半(?![額分年日月期])|\s+and\s+a\s+half\b",
    re.IGNORECASE,
)
"""After a duration or a measure: half of its unit more (not 반품, 반값, 半額)."""
_HALF_BEFORE_UNIT = re.compile(r"\s+and\s+a\s+half(?=\s)", re.IGNORECASE)
"""A half between the number and its unit: "three and a half kilos", "2 and a half days"."""
_HALF_A = re.compile(r"\bhalf\s+$", re.IGNORECASE)


def _and_a_half(unit: str | None) -> bool:
    """A unit that can take "and a half": durations and measures, not a time, a date or money."""
    if unit is None:
        return False
    return unit in ("hour", "day", "day|dom", "bday", "week", "month", "year") or (
        ":" in unit and unit.split(":")[0] in ("mass", "volume", "length")
    )


_SCALES = {**ENGLISH_SCALES, "k": 1000}
"""After digits: "3 thousand", "3k"."""
_DIGITS = r"\d+(?:,\d{3})*(?:\.\d+)?"
_MAGNITUDES = "[万萬億千百十만억천백십]"
_ARABIC = re.compile(
    rf"(?<![A-Za-z\d.,]){_DIGITS}(?:{_MAGNITUDES}+(?: ?{_DIGITS}{_MAGNITUDES}+)*(?:{_DIGITS})?)?"
    r"(?P<scale> (?:hundred|thousand|million|billion)\b|k\b)?",
    re.IGNORECASE,
)
_COLON_TIME = re.compile(r"(?<![\d:])(?P<h>\d{1,2}):(?P<m>[0-5]\d)(?![\d:])")
_KANJI = re.compile(r"[〇零一二三四五六七八九十百千万萬億]+")
_PERCENT_WORD = "(?:퍼센트|프로(?!그|젝|필|모|세|듀|포|페|야|틴))"
"""Percent in Korean words ("십 퍼센트", "오 프로"); not "프로그램", "프로젝트"."""
_SINO_KOREAN = re.compile(
    r"(?<![가-힣])(?:[일이삼사오육칠팔구십백천]*[만억] (?=[일이삼사오육칠팔구십백천]))?"
    rf"[일이삼사오육칠팔구십백천만억]+?"
    rf"(?=일|주일| ?개월|년| ?시간| ?{_PERCENT_WORD}| ?원| 일 ?{_KO_DAYS_AFTER})"
)
"""Sino-Korean numerals before a unit, a space after 만 or 억 inside ("오만 천 원" is 51,000원)."""
_SINO_PLACES = set("십백천만억")
_SINO_LONE_DIGIT_UNITS = re.compile(rf"주일| ?개월|년|시간| ?{_PERCENT_WORD}")
_SINO_DAY_CONTEXT = re.compile(rf"일 ?{_KO_DAYS_AFTER}|(?<=[삼사오육칠팔구]) 일 ?{_KO_DAYS_AFTER}")
"""A lone Sino-Korean digit before 일 is a duration only in these phrases: 오일 is "oil", but "삼일
(정도) 걸려요" and "칠 일 이내" take days, and "칠일이 지났어도" has let seven go by ("이 일 안에" is
"in this matter")."""
_NATIVE_KOREAN = re.compile(
    r"(?<![가-힣])(?:(?:열|스물|스무)(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉)?|한|두|세|석|네|다섯|여섯|일곱|여덟|아홉)"
    r"(?= ?(?:시간|시(?!적)|달|주(?![문소말])|리터|센티|미터|킬로|키로|그램|밀리))"
)
_NATIVE_KOREAN_DAYS = re.compile(
    r"(?<![가-힣])(?:" + "|".join(NATIVE_KOREAN_DAYS) + r")(?!\s?(?:되|보내)(?:세요|시길|시기|십시오))"
)
"""A day count in a native word; "좋은 하루 보내세요" (have a good day) counts nothing."""
_ENGLISH_WORD = "(?:" + "|".join(sorted([*ENGLISH_SMALL, *ENGLISH_SCALES], key=len, reverse=True)) + ")"
_AFTER_SCALE = "(?:(?<=hundred)|(?<=thousand)|(?<=million)|(?<=billion)) and "
"""Only "one hundred and fifty" joins with "and": "between one and two days" is a range."""
_ENGLISH = re.compile(rf"\b{_ENGLISH_WORD}(?:(?:-| |{_AFTER_SCALE}){_ENGLISH_WORD})*\b", re.IGNORECASE)
_DAY_WORD = re.compile(r"(?:\ba )?(?P<word>\bfortnight\b|半日|(?<![가-힣])반나절)", re.IGNORECASE)
_ARTICLE_ONE = re.compile(
    r"\b(?:a|an)(?= (?:(?:business|working|calendar) )?(?:day|week|month|year|hour)\b)", re.IGNORECASE
)
"""An article as a number: "within a week" claims one week as much as "within 1 week" does."""
_FREQUENCY = re.compile(r"\b(?:once|twice|thrice|times|per|hours|days|weeks|[a-z]+ly) $", re.IGNORECASE)
_NOON = re.compile(r"\b(?:noon|midday)\b|정오|正午", re.IGNORECASE)
_MIDNIGHT = re.compile(r"\bmidnight\b|자정", re.IGNORECASE)
_CONNECTOR = re.compile(r" ?(?:-|–|~|〜|to|through|till|until|부터|에서|から) ?|—", re.IGNORECASE)
"""An em dash joins a range only unspaced ("10:00—18:30"): spaced, it sets a clause apart ("6,000 won —
18,000 won in total")."""
_BETWEEN = re.compile(r"\bbetween ?$", re.IGNORECASE)


@dataclass
class _Quantity:
    start: int
    end: int
    value: Decimal
    """As written: the hour for a time of day."""
    unit: str | None = None
    minute: int = 0
    plain: str | None = None
    """The digits as written when they could be an order number ("1001", "001234")."""

    def readings(self) -> set[str]:
        if self.unit is None:
            return set()
        if self.unit in _TIME_UNITS:
            if self.value != int(self.value):
                return set()  # "2.5 p.m." is no time anyone writes: checked as a bare number
            hour = int(self.value) % 12
            hours = {
                "am": [hour],
                "pm": [hour + 12],
                "clock": [int(self.value)] if self.value > 12 else [hour, hour + 12],
            }[self.unit]
            return {f"time:{h:02d}:{self.minute:02d}" for h in hours if 0 <= h < 24}
        if self.unit == "week":
            return {"day:" + _number(self.value * 7)}
        if self.unit == "tenths":
            return {"percent:" + _number(self.value * 10)}
        if self.unit in ("hour", "minute"):  # 1.5 hours and 90 minutes are one length of time
            minutes = self.value * 60 if self.unit == "hour" else self.value
            return {"minute:" + _number(minutes), "hour:" + _number(minutes / 60)}
        if ":" in self.unit:  # a measure, in its base unit: 0.8 kg and 800 g are one weight
            dimension, factor = self.unit.split(":")
            return {f"{dimension}:{_number(self.value * Decimal(factor))}"}
        return {f"{unit}:{_number(self.value)}" for unit in self.unit.split("|")}

    def shown(self) -> str:
        if self.unit is None:
            return _number(self.value)
        if self.unit == "tenths":
            return f"{_number(self.value * 10)} percent"
        if self.unit in _TIME_UNITS:
            return " or ".join(sorted(r[5:] for r in self.readings()))
        if ":" in self.unit:
            return next(iter(self.readings()))
        return f"{_number(self.value)} {self.unit.split('|')[0]}"


def _number(value: Decimal) -> str:
    """One spelling per value: 3,000 / 3000.00 / 3천 are all "3000"."""
    return f"{value.normalize():f}"


def _quantities(text: str) -> list[_Quantity]:
    found: list[_Quantity] = []
    taken = [False] * len(text)

    def add(
        start: int,
        end: int,
        value: Decimal,
        *,
        unit: str | None = None,
        minute: int = 0,
        needs_unit: bool = False,
        plain: str | None = None,
    ) -> None:
        if any(taken[start:end]):
            return
        quantity = _Quantity(start, end, value, unit=unit, minute=minute, plain=plain)
        _attach_unit(text, quantity)
        if needs_unit and quantity.unit is None:
            return
        taken[quantity.start : quantity.end] = [True] * (quantity.end - quantity.start)
        found.append(quantity)

    for match in _NOON.finditer(text):
        add(match.start(), match.end(), Decimal(12), unit="pm")
    for match in _MIDNIGHT.finditer(text):
        add(match.start(), match.end(), Decimal(12), unit="am")
    for match in _COLON_TIME.finditer(text):
        add(match.start(), match.end(), Decimal(int(match["h"])), unit="clock", minute=int(match["m"]))
    for match in _ARABIC.finditer(text):
        written = match.group().rstrip(".,")
        number = written[: len(written) - len(match["scale"] or "")]
        try:
            value = cjk_value(number)
        except ValueError:
            continue  # 1.2.3: left to the digit pass
        if match["scale"]:
            value *= _SCALES[match["scale"].strip().lower()]
        plain = number if number.isdigit() and not match["scale"] else None
        add(match.start(), match.start() + len(written), value, plain=plain)
    for match in _KANJI.finditer(text):
        if text.startswith("分", match.end()):
            continue  # 十分: "enough"
        if (
            match.group() == "一"
            and text.startswith("時", match.end())
            and not text.startswith("時間", match.end())
            and not _PREFIX_DAYTIME.search(text[: match.start()])
        ):
            continue  # 一時: "for a while" (一時間 is an hour)
        add(match.start(), match.end(), cjk_value(match.group()), needs_unit=True)
    for match in _SINO_KOREAN.finditer(text):
        body = match.group()
        lone_digit_unit = _SINO_LONE_DIGIT_UNITS.match(text, match.end()) or _SINO_DAY_CONTEXT.match(
            text, match.end()
        )
        if not _SINO_PLACES & set(body) and (len(body) > 1 or not lone_digit_unit):
            # 이삼일 ("two or three days") is `_word_ranges`'s; 오일 is "oil"
            continue
        add(match.start(), match.end(), cjk_value(body), needs_unit=True)
    for match in _NATIVE_KOREAN_DAYS.finditer(text):
        add(match.start(), match.end(), Decimal(native_korean_value(match.group())), unit="day")
    for match in _DAY_WORD.finditer(text):
        add(match.start(), match.end(), Decimal(str(DAY_WORDS[match["word"].lower()])), unit="day")
    for match in _NATIVE_KOREAN.finditer(text):
        add(match.start(), match.end(), Decimal(native_korean_value(match.group())), needs_unit=True)
    for match in _ARTICLE_ONE.finditer(text):
        if _FREQUENCY.search(text[: match.start()]) is None:  # "once a week", "24 hours a day": a rate
            add(match.start(), match.end(), Decimal(1), needs_unit=True)
    for match in _ENGLISH.finditer(text):
        spelled = english_value(match.group())
        add(match.start(), match.end(), Decimal(spelled), needs_unit=spelled < 10)
    found.sort(key=lambda q: q.start)
    # a quantity a later one grew over is part of it: the 30분 of "여섯 시 30분" (18:30)
    return [q for q in found if not any(o is not q and o.start <= q.start and q.end <= o.end for o in found)]


_DURATION_AFTER = re.compile(
    r" ?(?:이내|안에|안으로|내에|내로|동안|만에|이상|以内|以上|の間|間"
    r"|(?:으)?로\s?(?:변경|연장|늘|바뀌|줄)|に(?:変更|延長))"
)
_DURATION_BEFORE = re.compile(
    r"(?:후|뒤|부터|から|後|within|for|(?:기간|기한)\s?(?:은|는|이|을)?(?:\s?(?:이제|지금은|현재|앞으로))?"
    r"|(?:期間|期限)\s?(?:は|が)?(?:今後|現在)?) ?$"
)
"""After 30일 / 30日 (or before it) these make it thirty days, not the 30th ("수령 후 30일 이내",
"반품 기간은 30일")."""


def _attach_unit(text: str, quantity: _Quantity) -> None:
    """The unit written after the number (or a currency before it), and 오후/午後 before a time."""
    if quantity.unit is None and (half := _HALF_BEFORE_UNIT.match(text, quantity.end)):
        for pattern, unit in _SUFFIXES:
            match = pattern.match(text, half.end())
            if match and _and_a_half(unit):  # "three and a half kilos"
                quantity.value += Decimal("0.5")
                quantity.unit, quantity.end = unit, match.end()
                break
    if quantity.unit is None or quantity.unit == "clock":
        for pattern, unit in _SUFFIXES:
            match = pattern.match(text, quantity.end)
            if match and (quantity.unit is None or unit in ("am", "pm")):
                quantity.unit, quantity.end = unit, match.end()
                break
    if quantity.unit == "day|dom" and (
        _DURATION_AFTER.match(text, quantity.end) or _DURATION_BEFORE.search(text[: quantity.start])
    ):
        quantity.unit = "day"
    if (
        _and_a_half(quantity.unit)
        and quantity.value == 1
        and text[quantity.start : quantity.start + 1].lower() == "a"
        and (half := _HALF_A.search(text, 0, quantity.start))
    ):
        quantity.value, quantity.start = Decimal("0.5"), half.start()  # "half an hour", "half a kilo"
    elif _and_a_half(quantity.unit) and (half := _AND_A_HALF.match(text, quantity.end)):
        quantity.value += Decimal("0.5")  # "1시간 반", "2キロ半", "an hour and a half"
        quantity.unit, quantity.end = "day" if quantity.unit == "day|dom" else quantity.unit, half.end()
    if quantity.unit == "clock" and not quantity.minute:
        if half := _HALF_HOUR.match(text, quantity.end):
            quantity.minute, quantity.end = 30, half.end()
        elif minutes := _MINUTES.match(text, quantity.end):
            quantity.minute, quantity.end = int(minutes[1]), minutes.end()
    before = text[max(0, quantity.start - 4) : quantity.start]
    if quantity.unit is None and (currency := _PREFIX_CURRENCY.search(before)):
        quantity.unit = _PREFIX_CURRENCIES.get(currency[1], currency[1].upper())
        quantity.start -= len(currency.group())
    elif quantity.unit in (None, "clock") and (daytime := _PREFIX_DAYTIME.search(before)):
        quantity.unit = "pm" if daytime[1] in _PM_WORDS else "am"
        quantity.start -= len(daytime.group())
    elif (
        quantity.unit is None
        and text[quantity.start : quantity.end].isdigit()
        and text[max(0, quantity.start - 3) : quantity.start].lower() == "at "
        and (daytime := _DAYTIME_AFTER.match(text, quantity.end))
    ):
        quantity.unit = "am" if daytime[1].lower() == "morning" else "pm"  # "paid at 11 this morning"


def _compatible(first: str | None, second: str | None) -> bool:
    if first is None or second is None or first == second:
        return True
    if first in _TIME_UNITS and second in _TIME_UNITS:
        return True
    return {first, second} in ({"day", "day|dom"}, {"dom", "day|dom"})


_TIMES_SIGN = re.compile(r" ?(?:×|x|X|\*|by) ?")


def _ranges(text: str, quantities: list[_Quantity]) -> Iterator[tuple[int, int, Claim]]:
    """Single quantities and ranges ("1-2 days", "1 to 2 days", "1~2일", "오전 10시부터 오후 6시까지");
    in "150×220 cm" both sides are lengths."""
    for left, right in reversed(list(itertools.pairwise(quantities))):
        measured = right.unit is not None and ":" in right.unit
        if left.unit is None and measured and _TIMES_SIGN.fullmatch(text[left.end : right.start]):
            left.unit = right.unit
    quantities = _compounds(text, quantities)
    index = 0
    while index < len(quantities):
        first = quantities[index]
        second = quantities[index + 1] if index + 1 < len(quantities) else None
        if second is not None and _joined(text, first, second):
            yield first.start, second.end, _range_claim(text, first, second)
            index += 2
        else:
            yield first.start, first.end, _single_claim(text, first)
            index += 1


_HOURS_AND = re.compile(r" ?(?:and )?", re.IGNORECASE)


def _compounds(text: str, quantities: list[_Quantity]) -> list[_Quantity]:
    """A larger unit and then a smaller one of the same kind as one quantity: "1시간 30분",
    "1時間30分", "an hour and 30 minutes" (90 minutes); "1 m 50 cm", "1kg 500g" (in base units)."""
    merged: list[_Quantity] = []
    for quantity in quantities:
        last = merged[-1] if merged else None
        if last is None or last.unit is None or quantity.unit is None:
            merged.append(quantity)
            continue
        joined = _HOURS_AND.fullmatch(text[last.end : quantity.start])
        if joined and (last.unit, quantity.unit) == ("hour", "minute"):
            last.value, last.unit, last.end = last.value * 60 + quantity.value, "minute", quantity.end
            continue
        if joined and ":" in last.unit and ":" in quantity.unit:
            (kind, larger), (other, smaller) = last.unit.split(":"), quantity.unit.split(":")
            if kind == other and Decimal(larger) > Decimal(smaller):
                total = last.value * Decimal(larger) + quantity.value * Decimal(smaller)
                last.value, last.unit, last.end = total, f"{kind}:1", quantity.end
                continue
        merged.append(quantity)
    return merged


_SPACED_DASH = re.compile(r"\s[–—-]\s")
_A_TOTAL_AFTER = re.compile(
    r"\s?(?:in total|total|altogether|all together|in all|all in|in sum)\b|\s?(?:합계|총액|合計|の合計)",
    re.IGNORECASE,
)
"""A total named right after an amount: "21,000 won in total"."""


def _joined(text: str, first: _Quantity, second: _Quantity) -> bool:
    """Two quantities with a range word between them and units that agree; a bare end takes
    the other's unit ("1-2 days": both days; "12~1시": both hours of the day)."""
    between = text[first.end : second.start]
    if not (
        _CONNECTOR.fullmatch(between)
        or (between.strip().lower() == "and" and _BETWEEN.search(text[: first.start]))
    ):
        return False
    if not _compatible(first.unit, second.unit):
        return False
    if _SPACED_DASH.fullmatch(between) and _A_TOTAL_AFTER.match(text, second.end):
        return False  # "shipping is 3,000 won – 21,000 won in total": a dash before the sum
    if first.unit is not None and first.unit not in _TIME_UNITS and first.value >= second.value:
        return False  # "5-3 days" is no range
    if second.unit is not None and second.unit not in _TIME_UNITS and first.value >= second.value:
        return False
    if first.unit is None:  # "9-18시": one unit for both (none at all stays none)
        first.unit = "clock" if second.unit in _TIME_UNITS else second.unit
    elif second.unit is None:
        second.unit = "clock" if first.unit in _TIME_UNITS else first.unit
    return True


def _single_claim(text: str, quantity: _Quantity) -> Claim:
    written = text[quantity.start : quantity.end].strip()
    readings = quantity.readings()
    bare = {"bare:" + _number(quantity.value)}
    if quantity.plain is not None and quantity.unit is None:
        plain = {"id:" + quantity.plain}
        leading_zero = quantity.plain.startswith("0") and len(quantity.plain) > 1
        needs = plain if leading_zero else bare | plain
        return Claim(written, quantity.plain, frozenset(needs), frozenset(needs))
    if not readings:
        return Claim(written, quantity.shown(), frozenset(bare), frozenset(bare))
    return Claim(written, quantity.shown(), frozenset(readings), frozenset(readings | bare))


def _range_claim(text: str, first: _Quantity, second: _Quantity) -> Claim:
    written = text[first.start : second.end].strip()
    raw = f"range:{_number(first.value)}~{_number(second.value)}"
    pairs = {f"range:{a}~{b}" for a in first.readings() for b in second.readings()}
    needs = pairs or {raw}
    if first.unit == second.unit == "clock" and not first.minute and not second.minute:
        needs.add(raw)  # 12~1시 (hours of the day) says no more than "lunch 12-1"; 18시 15분 says more
    ends = _single_claim(text, first).offers | _single_claim(text, second).offers
    shown = f"{first.shown()} to {second.shown()}"
    # "12:30-13:30" is not "12-1": a range with minutes offers no bare hours
    loose = set() if first.minute or second.minute else {raw}
    return Claim(written, shown, frozenset(needs), frozenset(needs | loose | ends))


_DAY_PAIR = re.compile(r"(?<![가-힣])(?:" + "|".join(DAY_PAIRS) + ")")
_KOREAN_PAIR = re.compile(r"(?<![가-힣])(?:" + "|".join(sorted(KOREAN_PAIRS, key=len, reverse=True)) + ")")


_ONE_DIGIT = "[1-9一二三四五六七八九]"
_LISTED_PAIR = re.compile(
    rf"(?<![\d.,、〇一二三四五六七八九十])(?<!, )({_ONE_DIGIT})(?:、|, ?)({_ONE_DIGIT})(?![\d.,、〇十百千])"
)
"""Two neighbouring numbers listed before a unit: "2、3日", "二、三日", "2, 3일" (two or three days)."""


def _word_ranges(text: str) -> Iterator[tuple[int, int, Claim]]:
    """Two neighbouring numbers said as one, read as the range they say: in one Korean word
    (사나흘 3-4 days, 두세 시간 2-3 hours, 이삼일 2-3 days) or listed ("二、三日"); a pair with no
    unit after it is no claim."""
    for match in _DAY_PAIR.finditer(text):
        low, high = DAY_PAIRS[match.group()]
        first = _Quantity(match.start(), match.end(), Decimal(low), unit="day")
        second = _Quantity(match.start(), match.end(), Decimal(high), unit="day")
        yield match.start(), match.end(), _range_claim(text, first, second)
    pairs = [(match, *KOREAN_PAIRS[match.group()]) for match in _KOREAN_PAIR.finditer(text)]
    for match in _LISTED_PAIR.finditer(text):
        listed = [int(cjk_value(number)) for number in match.groups()]
        if listed[1] == listed[0] + 1:
            pairs.append((match, listed[0], listed[1]))
    for match, low, high in pairs:
        first = _Quantity(match.start(), match.end(), Decimal(low))
        _attach_unit(text, first)
        if first.unit is None or first.unit in CURRENCIES:
            continue
        second = _Quantity(first.start, first.end, Decimal(high), unit=first.unit)
        yield first.start, first.end, _range_claim(text, first, second)


def _leftover_digits(text: str) -> Iterator[tuple[int, int, Claim]]:
    """Any digit no pass understood is still a claim: the guard fails closed."""
    for match in re.finditer(r"\d+", text):
        keys = frozenset({"bare:" + match.group(), "id:" + match.group()})
        yield match.start(), match.end(), Claim(match.group(), match.group(), keys, keys)


# ---------------------------------------------------------------- the whole text
_LIST_MARKER = re.compile(r"^[ \t]*(?:\d{1,2}[.)]|[-*•])[ \t]+", re.MULTILINE)
"""A numbered list's "1." states nothing: dropped, only where a line starts with it."""
_GLUED_CODE = re.compile(r"\b(KRW|USD|EUR|JPY|GBP)(?=\d)")


_PAST = re.compile(rf"\b(half|(?:a )?quarter) (past|after|to) ({_ENGLISH_WORD}|\d{{1,2}})\b", re.IGNORECASE)


def _clock_words(match: re.Match[str]) -> str:
    """A clock time in words as digits: half past six is 6:30, a quarter to seven 6:45."""
    hour = int(match[3]) if match[3].isdigit() else english_value(match[3])
    minutes = 30 if match[1].lower() == "half" else 15
    if match[2].lower() == "to":
        hour, minutes = (hour - 1) % 24 or 12, 60 - minutes
    return f"{hour}:{minutes:02d}"


_UNIT_THEN_DIGIT = re.compile(r"(\d ?(?:kg|cm|mm|ml|m|g|L))(?=\d)")
"""A measure run into the next: "2m20cm" is "2m 20cm"."""
_HALF_A_MEASURE = re.compile(
    r"\bhalf an? (litres?|liters?|kilos?|kilograms?|kg|metres?|meters?|pounds?)\b", re.IGNORECASE
)
"""Half a measure: "half a litre" is 0.5 litre ("half an hour" is read with the other durations)."""


def _half_a_measure(match: re.Match[str]) -> str:
    return f"0.5 {match[1]}"


_HOUR_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_CLOCK_PAIR = re.compile(
    rf"\b({_HOUR_WORD}) (o'clock|fifteen|thirty|forty[- ]five)\b(?![- ](?:day|days|minutes?|won|percent))",
    re.IGNORECASE,
)
"""A clock time said as two words: "twelve thirty" is 12:30, not 42."""
_UNTIL_WORD = re.compile(
    rf"(\d{{1,2}}:\d\d) (until|till|to|through) ({_HOUR_WORD})\b"
    r"(?! (?:days?|weeks?|hours?|minutes?|people|items?|of)\b)",
    re.IGNORECASE,
)
"""The end of a range of times said as a bare word: "from half past twelve until two" is 12:30-2."""
_MINUTES_SAID = {"o'clock": 0, "fifteen": 15, "thirty": 30, "forty-five": 45, "forty five": 45}


def _clock_pair(match: re.Match[str]) -> str:
    return f"{english_value(match[1])}:{_MINUTES_SAID[match[2].lower()]:02d}"


def _until_word(match: re.Match[str]) -> str:
    return f"{match[1]} {match[2]} {english_value(match[3])}"


_FROM_WORDS = re.compile(
    rf"\b(from|between) ({_HOUR_WORD}|noon) (until|till|to|through|and) ({_HOUR_WORD}|noon)\b"
    r"(?! (?:days?|weeks?|hours?|minutes?|people|items?|of|won|percent)\b)",
    re.IGNORECASE,
)
"""A range of hours said in words: "lunch from twelve till one" is 12-1."""


def _hour(word: str) -> int:
    return 12 if word.lower() == "noon" else english_value(word)


def _from_words(match: re.Match[str]) -> str:
    return f"{match[1]} {_hour(match[2])} {match[3]} {_hour(match[4])}"


_BUSINESS_DAYS_FIRST = re.compile(
    r"(?:영업\s?일|営業日)\s?(?:기준|基準|で|ベースで)?\s?(?:으로\s?|로\s?)?"
    r"(?:(\d+(?:\s?~\s?\d+)?)\s?(?:일|日)|("
    + "|".join(sorted(NATIVE_KOREAN_DAYS, key=len, reverse=True))
    + r")(?!이틀|사흘))"
)
""""영업일 기준 3일", "営業日で3日", "영업일 기준 사흘": three business days, the unit named before the
number (하루이틀 stays a range of days)."""


def _business_days(match: re.Match[str]) -> str:
    return f"{match.group(1) or NATIVE_KOREAN_DAYS[match.group(2)]}영업일"


_KANJI_DECIMAL = re.compile(
    r"(?<![〇一二三四五六七八九十百千万])([〇一二三四五六七八九])・([〇一二三四五六七八九]+)"
    r"(?=\s?(?:キロ|グラム|リットル|ミリ|センチ|メートル|kg|g|ml|l|cm|mm|m)(?![A-Za-z]))",
    re.IGNORECASE,
)
"""A measure in kanji with a decimal point, "三・二キロ" (3.2 kg); before days "二・三日" is two or three."""


def _kanji_decimal(match: re.Match[str]) -> str:
    return ".".join("".join(str(CJK_DIGITS[digit]) for digit in part) for part in match.groups())


_SINO_MINUTES = re.compile(r"(?<=시)(\s?)((?:[이삼사오]?십)?[일이삼사오육칠팔구]?)(?=\s?분)")
"""Minutes in Sino-Korean words after the hour ("여섯 시 삼십 분"), read as digits."""


def _sino_minutes(match: re.Match[str]) -> str:
    return f"{match[1]}{cjk_value(match[2])}" if match[2] else match.group()


_KANJI_MINUTES = re.compile(r"(?<=時)((?:[二三四五]?十)?[一二三四五六七八九]?)(?=分)")
"""Minutes in kanji after the hour ("午後六時四十五分"), read as digits."""


def _kanji_minutes(match: re.Match[str]) -> str:
    return str(cjk_value(match[1])) if match[1] else match.group()


_KANJI_DATE = re.compile(
    r"(?<![一二三四五六七八九十百千万〇])((?:十)?[一二三四五六七八九]|十)月"
    r"(?:((?:[二三]?十)?[一二三四五六七八九]|[二三]?十)日)?"
)
"""A month (and its day) in kanji, "十一月二十九日", read as digits: "11月29日"."""


def _kanji_date(match: re.Match[str]) -> str:
    day = f"{cjk_value(match[2])}日" if match[2] else ""
    return f"{cjk_value(match[1])}月{day}"


_SINO_POINT = re.compile(
    r"(?<![가-힣])([일이삼사오육칠팔구십]+) ?점 ?([영공일이삼사오육칠팔구]+)"
    r"(?= ?(?:킬로|키로|그램|리터|미터|센티|톤|퍼센트|프로|kg|g\b|l\b|L\b|m\b|cm|%))"
)
"""A decimal in Sino-Korean words before a unit, "삼 점 오 킬로그램" (3.5 kg); "이 점 참고해 주세요"
("please note this point") has no unit after it."""
_SINO_BEFORE_UNIT = re.compile(
    r"(?<![가-힣])([일삼사오육칠팔구] |(?=[이삼사오육칠팔구]?[십백천])(?:[이삼사오육칠팔구]?천)?"
    r"(?:[이삼사오육칠팔구]?백)?(?:[이삼사오육칠팔구]?십)?[일이삼사오육칠팔구]? ?)"
    r"(?=(?:킬로|키로|그램|리터|센티|미터|톤|밀리)(?![가-힣]{0,1}(?:를|을)\s?(?:더|넘)))"
)
"""A Sino-Korean number before a measure: "용량은 오 리터" (5 L), "삼백오십 밀리리터" (350 ml); "이"
alone (this) is not two."""
_SINO_FRACTION_DIGITS = {
    "영": 0,
    "공": 0,
    **{word: value for value, word in enumerate("일이삼사오육칠팔구", 1)},
}


def _sino_point(match: re.Match[str]) -> str:
    return f"{cjk_value(match[1])}." + "".join(str(_SINO_FRACTION_DIGITS[digit]) for digit in match[2])


_DIGIT_WORD = "(?:zero|one|two|three|four|five|six|seven|eight|nine)"
_POINT_WORDS = re.compile(
    rf"\b({_ENGLISH_WORD}) point ({_DIGIT_WORD}(?: {_DIGIT_WORD})*)\b(?!-)", re.IGNORECASE
)
"""A decimal in English words, "three point two kilos" (3.2 kg)."""


def _point_words(match: re.Match[str]) -> str:
    try:
        whole = english_value(match[1])
    except ValueError:
        return match.group()
    return f"{whole}." + "".join(str(ENGLISH_SMALL[word.lower()]) for word in match[2].split())


_VULGAR_FRACTION = re.compile(r"(\d*)([½¼¾])")
_FRACTION_DIGITS = {"½": "5", "¼": "25", "¾": "75"}


def _vulgar_fraction(match: re.Match[str]) -> str:
    return f"{match[1] or 0}.{_FRACTION_DIGITS[match[2]]}"


def prepare(text: str) -> str:
    """ "27½" as "27.5" (before NFKC makes it "271⁄2"), NFKC (full-width digits, ％, ～ and ￦ become
    plain), list markers dropped, "KRW3,000" as "KRW 3,000", "half past six" as "6:30", "twelve
    thirty until two" as "12:30 until 2", "여섯 시 삼십 분" as "여섯 시 30 분", "three point two"
    as "3.2", "삼 점 오 킬로" as "3.5 킬로", "영업일 기준 3일"
    and "영업일 기준 사흘" as "3영업일", "三・二キロ" as "3.2キロ", "十一月二十九日" as "11月29日", single
    spaces."""
    text = _VULGAR_FRACTION.sub(_vulgar_fraction, text)
    text = _LIST_MARKER.sub(" ", unicodedata.normalize("NFKC", text))
    text = _UNIT_THEN_DIGIT.sub(r"\1 ", text)
    text = _HALF_A_MEASURE.sub(_half_a_measure, text)
    text = _PAST.sub(_clock_words, text)
    text = _CLOCK_PAIR.sub(_clock_pair, text)
    text = _UNTIL_WORD.sub(_until_word, text)
    text = _FROM_WORDS.sub(_from_words, text)
    text = _SINO_MINUTES.sub(_sino_minutes, text)
    text = _KANJI_MINUTES.sub(_kanji_minutes, text)
    text = _KANJI_DATE.sub(_kanji_date, text)
    text = _POINT_WORDS.sub(_point_words, text)
    text = _SINO_POINT.sub(_sino_point, text)
    text = _SINO_BEFORE_UNIT.sub(lambda match: f"{cjk_value(match[1].strip())} ", text)
    text = _BUSINESS_DAYS_FIRST.sub(_business_days, text)
    text = _KANJI_DECIMAL.sub(_kanji_decimal, text)
    return re.sub(r"\s+", " ", _GLUED_CODE.sub(r"\1 ", text))


def _mask(text: str, start: int, end: int) -> str:
    return text[:start] + MASK * (end - start) + text[end:]


def claims(text: str) -> list[Claim]:
    """Every checkable claim in `text`, in the order the passes find them."""
    return [claim for _, _, claim in located_claims(prepare(text))]


def located_claims(prepared: str) -> list[tuple[int, int, Claim]]:
    """`claims` with where each stands in `prepared` (text `prepare` gave): start, end, claim."""
    text = prepared
    found: list[tuple[int, int, Claim]] = []
    passes: list[Callable[[str], Iterator[tuple[int, int, Claim]]]] = [
        _addresses,
        _phones,
        _dates,
        _identifiers,
        _word_ranges,
        lambda masked: _ranges(masked, _quantities(masked)),
        _leftover_digits,
    ]
    for extract in passes:
        spans = list(extract(text))
        for start, end, claim in spans:
            found.append((start, end, claim))
            text = _mask(text, start, end)
    return found
