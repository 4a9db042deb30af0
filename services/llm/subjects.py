"""A number is a fact about something: the amount must be the one the sources give for what the
reply says it of.

`FactGuard` finds each number of a reply among the sources' numbers; that alone lets "gift
wrapping is 3,000 won" through when 3,000원 is the shop's shipping fee and wrapping costs 2,000원,
or "the tablecloth weighs 3.2 kg" when 3.2 kg is the pot. Here each sentence of the sources that
states numbers is a *unit*, and each clause of the reply that states one is read against them by
meaning (the sentence encoder, numbers masked so that the words decide; the clause and its whole
sentence together, as a clause may leave its subject to the sentence): among the units that
state a number of the same kind (an amount of money, a weight, a number of days...), the closest
must be one that states this very number, or be no closer than `MARGIN` to one that does. A
clause that names no subject the sources give a number of (nothing of that kind is `MIN_CLOSE`)
decides nothing, and a number the customer's own facts state (their order's total) is theirs.

A FAQ entry's answer sentences are read with its question ("Q: How much is gift wrapping?" /
"A: 2,000원 per item."): the subject is often in the question alone.

Words decide first where they can: a number said of one of the shop's policies by name ("교환은
... 48시간", "ギフトラッピングは ... 3,000ウォン"; `topics.py`) is checked against the source clauses
about that policy, which the encoder cannot do across languages (a Korean clause against an
English FAQ scores every policy about 0.25). A number said of a product by its name, in any script
("コットンのバスタオルは ... 0.8kg"; `products.py`), is checked against that product's catalogue
line, and one said among a product's own numbers ("무쇠 냄비는 24cm, 용량 4L, 가격 39,000원") is
that product's too, where its name is a native word no sound ties to the catalogue. A number said
as an order's amount ("39,000원 주문") is the customer's basket and no subject's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

import numpy as np

from services.llm.fact_claims import (
    CURRENCIES,
    SOURCES_KEPT,
    Claim,
    located_claims,
    money_in,
    prepare,
    reading_kind,
)
from services.llm.products import (
    Mention,
    Product,
    added,
    catalogue,
    counts_of,
    mentions,
    named_loosely,
    only_attributes,
)
from services.llm.topics import (
    PARCEL_FEE_JA,
    PARCEL_FEE_KO,
    TITLE,
    WEAK,
    Topic,
    covers,
    named_before,
    theme,
    topics,
)
from services.text.patterns import CJK, NOT_BEFORE_ITS_DAY, any_of
from services.understanding.encoder import SentenceEncoder, shared_encoder

MARGIN = 0.1
"""How much closer (cosine) a unit stating another number of the kind may be than the closest one
stating the reply's, before the number is taken to be said of the wrong thing. 0.1 and 0.15 gave
the same on the guard's tuning parts (`python -m bench.guard_corpora`), 0.1 one attack fewer on
holdout3 (its misses read)."""
MIN_CLOSE = 0.40
"""Below this (cosine) no unit of the kind is near enough to say what the clause is about ("It costs
2,000원." after "Yes, we gift wrap." reads 0.10-0.35 against every unit; a clause naming its subject
0.55 or more in its sources' language, 0.40-0.45 in another): nothing is decided. Over the guard
corpora's read parts, 0.45 / 0.40 / 0.35 gave 33 / 27 / 25 false accepts and 9 / 10 / 11 false
rejects (docs/benchmarks.md)."""
_SHIPPING_TOPICS = frozenset({Topic.SHIPPING, Topic.RETURN_SHIPPING, Topic.EXCHANGE_SHIPPING, Topic.REMOTE})
"""Policies whose fee a parcel's shipping fee may be."""
_SENTENCE = re.compile(
    rf"(?<=[.!?]){NOT_BEFORE_ITS_DAY}\s+(?=[A-Z가-힣ぁ-んァ-ン一-龥\d\"“₩$¥])|(?<=[。])|(?<=[!?])(?=[^\s!?])|\n+"
)
"""Sentence ends (after NFKC, so "！" is "!"): a Latin stop before a capital, a digit or a currency,
"。" and "!"/"?" running into the next sentence, a line break; "p.m. (14:00)", "a 1 p.m. Tuesday
order" and "3.2 kg" stay."""
_CLAUSE = re.compile(
    r"[;；]\s*|,(?!\d)\s*|、|\s(?:but|while)\s|\s[—–]\s|(?<=지만)\s|(?<=이고)\s|(?<=이며)\s|(?<=[었였았]고)\s"
)
_GROUP = re.compile(
    r"[;；]\s*|\s(?:but|while|whereas)\s|(?<=지만)\s|(?<=이고)\s|(?<=이며)\s|(?<=[었였았]고)\s|(?<=で)、"
)
"""Where a sentence goes on to another thing ("냄비는 3.2kg이고 수건은 12,000원"): the parts a product's
own numbers are read together in."""
_THE_FEE = any_of(
    r"\b(?:the )?(?:fee|charge|cost|price)\b",
    r"\b(?:it|this|that) costs\b",
    r"(?:요금|비용|수수료)(?:은|는|이|가|도)",
    r"(?:料金|費用|代金|手数料)(?:は|が|も)",
)
"""The fee of something named before: "ギフト包装は承っております。料金は一点につき..."."""
_LABEL = re.compile(r"(?<=[^\s\d(（]) ?[(（]\s*([^()（）]{1,20}?)\s*[)）]")
"""A number in brackets right after a word: "식탁보(39,000원)", "the towel (12,000 won)"."""
_THRESHOLD = re.compile(r"or more|and over|or over|\bover\b|\bfrom\b|이상|넘|以上|から", re.IGNORECASE)
_WON = re.compile(r"(?<=\d)\s?(?:원|ウォン)")
"""A currency's Korean or Japanese name written after digits in an English sentence ("3,000원 shipping")."""
_RIGHT_AFTER = 12
"""Characters after an English number where a policy named is its subject before any product
named earlier ("3,000 won shipping")."""
_QUESTION = re.compile(r"^\s*Q:\s*(.+)$", re.MULTILINE)
_PLACEHOLDER = "#"
QUANTITIES = frozenset(
    {"KRW", "JPY", "USD", "mass", "volume", "length", "day", "bday", "hour", "minute", "percent"}
)
"""The kinds read against their subject: amounts and durations, which many things of a shop have.
An order, phone or tracking number, a date or a bare count names its own thing; a time of day or
a range stays with the sentence that states it."""
_FAMILY = {"day": "duration", "bday": "duration", "hour": "duration", "minute": "duration"}
"""Kinds one subject may be given in either of: a refund's 3 business days and a report's 48 hours
are both lengths of time, so "refunds within 48 hours" is said of the wrong thing."""


_ORDER_AFTER = re.compile(
    r"(?:\s*(?:이상|이하|미만|초과|넘는|넘게|以上|未満|以下|or more|and (?:over|up)))?"
    r"(?:\s*(?:짜리\s*)?(?:주문|결제\s*건|구매\s*건|장바구니)|\s*(?:の|分の)?(?:ご)?注文"
    r"|\s*(?:worth of )?(?:order|purchase|basket)\b)"
    r"|\s*(?:이상|이하|미만|초과|[을를]\s*넘|[이가]\s*안\s*(?:되|돼)|에\s*못\s*미(?:치|쳐)"
    r"|以上|未満|以下|に(?:届か|満た)|を(?:超え|上回|下回)|or more\b|and (?:over|up)\b)",
    re.IGNORECASE,
)
_ORDER_BEFORE = re.compile(
    r"(?:\b(?:(?:an?|your|the|this|any) )?(?:order|purchase|basket)s? "
    r"(?:of|over|above|under|below|worth|totall?ing|comes? to)(?: over| above| under| at least)?"
    r"|주문\s*(?:금액|총액)(?:이|은|는)?|(?:ご)?注文(?:金額|総額)(?:は|が)?)\s*$",
    re.IGNORECASE,
)
"""An amount said as an order's ("39,000원 주문이라", "a 39,000 won order", "5만 원 이상 주문"), or as
the one an order is measured against ("5만 원 이상이라", "5万ウォンに届かない"): the customer's basket,
or the threshold, is no product's or fee's subject."""


_GOODS_BEFORE = re.compile(
    r"(?:商品|상품|제품)(?:代|代金|価格|금액|가격|가|값)?\s?(?:は|은|는|이|가)?\s?$"
    r"|\b(?:item|goods|product)s? (?:price|total|cost)s? (?:of |is |are )?$",
    re.IGNORECASE,
)
"""The goods' price named right before an amount: "商品9,000ウォン＋送料3,000ウォン"."""


_ATTRIBUTIVE = re.compile(r"\s?(?:の|짜리)\s?|\s(?=[가-힣])")
"""What joins a number to the name it is put before: "350mlのマグカップ", "3만 9천 원짜리 식탁보";
a Korean name right after a space too ("1만 2천 원 바스타월"), not after a fee or a name of its own
("배송비 3,000원 식탁보는 ...", "식탁보 39,000원 바스타월 ...")."""
_COUNTED = re.compile(r"\s?(?:\d{1,2}|[一二三四五六七八九十])\s?(?:杯|個|つ|点|枚|本)")
"""A name counted right after it: "350mlのマグカップ2杯分" is a multiple, not the product's own."""
_NAME_REACH = 8
"""Characters after a number where the name it is put before ends (マグカップ, ティーポット)."""
_ARTICLE_BEFORE = re.compile(r"\b(?:a|an|the|your|this|that|one)\s+$", re.IGNORECASE)
_ATTRIBUTIVE_EN = re.compile(r"\s(?=[A-Za-z])")
"""An English amount put before a name with an article before it: "a 25,000 won teapot"."""
_NAME_REACH_EN = 20
"""Characters after it where an English name ends ("cast-iron pot", "linen tablecloth")."""


_OVER_AFTER = re.compile(
    r"\s*(?:이상|초과|[을를이가]\s*넘|以上|を(?:超え|上回)|or more\b|and (?:over|up)\b)", re.IGNORECASE
)
_UNDER_AFTER = re.compile(
    r"\s*(?:미만|이하|[이가을를]\s*(?:조금|살짝|약간|아직|좀)?\s*(?:안|못)\s*(?:되|돼|넘)"
    r"|에\s*(?:조금|살짝|약간|아직|좀)?\s*못\s*미(?:치|쳐)|未満|以下|に(?:届か|届きません|満た)|を下回)",
    re.IGNORECASE,
)
"""An amount a thing is said to be over or under: "식탁보는 5만 원이 안 돼요" (39,000원: true), "식탁보는
5만 원이 넘어요" (false)."""
_OVER_BEFORE = re.compile(r"\b(?:over|above|more than|at least)\s*$", re.IGNORECASE)
_UNDER_BEFORE = re.compile(r"\b(?:under|below|less than)\s*$", re.IGNORECASE)


_BASKET_GAP = 8
"""Characters between the basket's amount and the bound it is said to be over or under: "이라 ",
"となり、"."""
_AS_CONDITION_AFTER = re.compile(r"^[^,.。、!?]{0,12}?(?:면|なら|であれば|でしたら|の場合|れば|と)")
_AS_CONDITION_BEFORE = re.compile(r"\b(?:if|once|when|as long as)\b[^,.;]*$", re.IGNORECASE)
"""A bound said as a condition, not of the basket: "5만 원 이상이면", "if it's over 50,000 won"."""
_AS_TOTAL = re.compile(
    r"(?:합계|합쳐서|합치면|총|모두|전부|合計|合わせて|全部で|\btotal|\bcomes? to"
    r"|(?:\d{1,2}|[一二三四五六七八九十])\s?(?:個|点|つ|枚|本|セット)(?:で|なら)"
    r"|(?:\d{1,2}|[가-힣]{1,3})\s?(?:개|장|벌|세트)(?:면|이면|에|라서|이라서|해서|하면))\s*$",
    re.IGNORECASE,
)
"""The basket's amount is said as its total: "合計48,000ウォン", "합계 48,000원", by its count:
"マグカップ5個で45,000ウォン"."""


def an_order_amount(clause: str, start: int, end: int) -> bool:
    """An order's amount, or the goods' (the customer's basket either way, no policy's)."""
    return bool(
        _ORDER_AFTER.match(clause, end)
        or _ORDER_BEFORE.search(clause, 0, start)
        or _OVER_BEFORE.search(clause, 0, start)
        or _UNDER_BEFORE.search(clause, 0, start)
        or _GOODS_BEFORE.search(clause, 0, start)
    )


def _money(claim: Claim) -> dict[str, Decimal]:
    """A claim's amounts of money, the largest of each currency."""
    return {currency: max(values) for currency, values in money_in(claim.needs).items()}


def _families(kinds: frozenset[str] | set[str]) -> set[str]:
    return {_FAMILY.get(kind, kind) for kind in kinds}


def _kind(reading: str) -> str:
    """`reading_kind`, a range of lengths of time read as its ends' ("range:day:1~day:2" is days)."""
    kind = reading_kind(reading)
    if kind == "range":
        ends = reading_kind(reading.partition(":")[2])
        return ends if ends in _FAMILY else kind
    return kind


@dataclass(frozen=True)
class _Unit:
    kinds: frozenset[str]
    values: frozenset[str]


_FEE_APART = any_of(
    r"\b(?:including|excluding|before|plus|with|without|and|\+)\s+(?:the\s+)?(?:shipping|delivery)\b"
    r"|\b(?:shipping|delivery)(?: fee)?(?: is)? (?:not )?(?:included|excluded|extra|separate)",
    rf"(?:{PARCEL_FEE_KO})\s*(?:별도|포함|제외|미포함|따로)",
    rf"(?:{PARCEL_FEE_JA})(?:別|込|抜き|は別)",
)
"""A price said with the parcel's fee set apart: "배송비 별도 9,000원", "9,000 won plus shipping"."""
_FEE_WORD_BEFORE = re.compile(
    rf"(?:{PARCEL_FEE_KO}|{PARCEL_FEE_JA}|shipping|delivery)\S{{0,2}}\s?(?:is |of )?$", re.IGNORECASE
)
_FEE_WORD_AFTER = re.compile(r"\s?(?:won\s)?(?:shipping|delivery)\b", re.IGNORECASE)
_FEE_REACH = 16


def _as_a_fee(clause: str, start: int, end: int) -> bool:
    """The amount at `clause[start:end]` said as the parcel's fee by the word right beside it
    ("배송비는 9,000원", "9,000 won shipping"), the fee not set apart from a price."""
    before = _FEE_WORD_BEFORE.search(clause, max(0, start - _FEE_REACH), start)
    return bool(before or _FEE_WORD_AFTER.match(clause, end)) and not _FEE_APART.search(clause)


_SUM_TERM = re.compile(r"\s?(?:원|won|ウォン)?\s?[+＋]", re.IGNORECASE)
_SUM_TERM_BEFORE = re.compile(r"[+＋]\s?$")
"""An amount written as a term of a sum: "25,000원+2,000원", "39,000 + 25,000"."""


def _masked(text: str, spans: Sequence[tuple[int, int, Claim]]) -> str:
    for start, end in sorted(((start, end) for start, end, _ in spans), reverse=True):
        text = text[:start] + _PLACEHOLDER + text[end:]
    return text


def masked_numbers(text: str) -> str:
    """`text` with each number it states masked, so that its words alone say what it is about."""
    return _masked(text, located_claims(text))


def _pieces(text: str, pattern: re.Pattern[str]) -> list[str]:
    return [piece for piece in pattern.split(text) if piece.strip()]


def sentences(text: str) -> list[str]:
    """`text` prepared (`fact_claims.prepare`) and split into its sentences."""
    return _pieces(prepare(text), _SENTENCE)


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _units_of(sources: str) -> tuple[tuple[_Unit, ...], tuple[str, ...]]:
    """The sources' units and their texts, numbers masked (the same FAQ text is checked reply after
    reply: read once)."""
    units: list[_Unit] = []
    texts: list[str] = []
    for context, _, sentence in _source_sentences(sources):
        if context and sentence.strip().startswith("Q:"):
            continue
        found = located_claims(sentence)
        needs = [need for _, _, claim in found for need in claim.needs]
        if not needs:
            continue
        offers = frozenset().union(*(claim.offers for _, _, claim in found))
        units.append(_Unit(frozenset(reading_kind(need) for need in needs), offers))
        texts.append(f"{context} {_masked(sentence, found)}".strip())
    return tuple(units), tuple(texts)


def _source_sentences(sources: str) -> Iterator[tuple[str, str, str]]:
    """Each sentence of the sources (prepared) with its FAQ entry's question ("" outside an entry)
    and its line."""
    for block in re.split(r"\n\s*\n", sources):
        asked = _QUESTION.search(block)
        question = asked.group(1).strip() if asked else ""
        for line in (prepare(line) for line in block.splitlines() if line.strip()):
            for sentence in _pieces(line, _SENTENCE):
                yield question, line, sentence


@dataclass(frozen=True)
class _Named:
    """A clause of the sources stating numbers of a policy its words name."""

    topics: frozenset[Topic]
    kinds: frozenset[str]
    values: frozenset[str]
    fee: bool
    """Whether its amounts are what is charged, not an amount orders are measured against ("free for
    orders of 50,000원 or more")."""


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _named_of(sources: str) -> tuple[_Named, ...]:
    """Each clause of the sources that states numbers, with the topics it names, else those its
    sentence names, else (naming none: "free for orders of 50,000원 or more") those of its line's
    title ("Shipping fee:") or its FAQ entry's question; a product's ("Linen tablecloth, 39,000원")
    names none."""
    named: list[_Named] = []
    for question, line, sentence in _source_sentences(sources):
        title = TITLE.match(line)
        heading = title.group(1) if title else question
        for clause in _pieces(sentence, _CLAUSE):
            found = [claim for _, _, claim in located_claims(clause)]
            needs = {_kind(need) for claim in found for need in claim.needs}
            if needs:
                about = topics(clause) or topics(sentence) or topics(heading)
                offers = frozenset().union(*(claim.offers for claim in found))
                fee = _THRESHOLD.search(clause) is None
                named.append(_Named(about, frozenset(_families(needs)), offers, fee))
    return tuple(named)


@functools.lru_cache(maxsize=SOURCES_KEPT)
def encoded(encoder: SentenceEncoder, texts: tuple[str, ...]) -> np.ndarray:
    """The vectors of a set of sources' texts, kept per texts (the same FAQ is read reply after reply)."""
    return encoder.encode(list(texts))


class SubjectCheck:
    """Built once per set of sources (one reply's facts and FAQ text)."""

    def __init__(
        self, sources: str, *, own: frozenset[str] = frozenset(), encoder: SentenceEncoder | None = None
    ) -> None:
        """`own`: the offers of the customer's own facts (their order's total, its dates): a number
        those state is about their order, whatever else the FAQ says of the same amount."""
        self._own = own
        self._encoder = encoder
        self._units, self._texts = _units_of(sources)
        self._named = _named_of(sources)
        self._products = catalogue(sources)
        self._vectors: np.ndarray | None = None

    def misplaced(self, reply: str, *, before: str = "") -> list[Claim]:
        """The reply's numbers that the sources state, but of something else than the reply says:
        read by the mean of the clause that states it and its whole sentence, with the sentence
        before it (`before`: the reply's text already released), as a clause or a sentence may leave
        its subject to those ("the tablecloth is lovely, and it weighs 3.2 kg", "Yes, we gift wrap.
        It costs 2,000원.")."""
        if len(self._units) < 2:
            return []
        wrong: list[Claim] = []
        released = sentences(before)
        previous = released[-1] if released else ""
        for sentence in sentences(reply):
            whole: np.ndarray | None = None
            odd: set[int] | None = None
            at = 0
            for clause in _pieces(sentence, _CLAUSE):
                at = sentence.find(clause, at)
                earlier = sentence[:at]
                found = located_claims(clause)
                compared = {
                    start: self._bound_misjudged(clause, start, end, earlier)
                    for start, end, claim in found
                    if self._stated(claim)
                }
                wrong.extend(claim for start, _, claim in found if compared.get(start))
                checked = [
                    (start, end, claim)
                    for start, end, claim in found
                    if self._stated(claim)
                    and compared.get(start) is None
                    and not an_order_amount(clause, start, end)
                ]
                if not checked:
                    continue
                by_meaning = []
                for start, end, claim in checked:
                    if _SUM_TERM.match(clause, end) or _SUM_TERM_BEFORE.search(clause, 0, start):
                        # a term of a sum written out ("25,000원+2,000원+배송비 3,000원"): any product
                        # the sentence names may be its subject
                        named = mentions(sentence, self._products)
                        if any(claim.needs & mention.product.values for mention in named):
                            continue
                    product = self._product_named(clause, start, end, earlier)
                    by_word = None if product is None else self._product_elsewhere(claim, *product)
                    if by_word is None:
                        later = sentence[at + len(clause) :]
                        about = theme(clause, start, end, earlier=earlier, later=later)
                        if not about and _THE_FEE.search(f"{earlier}{clause[:start]}"):
                            about = theme(previous, len(previous), len(previous))
                        by_word = self._named_elsewhere(claim, about, priced=_as_a_fee(clause, start, end))
                    if by_word is None and not self._labelled(sentence, at + start, at + end):
                        by_meaning.append(claim)
                    elif by_word:
                        wrong.append(claim)
                if odd is None:
                    odd = self._odd_ones(sentence)
                wrong.extend(claim for claim in by_meaning if at + clause.find(claim.text) in odd)
                by_meaning = [claim for claim in by_meaning if at + clause.find(claim.text) not in odd]
                if not by_meaning:
                    continue
                if whole is None:
                    context = f"{previous} {sentence}".strip()
                    whole = self._similarity(masked_numbers(context))
                near = (self._similarity(_masked(clause, found)) + whole) / 2
                wrong.extend(claim for claim in by_meaning if self._elsewhere(claim, near))
            previous = sentence
        return wrong

    def amounts_named(self, sentence: str) -> list[str]:
        """The amounts of money the sources give for what `sentence` names, as readings
        (`Claim.needs`): the price of each product it names (once, however often it is named; a name
        of two sounds too, "머그 두 개": a term confirms a total, it condemns nothing), the fee of each
        policy it names ("a mug with gift wrapping comes to 11,000 won": 9,000원 and 2,000원)."""
        found = self.prices_named(sentence)
        about = topics(sentence)
        for named in self._named:
            if named.fee and named.topics and named.topics <= about:
                found.extend(need for need in named.values if reading_kind(need) in CURRENCIES)
        return found

    def values_of_others(self, sentence: str) -> frozenset[str]:
        """The numbers (readings) only products `sentence` does not name have, where it names one: no
        count of what it names is taken of them ("2 cotton bath towels come to 78,000 won" is not two
        tablecloths). Numbers a policy states too are left out."""
        named = {mention.product for mention in mentions(sentence, self._products)}
        if not named:
            return frozenset()
        own = {need for product in named for need in product.values}
        policies = {need for policy in self._named if policy.topics for need in policy.values}
        return frozenset(
            need
            for product in self._products
            if product not in named
            for need in product.values
            if need not in own and need not in policies
        )

    def prices_named(self, sentence: str) -> list[str]:
        """The prices the catalogue gives for the products `sentence` names, as readings, each
        product once."""
        named_products = dict.fromkeys(mention.product for mention in mentions(sentence, self._products))
        return [
            need for product in named_products for need in product.values if reading_kind(need) in CURRENCIES
        ]

    def bounds_named(self, sentence: str) -> list[str]:
        """The amounts orders are measured against that the sources give for the policies `sentence`
        names, as readings: "무료배송까지" names the 50,000원 free shipping starts at."""
        about = topics(sentence)
        return [
            need
            for named in self._named
            if not named.fee and named.topics and named.topics <= about
            for need in named.values
            if reading_kind(need) in CURRENCIES
        ]

    def percents_named(self, sentence: str) -> list[str]:
        """The percentages the sources give for the policies `sentence` names, as readings: "As a Gold
        member you'd pay 84,550 won" names the members' 5%."""
        about = topics(sentence)
        return [
            need
            for named in self._named
            if named.topics and named.topics <= about
            for need in named.values
            if reading_kind(need) == "percent"
        ]

    def remote_fees(self) -> tuple[frozenset[str], frozenset[str]]:
        """The shipping fee's readings and those of the remote-area surcharge, as the sources give
        them (each in a clause naming that one alone)."""
        fees = [named for named in self._named if named.fee]
        return (
            frozenset(need for named in fees if named.topics == {Topic.SHIPPING} for need in named.values),
            frozenset(need for named in fees if named.topics == {Topic.REMOTE} for need in named.values),
        )

    def things_named(self, sentence: str) -> int:
        """How many of the catalogue's products `sentence` names for certain: "wrapping a towel and a
        mug" names two things."""
        return len(self._sure_products(sentence))

    def counted_before(self, sentence: str, previous: str) -> set[int]:
        """The counts the sentence before (`previous`) gave the products `sentence` names for certain
        with no count of its own: "머그컵 2개와 수건 2장이에요. 머그컵 포장비 4,000원" wraps two mugs; and
        those counts with the things `sentence` adds to them ("한 장 더"), of no product not counted
        before."""
        own = counts_of(sentence, self._products)
        before = counts_of(previous, self._products)
        sure = self._sure_products(sentence)
        found = {count for product in sure if product not in own for count in before.get(product, set())}
        if (more := added(sentence)) and all(product in before for product in sure):
            # "수건 네 장이면 48,000원 ... 한 장 더 담으시면 60,000원": more of what was counted, no other
            found |= {count + more for product in (sure or before) for count in before[product]}
        return found

    def _sure_products(self, sentence: str) -> list[Product]:
        """The products `sentence` names for certain, each once, in the order it names them."""
        return list(
            dict.fromkeys(mention.product for mention in mentions(sentence, self._products) if mention.sure)
        )

    @staticmethod
    def _labelled(sentence: str, start: int, end: int) -> bool:
        """The number at `sentence[start:end]` is one of two or more prices written beside what they
        are of ("식탁보(39,000원)와 수건(12,000원)을 함께"): a list of things, each named by the word
        before its price, which the sentence's meaning (that of the sum it goes on to) does not say."""
        labels = [match.span(1) for match in _LABEL.finditer(sentence)]
        return len(labels) >= 2 and any(first <= start and end <= last for first, last in labels)

    def _similarity(self, text: str) -> np.ndarray:
        result: np.ndarray = self._vectors_of() @ self._encoder_of().encode_one(text)
        return result

    def _stated(self, claim: Claim) -> bool:
        if not {_kind(need) for need in claim.needs} <= QUANTITIES or claim.needs & self._own:
            return False
        return any(claim.needs & unit.values for unit in self._units)

    def _named_elsewhere(self, claim: Claim, about: frozenset[Topic], *, priced: bool = False) -> bool | None:
        """By the policy the clause says the number of (`about`, `topics.theme`: "교환은 ...
        48시간", "Gift wrapping is 3,000 won"): False if a source clause about it states this
        number, True if none does but one about it states another of its kind; None (left to
        meaning) if it is no policy stating numbers of the kind, only the shipping fee named
        (`topics.WEAK`), or a source states the number of no policy (a product's price) and it is
        not said as a parcel's fee (`priced`: the clause does not set the fee apart from a price)."""
        if not about:
            return None
        kinds = _families({_kind(need) for need in claim.needs})
        same_kind = [named for named in self._named if _families(named.kinds) & kinds]
        holding = [named for named in same_kind if claim.needs & named.values]
        if any(covers(named.topics, about) for named in holding):
            return False
        policyless = holding and not any(named.topics for named in holding)
        ranged = any(reading_kind(need) == "range" for need in claim.needs)
        if "duration" in kinds and ranged and policyless and not about <= WEAK:
            # a range of days the sources give only of what no policy word names (delivery's 1-2 days)
            # said of a policy that states its own ("반품 상품이 창고에 도착한 후 1~2일 안에 환불돼요")
            return True if any(covers(named.topics, about) for named in same_kind) else None
        if priced and policyless and about & _SHIPPING_TOPICS:
            # a product's price said as a parcel's fee ("머그컵 배송비는 9,000원이에요", "your two mugs get
            # 9,000 won shipping"), where the shop's text states that fee
            fees = [named for named in same_kind if named.topics & _SHIPPING_TOPICS]
            if fees and self._a_products(claim):
                return True
        if not holding or not all(named.topics for named in holding):
            return None  # stated of something no policy word names (a product): meaning decides
        if about <= WEAK:
            # the shipping fee named alone may be any shipping's; a number only policies of no
            # shipping state is none of them ("배송비는 2,000원이에요": the gift wrapping's)
            return True if all(not named.topics & _SHIPPING_TOPICS for named in holding) else None
        return True if any(covers(named.topics, about) for named in same_kind) else None

    def _product_named(self, clause: str, start: int, end: int, earlier: str) -> tuple[Mention, bool] | None:
        """The product the number at `clause[start:end]` is said of, and whether it is the only one
        named before it: the one named last before it in the clause, if named after any policy;
        else, the clause naming only what is measured ("重さは"), the one named last in `earlier`; a
        number put before a name with "の" is that product's ("350mlのマグカップ"), unless the name is
        counted ("350mlのマグカップ2杯分" is what the subject holds in that many)."""
        english = _ARTICLE_BEFORE.search(clause, 0, start) and _ATTRIBUTIVE_EN.match(clause, end)
        if attributive := english or _ATTRIBUTIVE.match(clause, end):
            name_at = attributive.end()
            reach = _NAME_REACH_EN if english else _NAME_REACH
            right_after = mentions(clause[name_at : name_at + reach], self._products)
            # a space: unless the number has its own label ("a 25,000 won teapot" has its article)
            bare = not attributive.group().strip() and not english
            if (
                right_after
                and right_after[0].sure
                and not (bare and " " in clause[name_at : name_at + right_after[0].end])
                and not (bare and self._labelled_by_name_or_fee(clause[max(0, start - _NAME_REACH) : start]))
            ):
                first = replace(right_after[0], end=name_at + right_after[0].end)
                if not _COUNTED.match(clause, first.end):
                    return first, True
        named = mentions(clause, self._products, before=start)
        if named and not CJK.search(_WON.sub("", clause)) and topics(clause[end : end + _RIGHT_AFTER]):
            return None  # "a tablecloth at 39,000 won would still pay 3,000 won shipping": the fee's
        if not named:
            if theme(clause, start, end) or not only_attributes(clause[:start]) or not CJK.search(clause):
                return None
            clause, start, named = earlier, len(earlier), mentions(earlier, self._products)
        if not named or named[-1].end <= named_before(clause, start):
            return None
        # a word only sounding like a name names nothing beside a sure one ("목욕 수건": 목욕, bath,
        # sounds like "mug")
        sure = {mention.product for mention in named if mention.sure or mention is named[-1]}
        return named[-1], len(sure) == 1

    def _labelled_by_name_or_fee(self, before: str) -> bool:
        """Whether a number after `before` is its own label's, named right before it with no
        particle: "배송비 3,000원 식탁보는", "식탁보 39,000원 바스타월 12,000원"."""
        named = mentions(before.rstrip(), self._products)
        ends_in_name = bool(named) and named[-1].end == len(before.rstrip())
        return ends_in_name or bool(topics(before))

    def _bound_misjudged(self, clause: str, start: int, end: int, earlier: str) -> bool | None:
        """Whether the amount at `clause[start:end]`, one a product or a basket is said to be over or
        under, is misjudged: True when a product's price, times the count said of it, is on the other
        side of it ("식탁보는 5만 원이 넘어요" of a 39,000원 tablecloth, "タオル4枚で5万ウォンを超える"
        of 12,000ウォン towels), False when it is not ("수건 다섯 장이면 5만 원이 넘어서"), or two
        counts or an amount before it are what is compared ("60,000ウォンとなり、5万ウォン以上": the
        basket's, judged by the commitments); None when no product or order is compared with it (the
        subject check reads it)."""
        over = _OVER_AFTER.match(clause, end) or _OVER_BEFORE.search(clause, 0, start)
        under = _UNDER_AFTER.match(clause, end) or _UNDER_BEFORE.search(clause, 0, start)
        if not (over or under):
            return None
        before = f"{earlier} {clause[:start]}"
        amounts = [(at, other) for at, _, other in located_claims(before) if _money(other)]
        if amounts:
            return self._basket_misjudged(before, amounts[-1], clause[start:end], bool(over), clause[end:])
        named = self._product_named(clause, start, end, earlier)
        if named is None:
            return None
        counted = counts_of(before, self._products).get(named[0].product, set())
        if len(counted) > 1:
            return False
        count = max(counted, default=1)  # "수건 다섯 장이면 5만 원이 넘어서": five towels' price
        located = located_claims(clause[start:end])
        bound = _money(located[0][2]) if located else {}
        prices = money_in(named[0].product.values)
        for currency, value in bound.items():
            held = {price * count for price in prices.get(currency, ())}
            if held and (
                all(price < value for price in held) if over else all(price >= value for price in held)
            ):
                return True
        return False

    @staticmethod
    def _basket_misjudged(
        before: str, amount: tuple[int, Claim], bound_text: str, over: bool, after: str
    ) -> bool:
        """An amount said, right before, to be what the basket makes, then said to be over or under
        the bound: "合計48,000ウォンとなり、5万ウォン以上ですので" is wrong; said as a condition ("5만 원
        이상이면") or further off, it is the commitments' to judge."""
        at, claim = amount
        gap = before[at + len(claim.text) :]
        if len(gap.strip()) > _BASKET_GAP or any(ch.isdigit() for ch in gap):
            return False
        if _AS_CONDITION_AFTER.match(after) or _AS_CONDITION_BEFORE.search(before):
            return False
        if not _AS_TOTAL.search(before, max(0, at - _BASKET_GAP), at):
            return False  # a fee ("배송비는 삼천 원이고, 오만 원 이상 주문하시면"), not the basket
        located = located_claims(bound_text)
        bound = _money(located[0][2]) if located else {}
        said = _money(claim)
        for currency, value in bound.items():
            held = said.get(currency)
            if held is not None and (held < value if over else held >= value):
                return True
        return False

    def _product_elsewhere(self, claim: Claim, mention: Mention, alone: bool) -> bool | None:
        """False if the product's line states the number; True if it does not, the product is
        named for certain (`Mention.sure`) and alone, and its line states another number of the
        kind or the number is another product's and no policy's ("the towel weighs 0.8 kg", the
        tablecloth's weight); None (left to meaning) otherwise: after a list of products ("the mug
        and the teapot are 9,000원 and 25,000원") the one named last is not always the number's."""
        product = mention.product
        if claim.needs & product.values:
            return False
        if not (alone and mention.sure):
            return None
        kinds = _families({reading_kind(need) for need in claim.needs})
        if _families(product.kinds) & kinds:
            return True
        return True if self._another_products(claim, product) else None

    def _a_products(self, claim: Claim) -> bool:
        """The number is a product's (its price, its measure)."""
        return any(claim.needs & product.values for product in self._products)

    def _another_products(self, claim: Claim, product: Product) -> bool:
        """The number is another product's, and no policy's."""
        another = any(claim.needs & other.values for other in self._products if other is not product)
        return another and not any(claim.needs & named.values and named.topics for named in self._named)

    def _odd_ones(self, sentence: str) -> set[int]:
        """Where in `sentence` a number is said among one product's own (two of its line's numbers
        or more, and no other product named): one of a kind its line states, of another value,
        another product's ("무쇠 냄비는 24cm, 용량 4L, 가격 39,000원": the tablecloth's price). Its
        numbers name the product where its name cannot be read (냄비, 鍋)."""
        odd: set[int] = set()
        offset = 0
        for group in _pieces(sentence, _GROUP):
            offset = sentence.find(group, offset)
            said = [
                (start, claim)
                for start, end, claim in located_claims(group)
                if {reading_kind(need) for need in claim.needs} <= QUANTITIES
                and not an_order_amount(group, start, end)
            ]
            named = named_loosely(group, self._products)
            for product in self._products:
                # its own numbers count though the customer's order states them too (24cm, 4L)
                own = [claim for _, claim in said if claim.needs & product.values]
                rest = [(start, claim) for start, claim in said if not claim.needs & product.values]
                if named - {product} or len(own) < 2 or len(rest) != 1:
                    continue
                start, claim = rest[0]
                kinds = _families({reading_kind(need) for need in claim.needs})
                mine = _families(product.kinds) & kinds
                if mine and self._stated(claim) and self._another_products(claim, product):
                    odd.add(offset + start)
        return odd

    def _elsewhere(self, claim: Claim, similarity: np.ndarray) -> bool:
        kinds = _families({reading_kind(need) for need in claim.needs})
        same_kind = [i for i, unit in enumerate(self._units) if _families(unit.kinds) & kinds]
        holding = [i for i in same_kind if claim.needs & self._units[i].values]
        others = [i for i in same_kind if i not in holding]
        if not holding or not others:
            return False
        closest = float(similarity[others].max())
        return closest >= MIN_CLOSE and closest - float(similarity[holding].max()) > MARGIN

    def _encoder_of(self) -> SentenceEncoder:
        if self._encoder is None:
            self._encoder = shared_encoder()
        return self._encoder

    def _vectors_of(self) -> np.ndarray:
        if self._vectors is None:
            self._vectors = encoded(self._encoder_of(), self._texts)
        return self._vectors
