"""Which product of the sources a reply names, in any script, and the numbers its line states.

The subject check (`subjects.py`) reads a number's subject by the words that name a shop policy
(`topics.py`), else by meaning. A catalogue line ("- Ceramic mug 350 ml, 9,000원") names its
product in the shop's language, while a Korean or Japanese reply names most homeware by a loanword
(머그컵, マグカップ, 바스타월, バスタオル) that the sentence encoder does not tie to "mug" or "bath
towel": "コットンのバスタオルは ... 重さは0.8kg" (the tablecloth's weight) passed, "머그컵은 350ml"
was taken for the teapot's. A loanword keeps the consonants of the word it borrows
(`services.text.sounds`), so here a product is named by a Latin word that is its name's last word
(its head: "pot" of "cast-iron pot"), or by a Hangul or katakana word that sounds like its name's
last words ("바스타월" is "bath towel", "머그컵" a mug), or by a native Korean or Japanese word for
homeware (`NATIVE_NAMES`: 냄비 and 鍋 are a pot, 식탁보 a tablecloth).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from services.llm.fact_claims import SOURCES_KEPT, located_claims, prepare, reading_kind
from services.llm.topics import topics
from services.text.numerals import CJK_DIGITS, CJK_SMALL_UNITS, COUNTERS, ENGLISH_SMALL, NATIVE_KOREAN
from services.text.sounds import consonants

_LINE = re.compile(r"^\s*[-*•·]\s*(?P<name>[^\d,:;()（）]{2,40}?)\s*(?=[\d,(（])", re.MULTILINE)
"""A catalogue line: a list item whose name comes before its first number ("- Glass teapot 600 ml,
25,000원")."""
_WORD = re.compile(r"[A-Za-z]+|[\uac00-\ud7a3]+|[\u30a1-\u30fa\u30fc]+")
"""A word of a reply: a run of Latin letters, of Hangul or of katakana."""
_KATAKANA = re.compile(r"[\u30a1-\u30fa]")
NATIVE_NAMES: dict[str, tuple[str, ...]] = {
    "식탁보": ("tablecloth",),
    "테이블보": ("tablecloth",),
    "냄비": ("pot",),
    "무쇠솥": ("pot",),
    "솥": ("pot",),
    "수건": ("towel",),
    "타월": ("towel",),
    "머그": ("mug",),
    "찻주전자": ("teapot",),
    "주전자": ("kettle", "teapot"),
    "찻잔": ("cup",),
    "접시": ("plate",),
    "그릇": ("bowl",),
    "담요": ("blanket",),
    "베개": ("pillow",),
    "鍋": ("pot",),
    "急須": ("teapot",),
    "やかん": ("kettle",),
    "薬缶": ("kettle",),
    "湯呑": ("cup",),
    "皿": ("plate",),
    "茶碗": ("bowl",),
    "毛布": ("blanket",),
    "枕": ("pillow",),
    "テーブル掛け": ("tablecloth",),
}
"""Homeware named in native Korean or Japanese words, or in loanwords too short for their sound to
name it for certain ("머그컵", "타월"), by the English heads a catalogue names it with (the first the
catalogue has: a "주전자" is a kettle, or else the teapot): "냄비는 3.2kg", "鍋は4L"."""
_NATIVE_JAPANESE = re.compile(
    "|".join(
        sorted(
            (name for name in NATIVE_NAMES if not name[0].isascii() and not "가" <= name[0] <= "힣"),
            key=len,
            reverse=True,
        )
    )
)
MIN_SOUNDS = 2
"""A name's sound shorter than this ("PS" is two) names nothing by itself in Hangul or katakana."""
SURE_HANGUL = 3
"""Native Korean words sound like short names ("무게", weight, is "MK" like "mug"; "목욕" too): a
Hangul word names a product for certain only by this many sounds ("티포트", "바스타월"); by fewer it
may confirm a number the product's line states, never condemn one."""


@dataclass(frozen=True)
class Mention:
    end: int
    """Where the name ends in the text."""
    product: Product
    sure: bool
    """By a Latin head, katakana (loanwords all) or a long Hangul sound: `SURE_HANGUL`."""


@dataclass(frozen=True)
class Product:
    name: str
    head: str
    """The name's last word, lower case: a Latin word naming the product."""
    sounds: tuple[str, ...]
    """The consonants of the name's last words, the head alone first: "TR", "PSTR", "KTNPSTR"."""
    words: tuple[str, ...]
    """Each word of its name, lower case, and its consonants: what may name it loosely."""
    values: frozenset[str]
    """What the numbers of its line state (`Claim.needs`)."""
    kinds: frozenset[str]


@functools.lru_cache(maxsize=SOURCES_KEPT)
def catalogue(sources: str) -> tuple[Product, ...]:
    """The products the sources list, each with the numbers of its line."""
    found = []
    for match in _LINE.finditer(sources):
        name = match.group("name").strip()
        words = [word for word in re.split(r"[\s\-]+", name) if word]
        line_end = match.end() + len(sources[match.end() :].partition("\n")[0])
        line = prepare(sources[match.start() : line_end])
        needs = {need for _, _, claim in located_claims(line) for need in claim.needs}
        if not words or not needs or topics(name):
            continue
        sounds = tuple(consonants("".join(words[index:])) for index in range(len(words) - 1, -1, -1))
        kinds = frozenset(reading_kind(need) for need in needs)
        spelled = tuple(word.lower() for word in words) + tuple(consonants(word) for word in words)
        found.append(Product(name, words[-1].lower(), sounds, spelled, frozenset(needs), kinds))
    return tuple(found)


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _by_sound(word: str, products: tuple[Product, ...]) -> tuple[Product, int] | None:
    """The product whose name's last words a Hangul or katakana `word` begins with the sound of,
    and how many sounds: the longest such sound decides ("バスタオル" is the bath towel's "PSTR",
    not a bath's "PS")."""
    sound = consonants(word)
    best: tuple[int, Product | None] = (0, None)
    for product in products:
        lengths = [len(name) for name in product.sounds if sound.startswith(name)]
        if not lengths or max(lengths) < MIN_SOUNDS or max(lengths) < best[0]:
            continue
        length = max(lengths)
        best = (length, None if length == best[0] else product)
    return None if best[1] is None else (best[1], best[0])


def _by_head(words: list[str], products: tuple[Product, ...]) -> Product | None:
    named = [product for product in products if product.head == _singular("".join(words).lower())]
    return named[0] if len(named) == 1 else None


def mentions(text: str, products: tuple[Product, ...], *, before: int | None = None) -> list[Mention]:
    """Each product named in `text[:before]`, with where its name ends: a Latin word (or two written
    apart: "tea pot") that is a name's head, a Hangul or katakana word sounding like it, or a
    native word for it (`NATIVE_NAMES`)."""
    end = len(text) if before is None else before
    words = [match for match in _WORD.finditer(text) if match.end() <= end]
    found: list[Mention] = [
        Mention(match.end(), product, True)
        for match in _NATIVE_JAPANESE.finditer(text, 0, end)
        if (product := _natively(match.group(), products)) is not None
    ]
    index = 0
    while index < len(words):
        word = words[index]
        native = next((name for name in NATIVE_NAMES if word.group().startswith(name)), None)
        if native is not None and (product := _natively(native, products)) is not None:
            found.append(Mention(word.start() + len(native), product, True))
            index += 1
            continue
        if not word.group().isascii():
            # what is measured names nothing: "무게" (weight) sounds like "mug", nor does a verb
            names_nothing = only_attributes(word.group()) or _VERB.match(word.group())
            sounded = None if names_nothing else _by_sound(word.group(), products)
            if sounded is not None:
                sure = _KATAKANA.match(word.group()) is not None or sounded[1] >= SURE_HANGUL
                found.append(Mention(word.end(), sounded[0], sure))
            index += 1
            continue
        pair = words[index : index + 2]
        two = len(pair) == 2 and pair[1].group().isascii() and pair[0].end() + 1 == pair[1].start()
        if two and (product := _by_head([w.group() for w in pair], products)) is not None:
            found.append(Mention(pair[1].end(), product, True))
            index += 2
            continue
        if (product := _by_head([word.group()], products)) is not None:
            found.append(Mention(word.end(), product, True))
        index += 1
    return sorted(found, key=lambda mention: mention.end)


def _natively(name: str, products: tuple[Product, ...]) -> Product | None:
    """The product a native word names: the first of its heads the catalogue has."""
    for head in NATIVE_NAMES[name]:
        if (product := _by_head([head], products)) is not None:
            return product
    return None


_ATTRIBUTES = re.compile(
    r"무게|중량|용량|크기|사이즈|지름|가격|값|길이|폭|가로|세로|높이|부피|그건|이건|요건|약|대략|총"
    r"|重さ|重量|容量|大きさ|サイズ|直径|お?値段|価格|長さ|幅|縦|横|高さ|こちら|それ|約|およそ|全部で"
    # one of it, as a price is said per piece: "한 장에 12,000원", "1枚12,000ウォン"
    r"|(?:한|하나|1)\s?(?:장|개|점|벌)?\s?(?:에|당)|(?:장|개|점)당|(?:一|1)(?:枚|個|点|つ)(?:あたり|につき)?"
)
_VERB = re.compile(r"들어|들여|드려|드립")
"""Verbs that sound like a name ("4리터 들어가고", holds four litres, sounds like "towel")."""
_PARTICLES = re.compile(r"(?:은|는|이|가|을|를|도|의|만)(?![\uac00-\ud7a3])|[はがもので]|[\s\W\d]+")


def only_attributes(text: str) -> bool:
    """Whether Korean or Japanese `text` names no thing of its own, only what is measured of one
    ("重さは", "무게는 약"): a clause that goes on about the product its sentence named."""
    return not _PARTICLES.sub("", _ATTRIBUTES.sub("", text))


def named_loosely(text: str, products: tuple[Product, ...]) -> set[Product]:
    """The products any word of whose names `text` has (or a word sounding like it: "리넨 식탁보" is
    the linen tablecloth's), as a list of several may name them; what is measured ("무게", weight,
    sounds like "mug") names none."""
    found = set()
    for match in _WORD.finditer(_ATTRIBUTES.sub(" ", text)):
        word = match.group()
        heard = word.lower() if word.isascii() else consonants(word)
        for product in products:
            if word.isascii():
                named = _singular(heard) in product.words
            else:
                named = any(len(sound) >= MIN_SOUNDS and heard.startswith(sound) for sound in product.words)
            if named:
                found.add(product)
    return found


_COUNT_AFTER = re.compile(
    r"[^,.;:()（）\n]{0,12}?(?:[×xX]\s?(\d{1,2})(?!\d)|(?<![\d.,])(\d{1,2})\s?(?:点|個|개|장|つ|本|枚|pcs\b))"
)
"""A count written after a product's name, past its size: "cast-iron pot 24 cm x1", "주물 냄비 24cm
×2", "鋳物鍋2点"."""


_WORD_COUNT_AFTER = re.compile(
    r"(?:컵|잔|カップ|ップ)?\s?(두|세|네|다섯|여섯|일곱|여덟|아홉|열|[二三四五六七八九十])\s?(?:개|장|점|벌|잔|つ|個|点|枚|本)"
)
"""A count in words right after a product's name, or the rest of its word: "수건 다섯 장", "タオル四枚",
"머그컵 세 개" (the name read is "머그")."""
_ENGLISH_COUNT_BEFORE = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten)\s+(?:(?!of\b|the\b)[a-z-]+\s+){0,2}[a-z-]+$",
    re.IGNORECASE,
)
"""A count in English words before the head of a product's name, past up to two words: "four
cotton towels"."""


_COUNTERS = f"(?:{COUNTERS})"
_ADDED: tuple[tuple[int, re.Pattern[str]], ...] = tuple(
    (added, re.compile("|".join(patterns), re.IGNORECASE))
    for added, patterns in (
        (
            1,
            (
                r"\b(?:one|another) more\b",
                rf"(?<![가-힣])(?:한|하나)\s?(?:{_COUNTERS}\s?)?더(?![가-힣])",
                rf"もう(?:一|1|ひと)(?:つ|{_COUNTERS})",
            ),
        ),
        (
            2,
            (
                r"\btwo more\b",
                rf"(?<![가-힣])(?:두|둘)\s?(?:{_COUNTERS}\s?)?더(?![가-힣])",
                rf"もう(?:二|2|ふた)(?:つ|{_COUNTERS})",
            ),
        ),
    )
)
"""Things said to be added to those counted before: "one more towel", "한 장 더", "もう1枚"."""


def added(sentence: str) -> int:
    """How many things `sentence` adds to those the sentence before counted, if it says so."""
    return next((count for count, pattern in _ADDED if pattern.search(sentence)), 0)


def counts_of(text: str, products: tuple[Product, ...]) -> dict[Product, set[int]]:
    """The counts `text` writes with each product it names for certain: after it in digits or words
    ("鋳物鍋2点", "수건 다섯 장"), or before it in English words ("four towels")."""
    found: dict[Product, set[int]] = {}
    prepared = prepare(text)
    named = mentions(prepared, products)
    for mention in named:
        if not mention.sure:
            continue
        count = None
        match = _COUNT_AFTER.match(prepared, mention.end)
        if match and any(mention.end < other.end <= match.end() for other in named):
            match = None  # "ティーポットとマグカップ2個": the count of the name after it
        if match:
            count = int(match.group(1) or match.group(2))
        elif match := _WORD_COUNT_AFTER.match(prepared, mention.end):
            word = match.group(1)
            count = NATIVE_KOREAN.get(word) or CJK_DIGITS.get(word) or CJK_SMALL_UNITS.get(word)
        elif match := _ENGLISH_COUNT_BEFORE.search(prepared, 0, mention.end):
            count = ENGLISH_SMALL[match.group(1).lower()]
        if count:
            found.setdefault(mention.product, set()).add(count)
    return found
