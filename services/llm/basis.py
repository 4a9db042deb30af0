"""An amount is counted per something: the basis must be the one the sources give it.

"Gift wrapping: 2,000원 per item" and "shipping: 3,000원 per order" state what each amount is
counted per; "gift wrapping is 2,000 won per order" gets the amount right and the bill wrong, and
"편도 배송비 6천 원" (one way) the return's 6,000원 round trip. Each
amount of money the sources state with a basis beside it (per item, per order) is kept with that
basis; a reply's amount stated with a basis is checked against them: if the sources give this
amount only with other bases, it is counted per the wrong thing. An amount the sources state with
no basis, or a reply's with none, decides nothing; a reply's clause naming a policy (`topics`) is
read against the sources' amounts about it where there are any ("shipping is 3,000 won per item":
the shipping fee's 3,000원 is per order, whatever the remote-area surcharge's is).
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum

from services.llm.fact_claims import CURRENCIES, SOURCES_KEPT, Claim, located_claims, prepare, reading_kind
from services.llm.subjects import sentences
from services.llm.topics import PARCEL_FEE_KO, Topic, about_the_same, clauses_about, topics
from services.text.patterns import any_of


class Basis(StrEnum):
    ITEM = "item"
    ORDER = "order"
    ROUND_TRIP = "round trip"
    ONE_WAY = "one way"


_BASES: list[tuple[Basis, re.Pattern[str]]] = [
    (
        Basis.ITEM,
        any_of(
            r"\bper (?:item|piece|product|unit|mug|box|tablecloth|towel|pot)\b",
            r"\bfor each (?:item|one|piece)\b",
            r"\ban item\b",
            r"\beach\b(?! (?:order|purchase|parcel|shipment|delivery|way|direction))",
            r"(?:한\s*|1\s*)?(?:개|점|장|벌|잔)\s*당",
            r"(?:상품|제품|물건)\s*(?:하나|한\s*개|1개)\s*(?:당|에|마다)",
            r"(?:상품|제품)\s*당",
            r"(?:상품|제품|물건|품목)\s*(?:마다|별로)",
            r"1?(?:点|個|品|枚)(?:につき|あたり|ごと)",
            r"(?:商品|品物)(?:1点|ひとつ)?(?:につき|あたり|ごと)",
        ),
    ),
    (
        Basis.ORDER,
        any_of(
            r"\bper (?:order|purchase|parcel|shipment|delivery|basket)\b",
            r"\ban order\b",
            r"\b(?:for )?each (?:order|purchase|parcel|shipment|delivery)\b",
            r"(?:주문|결제|배송)\s*(?:1\s*건|한\s*건)?\s*(?:당|마다)",
            r"(?:ご)?(?:1)?(?:注文|回の注文)(?:につき|あたり|ごと)",
            r"(?:ご)?注文\s*(?:1|一)\s*件(?:につき|あたり|ごと)",
        ),
    ),
    (Basis.ROUND_TRIP, any_of(r"\bround[- ]trip\b|\bboth ways\b|\bthere and back\b", r"왕복", r"往復")),
    (Basis.ONE_WAY, any_of(r"\bone[- ]way\b|\beach way\b|\bper (?:direction|leg)\b", r"편도", r"片道")),
]
_PER_PARCEL = frozenset({Topic.SHIPPING, Topic.REMOTE, Topic.RETURN_SHIPPING, Topic.EXCHANGE_SHIPPING})
"""Fees of a parcel: with no basis in the sources, never one per item."""
REACH = 16
"""Characters either side of an amount where its basis is read."""
_CLAUSE = re.compile(r"[;；]\s*|,(?!\d)\s*|、|(?<=[.!?。！？])\s+|\n+")


def _amounts(clause: str) -> list[tuple[Claim, frozenset[Basis]]]:
    found = []
    for start, end, claim in located_claims(clause):
        if not any(reading_kind(need) in CURRENCIES for need in claim.needs):
            continue
        around = clause[max(0, start - REACH) : end + REACH]
        bases = frozenset(basis for basis, pattern in _BASES if pattern.search(around))
        found.append((claim, bases))
    return found


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _counted(sources: str) -> tuple[tuple[frozenset[str], frozenset[Basis], frozenset[Topic]], ...]:
    return tuple(
        (claim.offers, bases, about)
        for clause, about in clauses_about(prepare(sources), _CLAUSE)
        for claim, bases in _amounts(clause)
    )


class BasisCheck:
    """Built once per set of sources."""

    def __init__(self, sources: str) -> None:
        self._amounts = _counted(sources)
        bases_of: dict[str, set[frozenset[Basis]]] = {}
        for offers, bases, _ in self._amounts:
            for offer in offers:
                bases_of.setdefault(offer, set()).add(bases)
        self.per_item = frozenset(
            offer for offer, bases in bases_of.items() if bases == {frozenset({Basis.ITEM})}
        )
        """The amounts the sources count per item and only so (readings, `Claim.offers`): "gift
        wrapping: 2,000원 per item" is 2,000원 for each thing wrapped."""

    def miscounted(self, reply: str) -> list[Claim]:
        """The reply's amounts stated per another thing than the sources state them per."""
        wrong = []
        for sentence in sentences(prepare(reply)):
            # the policies its sentence names: "返品の場合、片道送料6,000ウォン" is the return's shipping
            about = topics(sentence)
            for clause in _CLAUSE.split(sentence):
                for claim, bases in _amounts(clause):
                    if len(bases) != 1:
                        continue
                    stating = [(named, of) for offers, named, of in self._amounts if claim.needs & offers]
                    same = about_the_same(stating, lambda item: item[1], about)
                    given = [named for named, _ in same]
                    if given and all(given) and not any(bases <= named for named in given):
                        wrong.append(claim)
                    elif (
                        bases == {Basis.ITEM}
                        and about & _PER_PARCEL
                        and same
                        and all(of & _PER_PARCEL and not named for named, of in same)
                    ):
                        wrong.append(claim)  # "the Jeju surcharge is 3,000 won per item": a parcel's fee
        return wrong

    def misbased(self, reply: str) -> list[str]:
        """A fee said to be charged per another thing than the sources count it per, its amount not
        said where the basis is: "Shipping is charged per item, so two mugs would mean 6,000 won"
        (the shipping fee is per order). Only bases of the item and of the order are read."""
        wrong = []
        for sentence in sentences(prepare(reply)):
            for clause in _CLAUSE.split(sentence):
                about = topics(clause) & _PER_PARCEL
                if not about or not _CHARGED.search(clause) or _amounts(clause):
                    continue
                bases = {basis for basis in (Basis.ITEM, Basis.ORDER) if _PATTERN[basis].search(clause)}
                if len(bases) != 1 or _DENIED.search(clause):
                    continue
                same = about_the_same(list(self._amounts), lambda item: item[2], frozenset(about))
                given = [named for _, named, of in same if named and of & about]
                if given and not any(bases <= named for named in given):
                    wrong.append(f"{bases.pop()} (a basis the sources do not count it per)")
        return wrong


_PATTERN = dict(_BASES)
_DENIED = any_of(
    r"\b(?:not|isn't|aren't|doesn't|don't|never)\b",
    r"않|안\s|아니",
    r"(?:から|かか)(?:ず|ない|りません)|ません",
)
"""A basis denied is none said: "Shipping isn't charged per item" (the per-order fee follows)."""
_CHARGED = any_of(
    r"\b(?:charged|charges?|fees?|costs?)\b",
    rf"부과|붙|청구|받(?:아요|습니다)|{PARCEL_FEE_KO}",
    r"かか|送料|料金|請求",
)
"""A fee said to be charged."""
