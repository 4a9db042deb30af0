"""Order numbers, SKUs and product names found in customer text."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from functools import lru_cache

from services.catalogue.words import korean_stem, thing_words
from services.orders.codes import OrderCodes
from services.shop.sources.base import compact_reference
from services.text.normalize import detect_language, normalize
from services.text.sentences import Language

# Digits may touch Hangul or kana ("20240115-001234배송"), where \b does not
# hold, so boundaries are "no digit on either side".
_DATED_ORDER = re.compile(r"(?<!\d)(\d{8}-\d{4,7})(?!\d)")
_HASH_ORDER = re.compile(r"#\s?(\d{3,12})(?!\d)")
_PLAIN_ID = re.compile(r"(?<![\d-])(\d{8,12})(?![\d-])")
_SKU = re.compile(r"(?<![a-z0-9])sku[\s_-]?(\d{2,8})(?!\d)", re.IGNORECASE)
# csbot files `RMA-` + 14 digits (db.repositories.returns.new_rma_number); customers also type
# them with a dash inside, or a shop's older style (`RMA-2024-0001`): the whole number is read,
# dashes and all, so "RMA-2024-0001" is never cut to "RMA-2024".
_RMA = re.compile(r"(?<![a-z0-9])rma[\s_-]?(\d{4,16}|\d{1,8}(?:-\d{1,8}){1,3})(?![\d-]*\d)", re.IGNORECASE)
_MOBILE_PHONE = re.compile(r"^01[016789]\d{7,8}$")
# A shop's own coded numbers: `HB-2026-0001`, `ORD20260001`, `A-100234`: a short letter
# prefix and at least six digits. Asking about one that is not the customer's costs nothing
# (it reads as "not found"), so a generous pattern is safe; known SKUs are left out.
_CODED_ORDER = re.compile(r"(?<![a-z0-9-])([a-z]{1,5}-?\d[\d-]*\d)(?![a-z0-9-])")


@dataclass(frozen=True)
class Entities:
    order_numbers: tuple[str, ...] = ()
    skus: tuple[str, ...] = ()
    rma_numbers: tuple[str, ...] = ()
    products: tuple[str, ...] = ()
    """SKUs of catalogue products named by (part of) their name."""
    product_words: tuple[str, ...] = field(default=(), compare=False)
    """How the text named them (its own words, normalised): what `without_product_names` replaces."""
    near_misses: tuple[str, ...] = ()
    """Those of `products` the text named only in part, next to a thing they are not ("wool coat"
    found the Wool Beanie by "wool"): close names to offer, never the answer."""
    other_things: tuple[str, ...] = field(default=(), compare=False)
    """Words that name a thing no found product is ("sneakers", "가방"): a stock question with them
    is not about the chat's last product (`services/catalogue/words.py`)."""

    def as_dict(self) -> dict[str, list[str]]:
        return {
            f.name: list(getattr(self, f.name))
            for f in fields(self)
            if f.name not in _TEXT_WORDS and getattr(self, f.name)
        }

    @property
    def answered_products(self) -> tuple[str, ...]:
        """The products the text names, without its near misses: the ones to answer about."""
        return tuple(sku for sku in self.products if sku not in self.near_misses)


_TEXT_WORDS = frozenset({"product_words", "other_things"})
"""Fields that hold the customer's own words: not logged as entities."""


@dataclass(frozen=True)
class CatalogueName:
    sku: str
    names: tuple[str, ...]
    kinds: tuple[str, ...] = ()
    """What kind of thing it is beyond its names' last words (the shop's category: "원두")."""


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def _unique_orders(values: Iterable[str]) -> tuple[str, ...]:
    """One reference per order however it was typed ("MC2026-0003" read by two patterns)."""
    seen: dict[str, str] = {}
    for value in values:
        seen.setdefault(compact_reference(value), value)
    return tuple(seen.values())


MAX_PRODUCTS_PER_MESSAGE = 5
"""A word shared by more products than this ("shirt") names none of them."""
_ASCII_TOKEN = re.compile(r"[a-z0-9](?:[a-z0-9._/-]*[a-z0-9])?")
_EDGE_PUNCTUATION = "()[]{}.,!?;:'\"「」『』、。・~"
_MAX_STEM = 24


def _name_words(name: str) -> list[str]:
    words = (word.strip(_EDGE_PUNCTUATION) for word in normalize(name).split())
    return [word for word in words if word]


def _long_enough(word: str) -> bool:
    """Short Latin words ("the", "set") and bare numbers ("2024") name no product."""
    if word.isdigit():
        return False
    return len(word) >= (4 if word.isascii() else 2)


_KANA_OR_KANJI = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _compound_parts(word: str) -> list[str]:
    """Japanese writes compounds without spaces ("ガスストーブ"): its leading and trailing
    parts of 3 or more characters ("ストーブ") name the product too, and so do the leading and
    trailing parts of 2 or more of each run of kanji in it ("緑茶" of "有機緑茶リーフ": a kanji
    word is often two characters)."""
    parts = []
    if len(word) >= 5 and _KANA_OR_KANJI.search(word):
        parts = [word[:end] for end in range(3, len(word))] + [
            word[start:] for start in range(1, len(word) - 2)
        ]
    for run in _KANJI_RUN.findall(word):
        if run != word:
            parts.append(run)
        parts += [run[:end] for end in range(2, len(run))] + [run[start:] for start in range(1, len(run) - 1)]
    return list(dict.fromkeys(parts))


_KANJI_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")


def _candidates(clean: str) -> set[str]:
    """Every key a catalogue index could hold that this text may mention.

    Latin words must stand alone ("tent" is not in "content"); Hangul and kana carry
    particles and have no spaces in Japanese ("텐트는", "チタンマグの"), so every
    substring of a non-Latin run is a candidate: a few hundred dictionary look-ups,
    whatever the size of the catalogue.
    """
    found = set(_ASCII_TOKEN.findall(clean))
    for word in clean.split():
        word = word.strip(_EDGE_PUNCTUATION)
        found.add(word)
        if not word.isascii():
            for start in range(len(word)):
                for end in range(start + 2, min(len(word), start + _MAX_STEM) + 1):
                    found.add(word[start:end])
    return found


class EntityExtractor:
    """Regexes for ids plus indexes of the catalogue's SKUs, names and name words.

    The catalogue is passed in (not read here) so extraction stays a pure function that
    tests and the CLI can run without a database. Look-ups go from the text's words to
    the catalogue, never over the whole catalogue, so 100,000 products cost what 5 do.
    """

    def __init__(
        self, catalogue: Iterable[CatalogueName] = (), *, order_codes: OrderCodes | None = None
    ) -> None:
        """`order_codes`: the shop's order-number shapes, learned from its orders."""
        self.order_codes = order_codes or OrderCodes()
        items = list(catalogue)
        self._skus = {normalize(item.sku): item.sku for item in items}
        self.products = len(self._skus)
        """How many products the index knows."""
        self._names = {item.sku: item.names for item in items}
        self._kinds = {item.sku: item.names + item.kinds for item in items}
        """Names and kinds: a word of them after a product's name is no other kind of thing."""
        """Each product's names: what a chat's remembered product is called, what tells a near miss."""
        self._names_by_first_word: dict[str, list[tuple[str, str]]] = {}
        owners: dict[str, set[str]] = {}
        self._stems: dict[str, str] = {}
        """a part of a Japanese compound counts as the word it is part of"""
        # A kind of thing ("원두", "beans") names no one product: "오래된 원두는 싫어요" asks about
        # beans in general, though "콜롬비아 원두" (a whole alias) names one.
        kind_words = {word for item in items for kind in item.kinds for word in _name_words(kind)}
        for item in items:
            for name in dict.fromkeys(n for n in item.names if n):
                words = _name_words(name)
                if not words:
                    continue
                self._names_by_first_word.setdefault(words[0], []).append((" ".join(words), item.sku))
                for word in words:
                    if word in kind_words:
                        continue
                    if _long_enough(word):
                        owners.setdefault(word, set()).add(item.sku)
                    for part in _compound_parts(word):
                        owners.setdefault(part, set()).add(item.sku)
                        self._stems.setdefault(part, word)
        self._words = {word: skus for word, skus in owners.items() if len(skus) <= MAX_PRODUCTS_PER_MESSAGE}

    def extract(self, text: str) -> Entities:
        clean = normalize(text)
        without_rmas = _RMA.sub(" ", clean)  # "RMA-20261130-123456" holds an order-shaped number
        shop_codes = [code.upper() for code in self.order_codes.find(without_rmas)]
        dated = _DATED_ORDER.findall(without_rmas)
        hashed = _HASH_ORDER.findall(without_rmas)
        without_ids = _SKU.sub(" ", _DATED_ORDER.sub(" ", without_rmas))
        plain = [d for d in _PLAIN_ID.findall(without_ids) if not _MOBILE_PHONE.match(d)]
        candidates = _candidates(clean)
        known_skus = [self._skus[token] for token in _ASCII_TOKEN.findall(clean) if token in self._skus]
        coded = [
            token.upper()
            for token in _CODED_ORDER.findall(clean)
            if sum(ch.isdigit() for ch in token) >= 6
            and token not in self._skus
            and not _SKU.fullmatch(token)
            and not _RMA.fullmatch(token)
        ]
        # A code is read whole: "MC20261130-0003" is never also its part "20261130-0003".
        whole = [*shop_codes, *coded]
        dated = [d for d in dated if not any(d in token and d != token for token in whole)]
        plain = [d for d in plain if not any(d in token for token in whole)]
        coded = [c for c in coded if not any(c in token and c != token for token in shop_codes)]
        products, product_words, surfaces = self._products(clean, candidates)
        words = _unique(thing_words(self._without_codes(clean)))
        others = {
            sku: [w for w in words if not word_of_names(w, self._kinds.get(sku, ()))] for sku in products
        }
        return Entities(
            order_numbers=_unique_orders([*shop_codes, *dated, *hashed, *plain, *coded]),
            skus=_unique([*known_skus, *(f"SKU-{digits}" for digits in _SKU.findall(clean))]),
            rma_numbers=_unique(f"RMA-{digits}" for digits in _RMA.findall(clean)),
            products=products,
            product_words=product_words,
            near_misses=tuple(
                sku
                for sku in products
                if sku in surfaces
                and others[sku]
                and _names_another_kind(clean, surfaces[sku], self._kinds.get(sku, ()))
            ),
            other_things=_unique(w for w in words if all(w in others[sku] for sku in products)),
        )

    def example_name(self, language: Language) -> str | None:
        """The first product's name written in `language`'s script, else its first name."""
        for names in self._names.values():
            if names:
                return next((name for name in names if detect_language(name) == language), names[0])
        return None

    def names_of(self, sku: str) -> tuple[str, ...]:
        """The product's names, as the index has them (none for a SKU it does not know)."""
        return self._names.get(sku, ())

    def _without_codes(self, clean: str) -> str:
        """The text without product codes and RMA numbers: their letters name no thing."""
        text = _RMA.sub(" ", _SKU.sub(" ", clean))
        return " ".join(token for token in text.split() if token.strip(_EDGE_PUNCTUATION) not in self._skus)

    def _products(
        self, clean: str, candidates: set[str]
    ) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, set[str]]]:
        """SKUs, the words that named them and, for products named in part (not by a whole name),
        the text's words that named each. Whole names first; else the products most of whose
        named words the text has."""
        spaced = " ".join(word.strip(_EDGE_PUNCTUATION) for word in clean.split())
        whole = sorted(
            (
                (name, sku)
                for word in candidates
                for name, sku in self._names_by_first_word.get(word, ())
                if _contains_name(spaced, name)
            ),
            key=lambda pair: -len(pair[0]),
        )
        if whole:
            named = _unique(sku for _, sku in whole)[:MAX_PRODUCTS_PER_MESSAGE]
            return named, _unique(name for name, sku in whole if sku in named), {}
        hits: dict[str, set[str]] = {}
        surfaces: dict[str, set[str]] = {}
        for word in candidates:
            if (
                word in self._words
                and _mentions(clean, word)
                and (word not in self._stems or _ends_a_word(clean, word))
            ):
                for sku in self._words[word]:
                    hits.setdefault(sku, set()).add(self._stems.get(word, word))
                    surfaces.setdefault(sku, set()).add(word)
        # "merino socks": the sweater matched only "merino", which the socks matched too,
        # so the socks are meant; "tent and titanium mug": neither covers the other, both are.
        chosen = sorted(
            sku for sku, words in hits.items() if not any(words < other for other in hits.values())
        )
        if len(chosen) > MAX_PRODUCTS_PER_MESSAGE:
            return (), (), {}
        named_by = {sku: surfaces[sku] for sku in chosen}
        return tuple(chosen), tuple(sorted({word for sku in chosen for word in surfaces[sku]})), named_by


_NOT_A_HEAD = frozenset({"of", "for", "with", "and", "the", "set", "pack"})


def _heads(names: Iterable[str]) -> set[str]:
    """The word of each name that says what kind of thing the product is: its last word, before
    any comma and leaving out sizes and counts ("Titanium Mug 450ml": mug; "Headlamp 400,
    rechargeable": headlamp), and a Japanese compound's trailing parts ("ビーニー" of "ウールビーニー")."""
    heads: set[str] = set()
    for name in names:
        words = [
            word
            for word in _name_words(re.split(r"[,(]", name)[0])
            if not any(ch.isdigit() for ch in word) and word not in _NOT_A_HEAD
        ]
        if words:
            head = words[-1]
            heads.add(head)
            heads.update(head[start:] for start in range(1, len(head) - 2) if _KANA_OR_KANJI.search(head))
    return heads


def _names_another_kind(clean: str, surfaces: Iterable[str], names: Sequence[str]) -> bool:
    """The words that found the product leave out its kind, and the word that follows them names
    another: "wool coat", "denim jacket", "데님 자켓", "데님자켓", "ウールのコート". English, Korean and
    Japanese put a phrase's kind last, so "wool" followed by "coat" asks for a coat. The name's own
    head word ("beanie", "pants") names its kind whatever follows ("beanie hat"), and a following
    word of the name itself ("tote bag", "linen shirt" of "Linen Overshirt") is no other kind."""
    heads = _heads(names)
    if any(word in heads or _singular(word) in heads for word in surfaces):
        return False
    ends = [end for word in surfaces for end in _ends_of(clean, word)]
    if not ends:
        return False
    following = _word_after(clean, max(ends))
    return bool(following and thing_words(following) and not word_of_names(following, names))


def _ends_of(text: str, word: str) -> list[int]:
    """Where each mention of `word` ends (Latin words whole, others anywhere: "비니는")."""
    pattern = rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])" if word.isascii() else re.escape(word)
    return [match.end() for match in re.finditer(pattern, text)]


_JOINING_NO = "の"
"""Japanese "X の Y" is "Y of X": Y is the kind asked for ("ウールのコート")."""


def _word_after(text: str, end: int) -> str:
    """The word that follows a product's word ending at `end`, in the same phrase: the rest of its
    own Korean or Japanese run unless that is a particle ("데님자켓" -> "자켓", "텐트는" -> ""), else
    the next word after spaces or の; "" where punctuation or a particle ends the phrase."""
    rest = text[end:]
    run = re.match(r"[\uac00-\ud7a3\u30a0-\u30ff\u4e00-\u9fff]+", rest)
    if run and text[end - 1 : end].isascii() is False:
        word = run.group(0)
        return "" if not thing_words(word) else korean_stem(word)
    if rest.startswith(_JOINING_NO):
        rest = rest[len(_JOINING_NO) :]
    elif re.match(r"[\u3040-\u309f]", rest):
        return ""  # a Japanese particle ends the phrase ("ウールは")
    rest = rest.lstrip(" ")
    following = re.match(r"[a-z0-9]+|[\uac00-\ud7a3]+|[\u30a0-\u30ff]+|[\u4e00-\u9fff]+", rest)
    return korean_stem(following.group(0)) if following else ""


def word_of_names(word: str, names: Sequence[str]) -> bool:
    """`word` (one of `thing_words`) is part of the product's names: one of their words ("denim"),
    its plural ("aprons"), the end of a compound the name has ("shirt" of "overshirt", "셔츠" of
    "오버셔츠"), or a Korean or Japanese run of its words with particles ("비니는", "와이드팬츠")."""
    name_words, parts = _words_and_parts(tuple(names))
    if word in name_words or _singular(word) in name_words:
        return True
    if word.isascii():
        return any(len(word) >= 4 and w.endswith(_singular(word)) for w in name_words)
    rest = word
    for part in parts:
        rest = rest.replace(part, " ")
    rest = "".join(piece for piece in rest.split() if thing_words(piece))
    return not rest or any(w.endswith(korean_stem(rest)) for w in name_words if not w.isascii())


@lru_cache(maxsize=1024)
def _words_and_parts(names: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """A product's name words, and those and their compound parts longest first (asked per word of a
    message: worked out once per product)."""
    name_words = frozenset(w for name in names for w in _name_words(name))
    parts = {p for w in name_words for p in (w, *_compound_parts(w)) if len(p) >= 2}
    return name_words, tuple(sorted(parts, key=len, reverse=True))


def _singular(word: str) -> str:
    """ "aprons" -> "apron", "boxes" -> "box": enough to compare a plural with a name's word."""
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


_NEUTRAL_NOUN = {"latin": "item", "hangul": "상품", "other": "商品"}
NEUTRAL_NOUNS = tuple(_NEUTRAL_NOUN.values())
"""What `without_product_names` puts where a product was named."""
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def without_product_names(text: str, words: Iterable[str]) -> str:
    """`text` with the words that named products replaced by a neutral noun ("item", "상품", "商品").

    Why: most of the intent examples that name a product ask about stock, so a name pulled
    "I want to return the merino sweater, it's too small" to stock by its meaning and its words,
    and then again by the product cue. With the name neutral, the cue alone says a product was
    named (README, *A named product is no stock question by itself*). Case and runs of spaces in the
    text do not matter; a name the text spells otherwise (full-width letters) stays.
    """
    for word in sorted(words, key=len, reverse=True):
        body = r"\s+".join(re.escape(part) for part in word.split())
        latin = word.isascii()
        pattern = rf"(?<![a-z0-9]){body}(?![a-z0-9])" if latin else body
        kind = "latin" if latin else "hangul" if _HANGUL.search(word) else "other"
        text = re.sub(pattern, _NEUTRAL_NOUN[kind], text, flags=re.IGNORECASE)
    return _REPEATED_NOUN.sub(r"\1", text)  # "merino" and "sweater" named one product: one "item"


_REPEATED_NOUN = re.compile(r"(item|상품|商品)(?:\s*\1)+")


def _contains_name(text: str, name: str) -> bool:
    """The whole name, not the start of a longer one: "상품 452" is not in "상품 4521"."""
    start = text.find(name)
    while start != -1:
        before = text[start - 1] if start else " "
        end = start + len(name)
        after = text[end] if end < len(text) else " "
        latin_start = name[0].isascii() and name[0].isalnum()
        latin_end = name[-1].isascii() and name[-1].isalnum()
        if not (latin_start and before.isascii() and before.isalnum()) and not (
            latin_end and after.isascii() and after.isalnum()
        ):
            return True
        start = text.find(name, start + 1)
    return False


def _mentions(text: str, word: str) -> bool:
    """Latin words need word boundaries; Hangul stems may carry particles ("비니는")."""
    if not word.isascii():
        return word in text
    return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", text) is not None


_KATAKANA = re.compile(r"[\u30a0-\u30ff]")


def _ends_a_word(text: str, part: str) -> bool:
    """A part of a compound name where the text's own word ends: "キャン" of "キャンバス" is not in
    "キャンペーン" (the katakana goes on), "トート" is in "トートの" and "トート 在庫"."""
    start = text.find(part)
    while start != -1:
        end = start + len(part)
        if end == len(text) or not _KATAKANA.match(text[end]):
            return True
        start = text.find(part, start + 1)
    return False


_SKU_LIKE = re.compile(r"(?<![a-z0-9])([a-z0-9]+(?:[-_./][a-z0-9]+)*)(?![a-z0-9])")


def sku_like_tokens(text: str, limit: int = 5) -> tuple[str, ...]:
    """Words that could be a SKU csbot has not indexed (a catalogue read live, or imported
    after start): letters and digits mixed, or joined by dashes; `BAG-30L`, `A1001`."""
    found = []
    for token in _SKU_LIKE.findall(normalize(text)):
        has_digit = any(ch.isdigit() for ch in token)
        has_letter = any(ch.isalpha() for ch in token)
        if len(token) >= 3 and has_digit and (has_letter or "-" in token):
            found.append(token.upper())
    return _unique(found)[:limit]
