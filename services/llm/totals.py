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
from collections.abc import Callable, Iterable
from decimal import Decimal

from services.llm.fact_claims import located_claims, money_in, prepare
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
) -> list[str]:
    """The first amount of `sentence`, said as the total of the two or more things it names before
    it, where the things' prices (times their counts), with any of the fees (`fees`: readings of the
    amounts the sources give for what it names, as `SubjectCheck.amounts_named`) and any discount
    (`percents`) it names, do not make it."""
    prepared = prepare(sentence)
    money = [
        (start, end, claim, found)
        for start, end, claim in located_claims(prepared)
        if (found := money_in(claim.needs))
    ]
    if not money:
        return []
    start, end, claim, found = money[0]
    prefix = prepared[:start]
    if _COMPARED_BEFORE.search(prefix) or _COMPARED_AFTER.match(prepared, end):
        return []
    if not (_TOTAL_BEFORE.search(prefix) or _TOTAL_AFTER.match(prepared, end)):
        return []
    named = [mention for mention in mentions(prefix, products) if mention.sure]
    between = prefix[named[-1].end :] if named else ""
    if topics(between) or _ANOTHER_AMOUNT.search(between):
        return []  # the wrapping's cost, the price difference, the fee
    for currency, values in found.items():
        goods = _goods(prefix, named, products, currency)
        if goods is None or goods[1] < 2 or goods[1] > MAX_ITEMS:
            continue
        total, items = goods
        prices = {price for product in products for price in money_in(product.values).get(currency, ())}
        charges = sorted(money_in(fees(sentence)).get(currency, set()) - prices)
        rates = [Decimal(1)] + [1 - Decimal(need.partition(":")[2]) / 100 for need in percents(sentence)]
        added = {
            sum((charge * times for charge, times in zip(charges, pick, strict=True)), Decimal(0))
            for pick in itertools.product(range(items + 1), repeat=len(charges))
        }
        makes = {total * rate + extra for rate in rates for extra in added}
        if not values & makes:
            return [f"{claim.text} (not what the things it is said of come to)"]
    return []
