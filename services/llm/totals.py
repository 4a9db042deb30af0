"""The goods a sentence names, totalled: the first amount said as their total must be what their
prices make.

"티포트 하나랑 머그 하나면 36,000원이라 배송비 3,000원 더해서 39,000원이에요" of a 25,000원 teapot and
a 9,000원 mug is wrong, whatever else the sources' numbers make of 36,000원 (39,000원 less the
3,000원 fee is also 36,000원). The total may hold the fees of the policies the sentence names (the
shipping fee, gift wrapping per item) and the discounts it names: "a teapot and a mug come to
37,000 won with shipping" is 34,000원 and 3,000원.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from services.llm.fact_claims import Claim, located_claims, money_in, prepare
from services.llm.products import Mention, Product, counts_of, mentions
from services.llm.topics import topics
from services.text.patterns import any_of

MAX_ITEMS = 9
"""A basket of more things than this is left alone: each fee may be counted once per thing, and the
ways of counting them grow with the basket."""

_TOTAL_BEFORE = any_of(
    r"\b(?:comes? to|come out to|adds? up to|totals?|total of|in total|altogether|together|that'?s)"
    r"\s*(?:is\s*|of\s*|just\s*|only\s*)?(?:₩\s*)?$",
    r"(?:합치면|합쳐서|합계|총|모두|전부)\s*(?:해서\s*)?$",
    r"(?:合計|合わせて|全部で)\s*(?:で\s*)?$",
)
"""The amount named as the total: "A teapot and a mug come to 36,000 won", "합치면 36,000원"."""
_TOTAL_AFTER = re.compile(
    r"\s*(?:이라|이니|이고|이며|이에요|입니다|예요|이 (?:되|돼|나와)|になり|です|ちょうど|で[、,])"
)
"""The amount said to be what the goods make: "티포트 하나랑 머그 하나면 36,000원이라"."""
_COMPARED_AFTER = any_of(
    r"\s*(?:이상|이하|미만|초과|[을를이가에]\s*(?:넘|안\s*(?:되|돼)|못\s*미|미치|도달|부족|모자)|까지|기준|부터)",
    r"\s*(?:以上|以下|未満|を(?:超え|上回|下回)|に(?:届|満た)|まで|から)",
    r"\s*(?:or more|or less|and (?:over|up)|threshold|minimum|short|more|less)\b",
)
_COMPARED_BEFORE = re.compile(
    r"\b(?:over|above|under|below|more than|less than|at least|short of|reach|from)\s*(?:₩\s*)?$", re.I
)
"""An amount the goods are measured against, not their total: "합치면 5만 원이 넘어서"."""
_ANOTHER_AMOUNT = any_of(
    r"\b(?:difference|cheaper|pricier|more expensive|less|more|fee|cost of|charge)\b",
    r"차이|차액|비싸|저렴|싸|비용|요금|값만|포장",
    r"差|高い|安い|代|料|費|包装|包ん|包み",
)
"""Another amount than the goods' total said after their names: "価格差は", "ラッピング代は"."""
_PLURAL = re.compile(r"(?<=[a-z])s\b")
GOODS_AMOUNT = any_of(
    r"\b(?:sub-?total|(?:goods|items?|products?|merchandise)(?:'s?)? (?:total|subtotal|come to|cost))\b",
    r"상품\s?(?:금액|가격|대금|합계|값)|물건\s?값",
    r"商品(?:代金?|金額|合計|の合計|価格)",
)
"""The goods' amount named as such ("商品代30,000ウォン", "상품 금액은"): of the goods the sentence before
named, with no fee in it unless said with one (`_WITH_A_FEE`)."""
_WITH_A_FEE = any_of(
    r"\s*(?:won\s*)?(?:with|including|incl\.?|plus)\b",
    r"\s*(?:원\s*)?\(?(?:배송비|포장비?)\s?(?:포함|까지)",
    r"\s*(?:ウォン\s*)?[(（]?(?:送料|包装代?)(?:込み|を含|込)",
)
"""A fee said with the goods' amount right after it: "33,000 won with shipping" (matched at its end)."""
_FEE_INCLUDED = any_of(
    r"\b(?:with|including|incl\.?|plus)\b", r"포함|까지\s?(?:합쳐|더해)", r"込み|を含め|込"
)
"""A fee said to be in the goods' amount before it: "상품 금액은 배송비 포함 33,000원"."""


def _goods(
    prefix: str, named: list[Mention], products: tuple[Product, ...], currency: str
) -> tuple[Decimal, int] | None:
    """What the products `prefix` names for certain (`named`) cost together in `currency`, and how
    many things they are; None when a count is unclear ("mugs", "머그 두세 개") or a price is not one
    amount."""
    counted = counts_of(prefix, products)
    total, items = Decimal(0), 0
    for product in dict.fromkeys(mention.product for mention in named):
        said = counted.get(product, set())
        if len(said) > 1:
            return None
        if not said and any(
            mention.product is product and _PLURAL.match(prefix, mention.end - 1) for mention in named
        ):
            return None
        prices = money_in(product.values).get(currency, set())
        if len(prices) != 1:
            return None
        count = next(iter(said), 1)
        total += count * next(iter(prices))
        items += count
    return (total, items) if items else None


def mistotalled(
    sentence: str,
    products: tuple[Product, ...],
    *,
    fees: Callable[[str], Iterable[str]],
    percents: Callable[[str], Iterable[str]],
    previous: str = "",
) -> list[str]:
    """The first amount of `sentence`, said as the total of the two or more things it names before
    it, where the things' prices (times their counts), with any of the fees (`fees`: readings of the
    amounts the sources give for what it names, as `SubjectCheck.amounts_named`) and any discount
    (`percents`) it names, do not make it. An amount named as the goods' (`GOODS_AMOUNT`) with no
    things named before it is of the things of the sentence before (`previous`), with no fee."""
    said = _total_said(sentence, products, fees=fees, percents=percents, previous=previous)
    if said is None or said.made:
        return []
    return [f"{said.claim.text} (not what the things it is said of come to)"]


def goods_totalled(
    told: Sequence[str],
    products: tuple[Product, ...],
    *,
    fees: Callable[[str], Iterable[str]],
    percents: Callable[[str], Iterable[str]],
    before: str = "",
) -> frozenset[str]:
    """The amounts of `told` (its sentences, after the text already released, `before`) named as the
    goods' that the things of the sentence before make: "マグカップ二つとバスタオル一枚をお包みします。
    商品代30,000ウォン" (claims' texts)."""
    found = set()
    for previous, sentence in itertools.pairwise([before, *told]):
        said = _total_said(sentence, products, fees=fees, percents=percents, previous=previous)
        if said is not None and said.goods_only and said.made:
            found.add(said.claim.text)
    return frozenset(found)


@dataclass(frozen=True)
class _Total:
    claim: Claim
    goods_only: bool
    """Named as the goods' amount, of the things of the sentence before."""
    made: bool
    """What the things make, with the fees and discounts the sentence names."""


def _total_said(
    sentence: str,
    products: tuple[Product, ...],
    *,
    fees: Callable[[str], Iterable[str]],
    percents: Callable[[str], Iterable[str]],
    previous: str,
) -> _Total | None:
    """The first amount of `sentence` said as the total of two or more things (`mistotalled`), and
    whether they make it; None where it is no such total."""
    prepared = prepare(sentence)
    money = [
        (start, end, claim, found)
        for start, end, claim in located_claims(prepared)
        if (found := money_in(claim.needs))
    ]
    if not money:
        return None
    start, end, claim, found = money[0]
    prefix = prepared[:start]
    if _COMPARED_BEFORE.search(prefix) or _COMPARED_AFTER.match(prepared, end):
        return None
    label = GOODS_AMOUNT.search(prefix)
    goods_only = label is not None and not any(mention.sure for mention in mentions(prefix, products))
    # "상품 금액은 배송비 포함 33,000원": the fee said between the label and the amount
    included = label is not None and _FEE_INCLUDED.search(prefix, label.end()) is not None
    if goods_only and label is not None:
        # "マグカップ二つとバスタオル一枚です。商品代31,000ウォン": the label is no other amount
        blank = " " * len(label.group())
        prefix = f"{prepare(previous)} {prefix[: label.start()]}{blank}{prefix[label.end() :]}"
    elif not (_TOTAL_BEFORE.search(prefix) or _TOTAL_AFTER.match(prepared, end)):
        return None
    named = [mention for mention in mentions(prefix, products) if mention.sure]
    between = prefix[named[-1].end :] if named and not goods_only else ""
    if topics(between) or _ANOTHER_AMOUNT.search(between):
        return None  # the wrapping's cost, the price difference, the fee
    said = None
    for currency, values in found.items():
        goods = _goods(prefix, named, products, currency)
        if goods is None or goods[1] < 2 or goods[1] > MAX_ITEMS:
            continue
        total, items = goods
        prices = {price for product in products for price in money_in(product.values).get(currency, ())}
        with_fees = not goods_only or included or _WITH_A_FEE.match(prepared, end) is not None
        charges = sorted(money_in(fees(sentence)).get(currency, set()) - prices) if with_fees else []
        rates = [Decimal(1)] + [1 - Decimal(need.partition(":")[2]) / 100 for need in percents(sentence)]
        added = {
            sum((charge * times for charge, times in zip(charges, pick, strict=True)), Decimal(0))
            for pick in itertools.product(range(items + 1), repeat=len(charges))
        }
        makes = {total * rate + extra for rate in rates for extra in added}
        if not values & makes:
            return _Total(claim, goods_only, made=False)
        said = _Total(claim, goods_only, made=True)
    return said


def _stated(text: str) -> dict[str, set[Decimal]]:
    """Every amount of money `text` states, by currency."""
    return money_in(need for _, _, claim in located_claims(prepare(text)) for need in claim.needs)


_ADDED = any_of(
    r"^\s*(?:을|를)?\s*(?:더하(?:면|여|고|니)|더해(?:서|지면|지고|지니)?|추가하(?:면|여)|추가해서)\s*"
    r"(?:(?:총|합계|모두|전부)\s*)?$",
    r"^\s*を?\s*(?:加えて|加えると|加算して|加算すると|足して|足すと|プラスして|プラスすると)[、,]?\s*"
    r"(?:(?:合計|総額|お支払い(?:額|金額)?は?)\s*)?$",
    r"^\s*が(?:かかり|加わり|追加され|加算され)(?:ます(?:ので)?)?[、,]\s*(?:合計|総額は?|お支払い(?:総?額|金額)?は)\s*$",
    r"^\s*이\s*(?:붙어(?:서)?|추가되어(?:서)?|추가돼(?:서)?|더해져(?:서)?)\s*(?:총|합계|결제\s?금액은)\s*$",
    r"^\s*(?:[a-z-]+\s+){0,2}(?:(?:that'?s|which makes|makes|comes to|for a total of|totals?)\s*)(?:₩\s*)?$",
    # "plus shipping (3,000 won) comes to", "plus 3,000 won shipping, so 24,000 won in total"
    r"^\s*\)\s*(?:(?:that'?s|which makes|makes|comes? to|for a total of|totals?)\s*)(?:₩\s*)?$",
    r"^\s*(?:[a-z-]+\s+){0,2}?[a-z-]+,\s*so\s+(?:(?:that'?s|you'?d pay|you pay|it'?s)\s+)?(?:₩\s*)?$",
)
"""What stands between an amount added and what the two come to: "3,000원을 더해 39,000원",
"3,000ウォンを加えて合計45,000ウォン", "plus the 3,000 won fee that's 21,000 won"."""
_PLUS = re.compile(r"\bplus\s+(?:the\s+|a\s+|an\s+)?(?:[a-z-]+\s+\(\s*)?(?:₩\s*)?$", re.I)
"""The English amount added: "plus the 3,000 won fee", "plus shipping (3,000 won)", not "add one more
9,000 won mug"."""
_CJK_ADDED = re.compile(
    r"\s*(?:을|를|を|이\s*(?:붙|추가|더해)|が(?:かかり|加わり|追加され|加算され)|(?:더해|더하|足して|加えて))"
)
"""The Korean or Japanese amount added, its object marker right after it ("3,000원을 더해"), or said
to be charged on top ("送料3,000ウォンがかかり、お支払いは", "배송비 3,000원이 붙어 총")."""
_TIMES = re.compile(r"[×*]|(?<![A-Za-z])[xX](?![A-Za-z])|곱하|掛け|\btimes\b")
"""An amount multiplied: "9,000원 × 2", "9,000 won x 2", "two times"."""
MAX_ADDED_TO = 6
"""Amounts before the one added, beyond which the sums they could make are not tried."""


def misadded(sentence: str, previous: str = "") -> list[str]:
    """The amount said, right after another is added, to be what they come to ("合計43,000ウォン、
    送料3,000ウォンを加えて47,000ウォン", "plus the 3,000 won fee that's 22,000 won"), when it is not
    the added one plus some of the amounts before it ("タオル3枚で36,000ウォン、ラッピング代6,000ウォン、
    送料3,000ウォンを加えて合計45,000ウォン"); an amount multiplied on the way ("9,000원 × 2에
    3,000원을 더하면") or the sum measured against another ("더해도 5만 원이 안 돼요") is left alone. The
    amounts of the sentence before (`previous`) may be the ones added to ("가격은 39,000원이에요. 한
    장만 주문하시면 ... 배송비 3,000원이 붙어서 총 42,000원")."""
    prepared = prepare(sentence)
    money = [
        (start, end, claim.text, found)
        for start, end, claim in located_claims(prepared)
        if (found := money_in(claim.needs))
    ]
    wrong = []
    for at in range(1, min(len(money) - 1, MAX_ADDED_TO + 1)):
        start, end, _, added = money[at]
        sum_start, sum_end, text, said = money[at + 1]
        between = prepared[end:sum_start]
        if not _ADDED.search(between) or not (_CJK_ADDED.match(between) or _PLUS.search(prepared, 0, start)):
            continue
        if _TIMES.search(prepared, money[0][1], start) or _COMPARED_AFTER.match(prepared, sum_end):
            continue
        sums: set[Decimal] = set()
        for currency, values in added.items():
            earlier = [found.get(currency, set()) for _, _, _, found in money[:at]]
            earlier += [{amount} for amount in _stated(previous).get(currency, set())]
            for size in range(1, len(earlier) + 1):
                for picked in itertools.combinations(earlier, size):
                    for amounts in itertools.product(values, *picked):
                        sums.add(sum(amounts, Decimal(0)))
        totals = {value for values in said.values() for value in values}
        if sums and not sums & totals:
            wrong.append(f"{text} (not the sum of the amounts it is said to add up)")
    return wrong
