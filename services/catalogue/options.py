"""Sizes and colours: the ones a stock question asks for, and the ones a product is offered in.

"Is the linen overshirt in size XXL?" got "in stock (42 available)" next to "Options: S, M, L, XL":
the stock line answered for the product, not for the option asked. The shop's options are free
text (`S|M|L`, `26-34`, the demo's `S, M, L, XL; beige, navy`), so they are read generously here,
and judged only when every value is understood: a value this module cannot read ("heather",
"one size") might be the very option asked about, and then the stock line stays the answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from services.text.normalize import normalize
from services.text.sentences import Language

COLOURS: dict[str, dict[str, tuple[str, ...]]] = {
    # canonical: {language: (display word first, then other spellings)}
    "black": {"en": ("black",), "ko": ("블랙", "검정", "검은", "까만", "흑색"), "ja": ("ブラック", "黒")},
    "white": {"en": ("white",), "ko": ("화이트", "흰", "하얀", "하양", "백색"), "ja": ("ホワイト", "白")},
    "red": {"en": ("red",), "ko": ("레드", "빨간", "빨강", "붉은"), "ja": ("レッド", "赤")},
    "blue": {"en": ("blue",), "ko": ("블루", "파란", "파랑", "청색"), "ja": ("ブルー", "青")},
    "navy": {"en": ("navy",), "ko": ("네이비", "남색", "곤색"), "ja": ("ネイビー", "紺")},
    "green": {"en": ("green",), "ko": ("그린", "초록", "녹색"), "ja": ("グリーン", "緑")},
    "yellow": {"en": ("yellow",), "ko": ("옐로우", "옐로", "노란", "노랑"), "ja": ("イエロー", "黄")},
    "orange": {"en": ("orange",), "ko": ("오렌지", "주황"), "ja": ("オレンジ", "橙")},
    "purple": {"en": ("purple", "violet"), "ko": ("퍼플", "보라", "바이올렛"), "ja": ("パープル", "紫")},
    "pink": {"en": ("pink",), "ko": ("핑크", "분홍"), "ja": ("ピンク",)},
    "brown": {"en": ("brown",), "ko": ("브라운", "갈색"), "ja": ("ブラウン", "茶")},
    "grey": {"en": ("grey", "gray"), "ko": ("그레이", "회색"), "ja": ("グレー", "グレイ", "灰")},
    "beige": {"en": ("beige",), "ko": ("베이지",), "ja": ("ベージュ",)},
    "ivory": {"en": ("ivory",), "ko": ("아이보리",), "ja": ("アイボリー",)},
    "cream": {"en": ("cream",), "ko": ("크림",), "ja": ("クリーム",)},
    "olive": {"en": ("olive",), "ko": ("올리브",), "ja": ("オリーブ",)},
    "khaki": {"en": ("khaki",), "ko": ("카키",), "ja": ("カーキ",)},
    "charcoal": {"en": ("charcoal",), "ko": ("차콜",), "ja": ("チャコール",)},
    "sand": {"en": ("sand",), "ko": ("샌드",), "ja": ("サンド",)},
    "mint": {"en": ("mint",), "ko": ("민트",), "ja": ("ミント",)},
    "burgundy": {
        "en": ("burgundy", "wine", "maroon"),
        "ko": ("버건디", "와인"),
        "ja": ("バーガンディ", "ワイン"),
    },
    "camel": {"en": ("camel", "tan"), "ko": ("카멜",), "ja": ("キャメル",)},
    "silver": {"en": ("silver",), "ko": ("실버", "은색"), "ja": ("シルバー", "銀")},
    "gold": {"en": ("gold",), "ko": ("골드", "금색"), "ja": ("ゴールド", "金")},
    "natural": {"en": ("natural",), "ko": ("내추럴", "네추럴"), "ja": ("ナチュラル",)},
}
"""Common colour names in the three languages: a Korean customer's "빨간색" is the shop's `red`."""
COLOUR_SHADES = frozenset(
    {"light", "dark", "pale", "bright", "deep", "sky", "연한", "진한", "밝은", "어두운"}
)
"""Words that shade a colour ("light blue"): a shop's `light blue` is still blue."""

LETTER_SIZES = ("XXS", "XS", "S", "M", "L", "XL", "XXL", "XXXL")
_SIZE_ALIASES = {
    "xxs": "XXS",
    "xs": "XS",
    "s": "S",
    "m": "M",
    "l": "L",
    "xl": "XL",
    "xxl": "XXL",
    "2xl": "XXL",
    "xxxl": "XXXL",
    "3xl": "XXXL",
    "small": "S",
    "medium": "M",
    "large": "L",
    "x-large": "XL",
    "xlarge": "XL",
    "extra large": "XL",
    "extra small": "XS",
    "x-small": "XS",
    "스몰": "S",
    "미디엄": "M",
    "미듐": "M",
    "라지": "L",
    "엑스라지": "XL",
    "スモール": "S",
    "ミディアム": "M",
    "ラージ": "L",
}
"""Letter sizes and their spelled-out names, to one spelling."""

_COLOUR_WORDS: dict[str, str] = {
    word: canonical
    for canonical, by_language in COLOURS.items()
    for words in by_language.values()
    for word in words
}
_LATIN_COLOUR = re.compile(
    r"(?<![a-z])("
    + "|".join(sorted((w for w in _COLOUR_WORDS if w.isascii()), key=len, reverse=True))
    + r")(?![a-z])"
)
_HANGUL_COLOUR = re.compile(
    r"(?<![\uac00-\ud7a3])("
    + "|".join(sorted((w for w in _COLOUR_WORDS if re.search(r"[\uac00-\ud7a3]", w)), key=len, reverse=True))
    + ")(?=$|[^\uac00-\ud7a3]|색|컬러|칼라|[은는이가을를도로의만요인])"
)
"""A colour word ends the word or is followed by 색 or a particle: "블루투스", "샌드위치" and
"블랙프라이데이" name no colour."""
_KATAKANA_RUN = re.compile(r"[\u30a0-\u30ff]+")
_KANJI_RUN = re.compile(r"[\u4e00-\u9fff]+")

_SIZE_TOKEN = r"(xxs|xs|xxxl|xxl|xl|[2-3]xl|s|m|l)"
_LETTER_SIZE = re.compile(rf"(?<![a-z0-9'’.]){_SIZE_TOKEN}(?![a-z0-9'’])")
_SIZE_CONTEXT_BEFORE = re.compile(r"(\bin|\bsize|\bsizes|사이즈|サイズ)\s*(은|는|이|가|も|は)?\s*$")
_SIZE_CONTEXT_AFTER = re.compile(r"^\s*(size|sized|사이즈|サイズ)")
_SIZE_WORD = re.compile(
    r"(?<![a-z])(extra large|extra small|x-large|x-small|xlarge|small|medium|large)(?![a-z])"
    r"|엑스라지|스몰|미디엄|미듐|라지|スモール|ミディアム|ラージ"
)
_NUMBER_SIZE = re.compile(
    r"(?:\b(?:size|sizes|waist|in)\s*|사이즈\s*|サイズ\s*|\bw)(\d{2,3})(?![\d.,:])(?!\s*(?:minutes?|mins?|hours?|days?|weeks?|"
    r"months?|years?|pieces?|pcs|units?|items?|cm|mm|ml|kg|%|분|시간|일|개|점|個|点|日|時間))"
    r"|(?<![\d.,-])(\d{2,3})\s*(?:size|waist|사이즈|サイズ|号|호)"
)
_RANGE = re.compile(r"^(\d{2,3})\s*[-~–]\s*(\d{2,3})$")
_NUMBER = re.compile(r"^\d{2,3}$")
_OPTION_SEPARATORS = re.compile(r"[|,;/]")


@dataclass(frozen=True)
class AskedOptions:
    """The sizes and colours a question names (canonical spellings)."""

    sizes: frozenset[str] = frozenset()
    """Letter sizes ("XL")."""
    numbers: frozenset[int] = frozenset()
    """Numbered sizes ("size 36")."""
    colours: frozenset[str] = frozenset()


@dataclass(frozen=True)
class OfferedOptions:
    """A product's options, read: `readable` is False when any value is not a size or a colour this
    module knows, and then nothing is judged (the unread value may be what was asked for)."""

    readable: bool
    sizes: tuple[str, ...] = ()
    """The shop's own size values, as written ("S", "26-34")."""
    letter_sizes: frozenset[str] = frozenset()
    numbers: tuple[tuple[int, int], ...] = ()
    """Numbered sizes as inclusive ranges (a single size is a range of one)."""
    colours: tuple[str, ...] = ()
    """Canonical colours, in the shop's order."""
    colour_values: tuple[str, ...] = ()
    """The shop's own colour values, as written ("beige", "light blue")."""


@dataclass(frozen=True)
class NotOffered:
    """What a question asked for that the product does not come in, with what it does come in."""

    sizes: tuple[str, ...] = ()
    """The sizes asked for (none offered); empty when the sizes asked are offered or none was asked."""
    colours: tuple[str, ...] = ()
    offered: OfferedOptions = OfferedOptions(readable=False)

    def __bool__(self) -> bool:
        return bool(self.sizes or self.colours)


def asked_options(text: str) -> AskedOptions:
    """The sizes and colours `text` asks about. A lone S, M or L counts only as a size where it reads
    as one: after "in"/"size", before "size"/"사이즈"/"サイズ", or written as a capital on its own
    ("M 있어요?"), so "a", "i'm" and "let's" name no size."""
    clean = normalize(text)
    sizes = {_SIZE_ALIASES[m.group(0)] for m in _SIZE_WORD.finditer(clean)}
    for match in _LETTER_SIZE.finditer(clean):
        token = match.group(1)
        if len(token) == 1 and not _reads_as_a_size(text, clean, match.start(), match.end()):
            continue
        sizes.add(_SIZE_ALIASES[token])
    numbers = {int(m.group(1) or m.group(2)) for m in _NUMBER_SIZE.finditer(clean)}
    return AskedOptions(frozenset(sizes), frozenset(numbers), frozenset(_colours_in(clean)))


def _reads_as_a_size(original: str, clean: str, start: int, end: int) -> bool:
    if _SIZE_CONTEXT_BEFORE.search(clean[:start]) or _SIZE_CONTEXT_AFTER.match(clean[end:]):
        return True
    letter = clean[start:end].upper()
    return re.search(rf"(?<![A-Za-z0-9'’.]){letter}(?![A-Za-z0-9'’])", original) is not None


def _colours_in(clean: str) -> set[str]:
    """Latin and Hangul colour words where a word begins ("빨간색", "네이비도"); Japanese ones as a whole
    katakana run ("ネイビー") or a kanji run of the colour, with or without 色 ("赤", "紺色"), so 料金
    names no gold."""
    found = {_COLOUR_WORDS[m.group(1)] for m in _LATIN_COLOUR.finditer(clean)}
    found |= {_COLOUR_WORDS[m.group(1)] for m in _HANGUL_COLOUR.finditer(clean)}
    for run in _KATAKANA_RUN.findall(clean) + _KANJI_RUN.findall(clean):
        word = run.removesuffix("色") if len(run) > 1 else run
        if word in _COLOUR_WORDS:
            found.add(_COLOUR_WORDS[word])
    return found


def offered_options(options: Iterable[str]) -> OfferedOptions:
    """The product's options read as sizes and colours (see `OfferedOptions.readable`)."""
    values = [part.strip() for option in options for part in _OPTION_SEPARATORS.split(option) if part.strip()]
    sizes: list[str] = []
    letters: set[str] = set()
    numbers: list[tuple[int, int]] = []
    colours: list[str] = []
    colour_values: list[str] = []
    for value in values:
        clean = normalize(value)
        if clean in _SIZE_ALIASES:
            sizes.append(value)
            letters.add(_SIZE_ALIASES[clean])
        elif (span := _number_span(clean)) is not None:
            sizes.append(value)
            numbers.append(span)
        elif named := _colour_value(clean):
            colours.extend(c for c in named if c not in colours)
            colour_values.append(value)
        else:
            return OfferedOptions(readable=False)
    return OfferedOptions(
        True, tuple(sizes), frozenset(letters), tuple(numbers), tuple(colours), tuple(colour_values)
    )


def _number_span(clean: str) -> tuple[int, int] | None:
    if _NUMBER.match(clean):
        return int(clean), int(clean)
    if match := _RANGE.match(clean):
        low, high = int(match.group(1)), int(match.group(2))
        return (low, high) if low <= high else None
    return None


def _colour_value(clean: str) -> list[str]:
    """The colours an option value is, when it is nothing but colours and shades ("light blue",
    "olive green"); else none."""
    words = clean.replace("-", " ").split()
    named = [_COLOUR_WORDS[w] for w in words if w in _COLOUR_WORDS]
    if not named or any(w not in _COLOUR_WORDS and w not in COLOUR_SHADES for w in words):
        return []
    return named


def not_offered(asked: AskedOptions, options: Iterable[str]) -> NotOffered:
    """The asked sizes or colours the product does not come in. Judged within a kind only (a letter
    size against the product's letter sizes, a number against its numbers: Korean tops are sold as
    95 and 100 too), and only when none of those asked is offered ("navy or red?" is answered by
    the stock line, which lists both)."""
    offered = offered_options(options)
    if not offered.readable:
        return NotOffered()
    sizes: list[str] = []
    if asked.sizes and offered.letter_sizes and not asked.sizes & offered.letter_sizes:
        sizes += sorted(asked.sizes, key=_size_order)
    if (
        asked.numbers
        and offered.numbers
        and not any(low <= n <= high for n in asked.numbers for low, high in offered.numbers)
    ):
        sizes += [str(n) for n in sorted(asked.numbers)]
    colours: list[str] = []
    if asked.colours and offered.colours and not asked.colours & set(offered.colours):
        colours = sorted(asked.colours)
    return NotOffered(tuple(sizes), tuple(colours), offered)


def _size_order(size: str) -> int:
    return LETTER_SIZES.index(size) if size in LETTER_SIZES else len(LETTER_SIZES)


def colour_name(canonical: str, language: Language) -> str:
    """A colour in the customer's language ("navy" -> "네이비")."""
    by_language = COLOURS.get(canonical, {})
    words = by_language.get(language) or by_language.get("en") or (canonical,)
    return words[0]


def colour_value_name(value: str, language: Language) -> str:
    """A shop's colour value in the customer's language when it is one colour word ("beige" ->
    "베이지"), else as the shop wrote it ("light blue")."""
    canonical = _COLOUR_WORDS.get(normalize(value))
    return value if canonical is None else colour_name(canonical, language)


def is_option_word(word: str) -> bool:
    """A size or colour word (any language): it names an option, never a product."""
    return word in _COLOUR_WORDS or word in _SIZE_ALIASES or word in COLOUR_SHADES
