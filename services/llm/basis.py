"""An amount is counted per something: the basis must be the one the sources give it.

"Gift wrapping: 2,000원 per item" and "shipping: 3,000원 per order" state what each amount is
counted per; "gift wrapping is 2,000 won per order" gets the amount right and the bill wrong. Each
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

from services.llm.fact_claims import CURRENCIES, Claim, located_claims, prepare, reading_kind
from services.llm.topics import Topic, about_the_same, clauses_about, topics
from services.text.patterns import any_of


class Basis(StrEnum):
    ITEM = "item"
    ORDER = "order"


_BASES: list[tuple[Basis, re.Pattern[str]]] = [
    (
        Basis.ITEM,
        any_of(
            r"\bper (?:item|piece|product|unit|mug|box|tablecloth|towel|pot)\b",
            r"\bfor each (?:item|one|piece)\b",
            r"\ban item\b",
            r"\beach\b(?! (?:order|purchase|parcel|shipment|delivery))",
            r"(?:한\s*|1\s*)?(?:개|점|장|벌|잔)\s*당",
            r"(?:상품|제품|물건)\s*(?:하나|한\s*개|1개)\s*(?:당|에|마다)",
            r"(?:상품|제품)\s*당",
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
        ),
    ),
]
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


@functools.lru_cache(maxsize=64)
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

    def miscounted(self, reply: str) -> list[Claim]:
        """The reply's amounts stated per another thing than the sources state them per."""
        wrong = []
        for clause in _CLAUSE.split(prepare(reply)):
            for claim, bases in _amounts(clause):
                if len(bases) != 1:
                    continue
                stating = [(named, about) for offers, named, about in self._amounts if claim.needs & offers]
                given = [named for named, _ in about_the_same(stating, lambda item: item[1], topics(clause))]
                if given and all(given) and not any(bases <= named for named in given):
                    wrong.append(claim)
        return wrong
