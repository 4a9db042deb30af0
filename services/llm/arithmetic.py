"""Amounts a reply works out from amounts it may state: a sum, a multiple, a difference, a share.

"Gift wrapping is 2,000 won per item, so 6,000 won for 3 mugs" states an amount the FAQ gives
nowhere, and it is true. An amount of money, or a measure (a volume, a weight, a length: "600 ml,
250 ml more than the 350 ml mug"), is *worked out* when it is

- the sum or the difference of two amounts of its currency that the reply states and the sources
  support, or works out itself ("25,000원에 9,000원을 함께 사시면 34,000원", "two mugs are 18,000 won,
  plus 3,000 won shipping: 21,000 won"; an amount stated twice adds to itself);
- a total of up to three such amounts, each taken once or by a count its sentence states ("머그컵
  2개(각 9,000원)와 목욕 타월 1장(12,000원)은 합계 30,000원"); a fee counted per item by the count,
  where the sentence says each thing has it ("3 mugs, each gift-wrapped" is three fees);
- what is short of an amount orders are measured against that the sentence names ("36,000원이라
  무료배송까지 14,000원");
- a whole multiple of such an amount, or of one the sources give, by a count the same sentence
  states in digits or words ("2,000 won each, so 4,000 won for two", "Two tablecloths come to
  78,000 won");
- what a percentage the sources support takes off a stated amount or one the sources give, or is
  of it ("5% off, so the 89,000 won pot would be 84,550 won", "with your 5% the pot is 84,550 won").

A measure in an imperial unit is *converted* when it is a measure the sources give, in inches,
pounds or fluid ounces to the places it is written with (`converted`: "24 cm, about 9.4 inches"),
and one said as a near bound is *bounded* when a measure the sources give lies just past it
(`bounded`: "a little over three kilos" for 3.2 kg).

Only the arithmetic is checked: whether the reply may promise the result (a refund of it, say)
is the commitments' question, and an operand the sources do not support supports nothing. The
count is read, not what it counts: "6,000 won for two boxes" passes where shipping is 3,000 won
per order, not per box.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

from services.llm.fact_claims import CURRENCIES, Claim, claims, located_claims, prepare
from services.llm.subjects import sentences
from services.llm.topics import PARCEL_FEE_JA, PARCEL_FEE_KO
from services.text.numerals import COUNTERS, ENGLISH_SMALL, KOREAN_PAIRS, NATIVE_KOREAN
from services.text.patterns import any_of

BASKET_TERMS = 3
"""A total adds at most this many amounts: a basket of two things and its shipping."""
MAX_COUNT = 20
"""Counts beyond this are no shopping basket: "20 mugs" is worked out, "50" is not."""

_NOT_THINGS = r"(?!(?:days|weeks|hours|minutes|months|years|business)\b)"
_DIGIT_COUNT = re.compile(
    rf"(?<![\d,.])(\d{{1,2}})\s?(?:{COUNTERS})"
    rf"|\b(\d{{1,2}}) (?:x )?(?:{_NOT_THINGS}[a-z]+ ){{0,2}}{_NOT_THINGS}[a-z]+s\b|\bx ?(\d{{1,2}})\b"
    r"|×\s?(\d{1,2})(?![\d.,])"
)
_ENGLISH_COUNT = re.compile(
    r"\b(" + "|".join(word for word, value in ENGLISH_SMALL.items() if 2 <= value <= MAX_COUNT) + r")\b",
    re.IGNORECASE,
)
_NATIVE_COUNT = re.compile(
    r"(?<![가-힣])((?:열|스물|스무)?(?:두|세|석|네|다섯|여섯|일곱|여덟|아홉)|열|스무)\s?(?:" + COUNTERS + ")"
)
_KANJI_COUNT = re.compile(r"([二三四五六七八九十])(?:つ|個|点|枚|本|着|セット|箱)")
_KANJI = {"二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_PAIR = re.compile(
    r"\b(?:both|a pair of|each of the two)\b|두\s?(?:개|가지)\s?모두|둘\s?다|両方|二つとも", re.I
)


def counts(sentence: str) -> set[int]:
    """The numbers of things a sentence counts: "3 mugs", "two", "두 개", "2点", "三つ", "both"."""
    found: set[int] = set()
    for match in _DIGIT_COUNT.finditer(sentence):
        found.add(int(next(group for group in match.groups() if group)))
    found.update(ENGLISH_SMALL[match.group(1).lower()] for match in _ENGLISH_COUNT.finditer(sentence))
    for match in _NATIVE_COUNT.finditer(sentence):
        word = match.group(1)
        tens = 20 if word.startswith(("스물", "스무")) else 10 if word.startswith("열") else 0
        rest = word.removeprefix("스물").removeprefix("스무").removeprefix("열")
        found.add(tens + (NATIVE_KOREAN[rest] if rest else 0))
    found.update(_KANJI[match.group(1)] for match in _KANJI_COUNT.finditer(sentence))
    if _PAIR.search(sentence):
        found.add(2)
    return {count for count in found if 1 <= count <= MAX_COUNT}


_ALL_OF = re.compile(
    r"\ball (?:of the |of them |of those )?(\d{1,2}|[a-z]+)\b(?! (?:days|weeks|hours|minutes|months|years)\b)"
    r"|(?<![\d,.])(\d{1,2})\s?(?:개|장|점|벌|세트|가지)\s?(?:모두|전부|다(?=\s))"
    r"|(?<![가-힣])(두|세|네|다섯|여섯|일곱|여덟|아홉|열)\s?(?:개|장|점|벌|세트|가지)\s?(?:모두|전부|다(?=\s))"
    r"|(\d{1,2}|[二三四五六七八九十])(?:つ|個|点|枚|本)(?:とも|すべて|全て|全部)"
    r"|全部で(\d{1,2}|[二三四五六七八九十])(?:つ|個|点|枚|本)",
    re.IGNORECASE,
)
"""A count said of every thing of the sentence ("gift-wrapping all three", "세 개 모두", "3点とも"):
what a per-item amount is taken by."""


def counts_of_all(sentence: str) -> set[int]:
    """The counts `sentence` says of all its things: "all three", "세 개 모두", "三つとも"."""
    found = set()
    for match in _ALL_OF.finditer(sentence):
        word = next(group for group in match.groups() if group)
        value = (
            int(word)
            if word.isdigit()
            else ENGLISH_SMALL.get(word.lower()) or NATIVE_KOREAN.get(word) or _KANJI.get(word)
        )
        if value and 2 <= value <= MAX_COUNT:
            found.add(value)
    return found


_FOR_EACH = re.compile(
    r"\b(?:each|both|per (?!order|purchase|parcel|shipment|delivery)[a-z]+)\b"
    r"|각각|둘\s?다|모두\s?다|両方|それぞれ|つとも",
    re.IGNORECASE,
)
"""A word saying an amount is for each of the things counted: "gift wrap at 2,000 won per towel",
"각각 선물 포장하시면", "両方ギフト包装で"."""

_WORKED = CURRENCIES | {"volume", "mass", "length"}
"""What amounts are worked out in: money, and the measures of things ("600 ml, 250 ml more than the
350 ml mug")."""


def _amount(claim: Claim) -> tuple[str, Decimal] | None:
    for need in claim.needs:
        kind, _, value = need.partition(":")
        if kind in _WORKED:
            return kind, Decimal(value)
    return None


def _percentages(found: Iterable[Claim], offers: frozenset[str]) -> set[Decimal]:
    return {
        Decimal(need.partition(":")[2])
        for claim in found
        if claim.needs & offers
        for need in claim.needs
        if need.startswith("percent:")
    }


def _shares(amount: Decimal, percent: Decimal) -> set[Decimal]:
    """What `percent` takes off `amount` and what it is of it, rounded either way to the unit."""
    found = set()
    for share in (amount * (100 - percent) / 100, amount * percent / 100):
        found.add(share.quantize(Decimal("1"), rounding=ROUND_DOWN))
        found.add(share.quantize(Decimal("1"), rounding=ROUND_HALF_UP))
        found.add(share.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
    return found


def worked_out(
    reply: str,
    offers: frozenset[str],
    *,
    before: str = "",
    misplaced: frozenset[str] = frozenset(),
    named: Callable[[str], Iterable[str]] | None = None,
    per_item: frozenset[str] = frozenset(),
    things: Callable[[str], int] | None = None,
    judged: frozenset[str] = frozenset(),
    bounds: Callable[[str], Iterable[str]] | None = None,
    percents: Callable[[str], Iterable[str]] | None = None,
    others: Callable[[str], frozenset[str]] | None = None,
    counted_before: Callable[[str, str], set[int]] | None = None,
) -> frozenset[str]:
    """The amounts of `reply` (as its claims write them) worked out from supported ones; `offers`
    are the sources' (`Claim.offers`), `before` is the reply's text already released, whose
    amounts may be operands too; `misplaced`: amounts said of the wrong thing, which a difference
    is not taken from ("a 6,000 won Jeju surcharge on top of 3,000 won shipping, 9,000 won": the
    return fee said of Jeju is not the difference of the mug's price and the shipping); `named`:
    the amounts the sources give for what a sentence names (readings), terms of its totals when the
    reply states none of them ("the two towels plus the tablecloth, sixty-three thousand won");
    `per_item`: the amounts the sources count per item (readings), which a total takes by the count
    of things where its sentence says each has it ("3 mugs, each gift-wrapped at 2,000 won: 27,000 +
    2,000 = 29,000 won" counts the wrapping once); `things`: how many products a sentence names ("a
    towel and a mug" is two), a count of a per-item amount ("wrapping a towel and a mug would be
    4,000 won"); `judged`: the customer's own amounts (`judged.judged`), operands as supported ones
    are ("4만 8천 원어치 담으셨으니 무료배송까지 2천 원"); `bounds`: the amounts orders are measured
    against that the sources give for what a sentence names (readings), what is short of them
    worked out ("36,000원이라 무료배송까지 14,000원이 모자라요"); `percents`: the percentages the sources
    give for what a sentence names (readings), shares taken by them ("As a Gold member you'd pay
    84,550 won for the pot": its 89,000원 less the members' 5%); `others`: the numbers (readings) only
    products a sentence does not name have, which no count of it multiplies ("2 cotton bath towels
    come to 78,000 won" is no two tablecloths); `counted_before`: the counts the sentence before
    gave the products a sentence names with none of its own ("머그컵 2개 ... 머그컵 포장비 4,000원")."""
    stated = claims(before) + claims(reply)
    supported: dict[str, set[Decimal]] = {}
    seen: dict[tuple[str, Decimal], int] = {}
    for claim in stated:
        amount = _amount(claim)
        if amount is not None and (claim.needs & offers or claim.text in judged):
            supported.setdefault(amount[0], set()).add(amount[1])
            seen[amount] = seen.get(amount, 0) + 1
    wrong = {_amount(claim) for claim in stated if claim.text in misplaced}
    doubled = {currency: {value * 2} for (currency, value), times in seen.items() if times > 1}
    given: dict[str, set[Decimal]] = {}
    for offer in offers:
        kind, _, value = offer.partition(":")
        if kind in _WORKED:
            given.setdefault(kind, set()).add(Decimal(value))
    percentages = _percentages(stated, offers)
    each: dict[str, set[Decimal]] = {}
    for reading in per_item:
        kind, _, written = reading.partition(":")
        if kind in _WORKED:
            each.setdefault(kind, set()).add(Decimal(written))
    result: set[str] = set()
    not_named: dict[str, frozenset[str]] = {}  # `others` of each sentence, read once for every round
    while True:  # until a round works out nothing new: each round adds to a finite set of claims
        grown = False
        # the text already released too: what it worked out is an operand ("合計30,000ウォン ... 送料は
        # 合計6,000ウォンです。お支払い総額は36,000ウォン")
        previous = ""
        for sentence in [*sentences(before), *sentences(reply)]:
            counted = counts(sentence)
            if not counted and _FOR_EACH.search(sentence):
                # "Wrapping each one as a gift": each of the things the sentence before counted
                counted = counts(previous)
            if counted_before is not None:
                counted |= counted_before(sentence, previous)
            many = {count for count in counted | {things(sentence) if things else 0} if count > 1}
            # "gift-wrapping all three": the per-item amount is taken by that count, not another
            whole = counts_of_all(sentence)
            found = claims(sentence)
            # a sentence going on from the one before names what that one named: "제주는 기본 배송비에
            # 3,000원이 더 붙어요. 그래서 ... 배송비가 총 6,000원"
            naming = f"{previous} {sentence}" if _SO.match(sentence) else sentence
            previous = sentence
            unstated = _unstated(named(naming) if named else (), seen)
            short_of = _unstated(bounds(sentence) if bounds else (), {})
            shares = percentages | {
                Decimal(need.partition(":")[2]) for need in (percents(sentence) if percents else ())
            }
            worked = set()
            if sentence not in not_named:
                not_named[sentence] = others(sentence) if others else frozenset()
            foreign = not_named[sentence]
            in_money = {amount[0] for amount in map(_amount, found) if amount is not None}
            for claim in found:
                amount = _amount(claim) or _short_by(sentence, claim, in_money)
                if amount is None or claim.text in result:
                    continue
                currency, amount_value = amount
                # a per-item amount is taken by the count said of all the things, else by the count
                # said right before it ("머그컵 2개 …, 선물 포장 3개 하시면 6,000원")
                # (read only where the sources count an amount per item: most sentences have none)
                taken_by = whole or (
                    _counts_just_before(sentence, claim.text) if each.get(currency) else set()
                )
                operands = supported.get(currency, set()) - {amount_value}
                placed = {value for value in operands if (currency, value) not in wrong}
                not_its = {
                    Decimal(need.partition(":")[2]) for need in foreign if need.startswith(f"{currency}:")
                }
                bases = given.get(currency, set()) - not_its
                times = {value: seen.get((currency, value), 1) for value in operands}
                terms = dict(times)
                # an amount said of another subject is no total of what the sentence names ("a 6,000
                # won surcharge on top of the normal 3,000 won shipping") unless said as one; nor is
                # one said to be added ("제주는 배송비가 오천 원 추가돼요": the surcharge)
                named_terms = unstated.get(currency, {})
                if (
                    named_terms
                    and (claim.text not in misplaced or _totalled(sentence, claim.text))
                    and not _said_after(sentence, claim.text, _ADDED)
                ):
                    for term, extra in named_terms.items():
                        if term != amount_value:
                            terms[term] = terms.get(term, 0) + extra
                if (
                    amount_value in doubled.get(currency, set())
                    or _works_out(
                        amount_value,
                        operands - not_its,
                        placed,
                        bases,
                        counted,
                        shares,
                        (each.get(currency, set()), taken_by),
                    )
                    or any(
                        bound - value == amount_value
                        for bound in short_of.get(currency, {})
                        for value in placed
                    )
                    or any(
                        count * one == amount_value
                        for count in taken_by or many
                        for one in each.get(currency, ())
                    )
                    or _basket(
                        amount_value,
                        terms,
                        counted,
                        each.get(currency, set()) if _FOR_EACH.search(sentence) or whole else set(),
                        whole or many,
                    )
                ):
                    worked.add(claim.text)
                    supported.setdefault(currency, set()).add(amount_value)
                    grown = True
            if worked:  # the sentence's counts of things ("3 mugs", "1点") are the basket, not a fact
                basket = counted | {1}
                worked.update(claim.text for claim in found if claim.needs & {f"bare:{n}" for n in basket})
            result |= worked
        if not grown:
            break
    return frozenset(result) & {claim.text for claim in claims(reply)}


def _counts_just_before(sentence: str, amount: str) -> set[int]:
    """The counts of things between the amount before `amount` and `amount` itself: what a per-item
    amount said there is taken by ("머그컵 2개 18,000원이면 …, 선물 포장 3개 하시면 4,000원" wraps three)."""
    prepared = prepare(sentence)
    at = prepared.find(amount)
    if at < 0:
        return set()
    start = max((end for _, end, claim in located_claims(prepared[:at]) if _amount(claim)), default=0)
    return {count for count in counts(prepared[start:at]) if count > 1}


_PORTIONS = re.compile(r"\s?(?:잔|배|杯|倍|(?:cups?|mugs?|mugfuls?|glasses|times)\b)", re.IGNORECASE)
"""A count of portions right after a number: "11잔", "1.7杯分", "1.7 mugs"."""


def _measures(
    located: list[tuple[int, int, Claim]], offers: frozenset[str]
) -> tuple[dict[str, set[Decimal]], set[Decimal]]:
    """The measures a sentence states that the sources support, by kind (volume, mass, length), and
    how many times each holds each smaller one of its kind."""
    measures: dict[str, set[Decimal]] = {}
    for _, _, claim in located:
        for need in claim.needs & offers:
            kind, _, value = need.partition(":")
            if kind in ("volume", "mass", "length"):
                measures.setdefault(kind, set()).add(Decimal(value))
    quotients = {
        whole / part
        for values in measures.values()
        for whole in values
        for part in values
        if whole > part > 0
    }
    return measures, quotients


def portions(
    reply: str, offers: frozenset[str], *, of_a_product: Callable[[str, int, int], bool] = lambda *_: False
) -> frozenset[str]:
    """The numbers of `reply` (as its claims write them) said as how many of one measure another
    holds, worked out from two measures its sentence states that the sources support: "4,000ml이고,
    350ml 머그컵으로 치면 11잔 조금 넘게" (11.4), "0.6リットル、マグカップは350ミリリットルですので ...
    約1.7杯分": rounded to the places written, or a whole number cut down ("11잔 조금 넘게"). A measure
    the sentence counts so many of to make one it states is worked out too ("용량 4L는 2L 생수병 두 병
    분량", "600 ml — that's two 300 ml cups"), unless it is said of a product (`of_a_product`, given the
    prepared sentence and where the measure is), whose measures are the catalogue's."""
    found = set()
    for sentence in sentences(reply):
        prepared = prepare(sentence)
        located = located_claims(prepared)
        measures, quotients = _measures(located, offers)
        for _, end, claim in located:
            if claim.needs & offers or not _PORTIONS.match(prepared, end):
                continue
            said = {Decimal(need[5:]) for need in claim.needs if need.startswith("bare:")}
            if any(_portion_of(quotient, value) for quotient in quotients for value in said):
                found.add(claim.text)
        counted = {count for count in counts(prepared) if count >= 2} | {
            int(portion)
            for _, end, claim in located
            if _PORTIONS.match(prepared, end)
            for need in claim.needs
            if need.startswith("bare:") and (portion := Decimal(need[5:])) == int(portion) and portion >= 2
        }
        for start, end, claim in located:
            if claim.needs & offers:
                continue
            # a part of a stated measure, of no product ("2L 생수병 두 병" of 4 L), or so many of one
            # ("2杯分(700ml)" of 350 ml)
            part = not of_a_product(prepared, start, end)
            many = part or bool(_PORTIONS_BEFORE.search(prepared, max(0, start - _PORTIONS_REACH), start))
            for need in claim.needs:
                kind, _, value = need.partition(":")
                if kind in measures and any(
                    (part and count * Decimal(value) in measures[kind])
                    or (many and Decimal(value) in {count * one for one in measures[kind]})
                    for count in counted
                ):
                    found.add(claim.text)
    return frozenset(found)


_PORTIONS_BEFORE = re.compile(
    r"(?:\d|[二三四五六七八九十]|두|세|네)\s?(?:杯|잔|병|本|cups?|mugs?|glasses|bottles)(?:分|분)?\s*[(（]?\s*$",
    re.IGNORECASE,
)
"""A count of portions right before a measure, which is theirs: "2杯分(700ml)"."""
_PORTIONS_REACH = 8


def misportioned(reply: str, offers: frozenset[str]) -> list[str]:
    """Counts of portions (`portions`) said where the sentence states the two measures, that are not
    how many of the one the other holds: "0.6リットル ... 350ml ... マグ約3杯分" is 1.7 mugs."""
    wrong = []
    for sentence in sentences(reply):
        prepared = prepare(sentence)
        located = located_claims(prepared)
        _, quotients = _measures(located, offers)
        if not quotients:
            continue
        for _, end, claim in located:
            # more than one: "マグカップ1杯は350ml" says what one holds
            said = {
                portion
                for need in claim.needs
                if need.startswith("bare:") and (portion := Decimal(need[5:])) > 1
            }
            if (
                said
                and _PORTIONS.match(prepared, end)
                and not any(_portion_of(quotient, portion) for quotient in quotients for portion in said)
            ):
                wrong.append(f"{claim.text} (not how many of one measure the other holds)")
    return wrong


def unmeasured_servings(reply: str, offers: frozenset[str]) -> list[str]:
    """Counts of cups a measure the sentence states is said to serve, where no second measure says
    what a cup holds: "600ml라 두세 잔 정도 나와요", "600 ml, about four cups of tea" give a cup the shop
    gives no size for. Cups said of the shop's mug, or beside a second measure, are `misportioned`'s."""
    wrong: list[str] = []
    previous = ""
    for sentence in sentences(reply):
        prepared = prepare(sentence)
        # the measure may be the sentence before's: "용량이 600ml이고 ... 차 두세 잔 나눠 드시기 좋은"
        measures, quotients = _measures(located_claims(f"{previous} {prepared}"), offers)
        previous = prepared
        if "volume" not in measures or quotients or _MUG.search(prepared):
            continue
        wrong.extend(
            f"{match.group().strip()} (cups of a size the sources do not give)"
            for match in _SERVINGS.finditer(prepared)
        )
    return wrong


def _words_for(table: dict[str, int]) -> str:
    """The words of `table` for two to nineteen, longest first."""
    return "|".join(sorted((word for word, value in table.items() if 2 <= value < 20), key=len, reverse=True))


_KOREAN_WORD_PAIRS = "|".join(pair for pair in KOREAN_PAIRS if pair[0] not in "일이삼사오육칠팔")
"""The pairs in native Korean words ("두세", "서너"): "일이" alone is "work"."""
_SERVINGS = any_of(
    rf"(?<![\d.,])\b(?:[2-9]|1\d|{_words_for(ENGLISH_SMALL)})(?:\s?(?:-|to|or)\s?(?:\d+|{_words_for(ENGLISH_SMALL)}))?"
    r"\s(?:small |large |full )?(?:cups|glasses|servings)\b",
    rf"(?<![\d.,가-힣])(?:[2-9]|1\d|{_KOREAN_WORD_PAIRS}|{_words_for(NATIVE_KOREAN)})\s?(?:~\s?\d+\s?)?잔",
    rf"(?<![\d.,])(?:[2-9]|1\d|[{''.join(_KANJI)}])(?:[〜~～-](?:\d+|[{''.join(_KANJI)}]))?\s?杯",
)
"""A count of two cups or more, in the words `counts` reads: "four cups", "두세 잔", "3杯分"."""
_MUG = any_of(r"\bmugs?\b|\bmugfuls?\b", r"머그", r"マグ")
"""The shop's mug, whose size the catalogue gives."""


def _portion_of(quotient: Decimal, said: Decimal) -> bool:
    """`said` is `quotient` rounded to the places it is written with, or (a whole number) cut down."""
    exponent = said.as_tuple().exponent
    places = Decimal(1).scaleb(exponent if isinstance(exponent, int) else 0)
    return quotient.quantize(places, ROUND_HALF_UP) == said or (
        places == 1 and quotient.quantize(places, ROUND_DOWN) == said
    )


_IMPERIAL = {
    "inch": ("length", Decimal("25.4")),
    "foot": ("length", Decimal("304.8")),
    "mile": ("length", Decimal("1609344")),
    "pound": ("mass", Decimal("453.59237")),
    "ounce": ("mass", Decimal("28.349523125")),
    "floz": ("volume", Decimal("29.5735295625")),
    "gallon": ("volume", Decimal("3785.411784")),
}
"""An imperial unit as the metric measure (millimetres, grams, millilitres) it is."""


CONVERSION_SLACK = Decimal("0.01")
"""How far a whole number of imperial units may be from the measure converted: "roughly 7 lb" is
3.2 kg (7.05 lb), "3 lb" is not 1.2 kg (2.65 lb) nor "8 inches" 20 cm (7.87)."""


_FOR_ALL = re.compile(
    r"\b(?:both|all (?:of them|\w+))\b|둘\s?다|모두|각각|両方|とも|すべて|全て|それぞれ",
    re.IGNORECASE,
)
"""An amount said for all the things at once ("gift-wrapping both only adds 2,000 won", "각각 선물
포장을 하시면 포장비 2,000원이 추가"): a per-item amount so said is a total, wrong for several; said
right beside the amount ("각각 2,000원", `_EACH_BESIDE`), it is per item."""
_COUNT_WRAPPED = any_of(
    r"\b(?:\d+|two|three|four|five|six) (?:\w+ )?\w+s,? (?:all )?"
    r"(?:with gift[- ]wrapping|gift[- ]wrapped|wrapped)\b"
    r"|\bwrap(?:ping)? (?:the |all |all the )?(?:\d+|two|three|four|five|six)\b",
    r"(?:\d+|두|세|네|다섯|여섯)\s?(?:개|장|잔|점)(?:에|를|을|\s)\s?(?:다\s?)?(?:모두\s?|전부\s?)?(?:선물\s?)?포장",
    r"(?:\d+|[二三四五六])\s?(?:個|点|枚|つ)(?:全部|すべて)?(?:に|とも)(?:全部|すべて)?(?:ギフト)?(?:ラッピング|包装)",
)
"""Several things said to be wrapped by their count ("マグカップ3個にギフトラッピング", "머그컵 3개 선물
포장", "three mugs gift-wrapped"): a per-item fee added once to their price is wrong."""
_FEE_BESIDE = re.compile(
    rf"(?<!free )shipping|delivery fee|(?<!무료)(?:{PARCEL_FEE_KO})|(?:{PARCEL_FEE_JA})(?!無料)",
    re.IGNORECASE,
)
"""An amount said as the shipping fee where it stands ("with the 3,000 won shipping")."""
_EACH_BESIDE = re.compile(
    r"per\b|each\b|apiece|a piece|씩|개당|하나당|각각|ずつ|につき|それぞれ", re.IGNORECASE
)
"""An amount said per item where it stands ("2,000 won per item", "개당 2,000원")."""
BESIDE_REACH = 12
"""Characters either side of an amount where what it is (a fee, an amount per item) is said."""
_SHORT_BEFORE = re.compile(r"(?:무료\s?배송(?:까지|이\s?되려면|\s?기준까지)|送料無料(?:まで|には)|あと)\s?$")


def misworked(reply: str, *, per_item: frozenset[str], bounds: Callable[[str], Iterable[str]]) -> list[str]:
    """Amounts the sources state, said as what they are not worked out to be: what is short of the
    free-shipping amount that is not its difference with the order's ("48,000 won, so you're 3,000
    won short of free shipping"), a per-item amount said as the total of several ("2点ともギフト
    ラッピング ... 合計2,000ウォン")."""
    wrong = []
    before: list[tuple[str, Decimal]] = []
    for sentence in sentences(reply):
        prepared = prepare(sentence)
        located = [(start, end, claim, _amount(claim)) for start, end, claim in located_claims(prepared)]
        money = [(start, end, claim, amount) for start, end, claim, amount in located if amount]
        limits = _unstated(bounds(sentence), {})
        of_all = counts_of_all(sentence)
        several = of_all or {count for count in counts(sentence) if count > 1}
        for start, end, claim, amount in money:
            currency, value = amount
            short = _SHORT_AFTER.match(prepared, end) or _SHORT_BEFORE.search(prepared, 0, start)
            bound = limits.get(currency, {})
            # the order's amount: the sentence's, else the one before's ("36,000ウォンですので ...
            # 50,000ウォンまで、あと14,000ウォン")
            own = [other for _, _, _, other in money if other != amount and other[1] not in bound]
            others = [other for other in own or before if other[0] == currency and other[1] not in bound]
            # the order's amount, not a total with the fee in it: "21,000 won; with the 3,000 won
            # shipping that's 24,000 won" is 29,000 short, not 26,000
            values = {other[1] for other in others}
            fees = {
                fee[1]
                for at, until, _, fee in money
                if _FEE_BESIDE.search(prepared, max(0, at - BESIDE_REACH), until + BESIDE_REACH)
            }
            others = [other for other in others if not any(other[1] - fee in values for fee in fees)]
            if short and others and bound:
                if not any(limit - other[1] == value for limit in bound for other in others):
                    wrong.append(claim.text)
                continue
            if (
                several
                and claim.needs & per_item
                and (
                    _totalled(prepared, claim.text)
                    or _FOR_ALL.search(prepared)
                    or of_all
                    or (
                        # one of the things may be the one wrapped, unless the reply says all are
                        _added_once(value, [other for _, _, _, other in money])
                        and (_FOR_ALL.search(prepare(reply)) or _COUNT_WRAPPED.search(prepared))
                        and not _ONE_OF.search(prepared)
                    )
                )
                and not _EACH_BESIDE.search(prepared, max(0, start - BESIDE_REACH), end + BESIDE_REACH)
            ):
                wrong.append(claim.text)
        before = [amount for _, _, _, amount in money]
    return wrong


def _added_once(value: Decimal, amounts: list[tuple[str, Decimal]]) -> bool:
    """`value` is a term of a sum the sentence works out from two of its amounts: "타월 3장 36,000원에
    포장비 2,000원 더해서 38,000원. 포장은 3장 모두 해 드려요" adds a per-item fee once for three
    things all wrapped."""
    return any(
        first[0] == second[0] and first[1] + value == second[1]
        for first, second in itertools.permutations(amounts, 2)
    )


_ONE_OF = re.compile(
    r"\bone of them\b|\bonly one\b|(?:하나|한\s?(?:개|장|잔|점))만|(?:1|一)(?:点|枚|個)だけ|ひとつだけ",
    re.IGNORECASE,
)
"""One thing of several said to have the fee ("포장은 한 장만"): the per-item fee once is right."""


def converted(reply: str, offers: frozenset[str]) -> frozenset[str]:
    """The measures of `reply` in imperial units that are a measure `offers` support converted: to
    the decimal places they are written with, or, written whole, within `CONVERSION_SLACK` of it
    ("24 cm (about 9.4 inches)", "3.2 kg, roughly 7 lb"); "the pot weighs 3.2 pounds" is 1.45 kg,
    and stays unsupported."""
    metric: dict[str, set[Decimal]] = {}
    for offer in offers:
        kind, _, value = offer.partition(":")
        if kind in ("length", "mass", "volume"):
            metric.setdefault(kind, set()).add(Decimal(value))
    found = set()
    for claim in claims(reply):
        for need in claim.needs:
            unit, _, value = need.partition(":")
            if unit not in _IMPERIAL:
                continue
            kind, factor = _IMPERIAL[unit]
            stated = Decimal(value)
            for measure in metric.get(kind, set()):
                if _converts_to(measure / factor, stated):
                    found.add(claim.text)
    return frozenset(found)


NEAR = Decimal("0.1")
"""How far "a little over" reaches: "a little over three kilos" is 3.2 kg; "4キロ弱" is not."""
_MEASURES = ("mass", "volume", "length")
_NEAR_BEFORE = re.compile(
    r"\b(?:a little|just|slightly|a bit|a touch) (?P<side>over|under|more than|less than|above|below)\s+$",
    re.IGNORECASE,
)
_NEAR_AFTER = re.compile(
    r"^\s?(?:(?P<over>(?:조금|좀|약간)\s?(?:넘|더)|남짓|強|(?:ちょっと|少し)(?:超|越え|多い))"
    r"|(?P<under>(?:조금|좀|약간)\s?(?:안\s?되|모자라|덜)|弱|(?:ちょっと|少し)(?:切る|欠け|足りな|少な)))"
)


def bounded(reply: str, offers: frozenset[str]) -> frozenset[str]:
    """The measures of `reply` said as a near bound of a measure `offers` support: "a little over
    three kilos" (3.2 kg: above it, within `NEAR` of it), "just under 4 kg", "3킬로 남짓", "3キロ強";
    "a little over four kilos" is not 3.2 kg. A bare bound ("less than 4 kg") says too little to
    hold, and a measure with none is read as it stands ("about three and a half kilos")."""
    measures: dict[str, set[Decimal]] = {}
    for offer in offers:
        kind, _, value = offer.partition(":")
        if kind in _MEASURES:
            measures.setdefault(kind, set()).add(Decimal(value))
    found = set()
    prepared = prepare(reply)
    for start, end, claim in located_claims(prepared):
        before = _NEAR_BEFORE.search(prepared[:start])
        after = _NEAR_AFTER.match(prepared[end:])
        if after:
            over = after["over"] is not None
        elif before:
            over = before["side"] in ("over", "more than", "above")
        else:
            continue
        for need in claim.needs:
            kind, _, value = need.partition(":")
            if kind in _MEASURES and any(
                _near(fact, Decimal(value), over) for fact in measures.get(kind, ())
            ):
                found.add(claim.text)
    return frozenset(found)


def _near(fact: Decimal, bound: Decimal, over: bool) -> bool:
    if over:
        return bound < fact <= bound * (1 + NEAR)
    return bound * (1 - NEAR) <= fact < bound


def _converts_to(exact: Decimal, stated: Decimal) -> bool:
    exponent = stated.as_tuple().exponent
    places = -exponent if isinstance(exponent, int) else 0
    if places > 0:
        quantum = Decimal(1).scaleb(-places)
        return stated in (exact.quantize(quantum, ROUND_HALF_UP), exact.quantize(quantum, ROUND_DOWN))
    return abs(stated - exact) <= exact * CONVERSION_SLACK


_TOTAL = (
    r"(?:총|합계|합쳐서|모두|전부|포함|in total|a total of|total(?: of| is)?|altogether|including \w+|"
    r"合計|全部で|計|込み|込みで)\s?:?\s?"
)


_ADDED = re.compile(
    r"\s*(?:이|가|씩)?\s*(?:더\s*)?(?:추가|붙)|\s*(?:が|を)?(?:追加|加算|上乗せ)"
    r"|\s*(?:extra|more|on top|is added|gets added|surcharge)\b",
    re.IGNORECASE,
)
"""An amount said to be added on: a fee of its own, not a total ("배송비가 오천 원 추가돼요")."""


BARE_MONEY = Decimal(1000)
"""A bare number this large, in a sentence of amounts of one currency, is an amount of it."""
_SHORT_AFTER = re.compile(r"\s*(?:short of|shy of|away from|more (?:for|to get|to reach))\b", re.IGNORECASE)
"""A bare number short of a threshold, its currency the sentence's: "just 1,000 short of free shipping"."""


def _short_by(sentence: str, claim: Claim, currencies: set[str]) -> tuple[str, Decimal] | None:
    """A bare number said to be what is short of an amount, or an amount of money too large to be a
    count ("add 3,000 won shipping and you're at 30,000"), in the one currency its sentence uses."""
    bare = [need for need in claim.needs if need.startswith("bare:")]
    if len(currencies) != 1 or len(bare) != 1:
        return None
    value = Decimal(bare[0].partition(":")[2])
    if value < BARE_MONEY and not _said_after(sentence, claim.text, _SHORT_AFTER):
        return None
    return next(iter(currencies)), value


def _said_after(sentence: str, amount: str, pattern: re.Pattern[str]) -> bool:
    prepared = prepare(sentence)
    at = prepared.find(amount)
    return at >= 0 and pattern.match(prepared, at + len(amount)) is not None


def _totalled(sentence: str, amount: str) -> bool:
    """`amount` is said as a total: "배송비가 총 6,000원", "in total 9,000 won", "合計6,000ウォン"."""
    return re.search(_TOTAL + re.escape(amount), sentence, re.IGNORECASE) is not None


_SO = any_of(
    r"^\s*(?:so|which means|that means|that makes)\b",
    r"^\s*(?:그래서|따라서|그러면|즉)",
    r"^\s*(?:なので|そのため|つまり)",
)


def _unstated(readings: Iterable[str], seen: dict[tuple[str, Decimal], int]) -> dict[str, dict[Decimal, int]]:
    """The amounts of `readings` the reply does not state (`seen`), per currency, each with how many
    times more it is named than stated: a price stated beside its product is that product's, not a
    second term ("the towel (12,000 won)"); the base fee named beside a surcharge of the same amount
    is one ("기본 배송비에 3,000원이 더 붙어서 ... 총 6,000원")."""
    named: dict[tuple[str, Decimal], int] = {}
    for reading in readings:
        kind, _, written = reading.partition(":")
        named[kind, Decimal(written)] = named.get((kind, Decimal(written)), 0) + 1
    found: dict[str, dict[Decimal, int]] = {}
    for (kind, amount), times in named.items():
        if times > seen.get((kind, amount), 0):
            found.setdefault(kind, {})[amount] = times - seen.get((kind, amount), 0)
    return found


def _basket(
    value: Decimal, stated: dict[Decimal, int], counted: set[int], each: set[Decimal], many: set[int]
) -> bool:
    """`value` is a total of up to BASKET_TERMS of the reply's amounts (`stated`: each, and how many
    times the reply states it), each taken once or by a count its sentence states: "2 mugs (9,000원
    each) and a towel (12,000원) come to 30,000원". An amount stated twice is two amounts, each taken
    once: "24,000 won, 3,000 won shipping and a 3,000 won surcharge: 30,000 won". An amount of
    `each` (counted per item) is taken by one of `many` (the sentence's counts of more things than
    one) where there are any, not once."""
    terms = [
        (amount, times == 1) for amount, times in stated.items() for _ in range(min(BASKET_TERMS, times))
    ]
    factors_of = sorted(counted | {1})
    for_each = sorted(many) or factors_of
    for size in range(2, BASKET_TERMS + 1):
        for chosen in itertools.combinations(terms, size):
            choices = [
                (for_each if a in each else factors_of) if multiplied else [1] for a, multiplied in chosen
            ]
            for factors in itertools.product(*choices):
                if sum(f * amount for f, (amount, _) in zip(factors, chosen, strict=True)) == value:
                    return True
    return False


def _works_out(
    value: Decimal,
    operands: set[Decimal],
    placed: set[Decimal],
    given: set[Decimal],
    counted: set[int],
    percentages: set[Decimal],
    per_item: tuple[set[Decimal], set[int]] = (set(), set()),
) -> bool:
    """A difference of two `placed` operands (those said of what the sources say them of), a
    multiple of an operand or a given amount by a count, a share of one; sums are baskets.
    `per_item`: the amounts counted per item and the counts said of all the things ("all three"),
    the only counts those amounts are taken by when there are any."""
    if any(a - b == value for a in placed for b in placed):
        return True
    each, whole = per_item
    if any(
        count * base == value
        for base in operands | given
        for count in (whole if whole and base in each else counted)
        if count > 1
    ):
        return True
    return any(value in _shares(amount, percent) for amount in operands | given for percent in percentages)
