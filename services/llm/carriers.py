"""The courier a reply names must be the one the facts name: "한진택배로 발송되었습니다" is false of
a parcel CJ대한통운 carries.

A carrier is no number, so the fact guard's reading of numbers passes it by; a reply giving the
right tracking number with the wrong carrier sends the customer to the wrong site. Each carrier is
known by its names in Korean, English and Japanese ("CJ대한통운", "CJ Logistics"); a carrier a
reply names that the sources do not is unsupported.
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum

from services.llm.fact_claims import SOURCES_KEPT
from services.text.patterns import any_of, named_in


class Carrier(StrEnum):
    CJ = "CJ Logistics"
    HANJIN = "Hanjin"
    LOTTE = "Lotte"
    POST = "the post office"
    LOGEN = "Logen"
    COUPANG = "Coupang"
    YAMATO = "Yamato"
    SAGAWA = "Sagawa"
    FEDEX = "FedEx"
    DHL = "DHL"
    UPS = "UPS"


_NAMES: list[tuple[Carrier, re.Pattern[str]]] = [
    (
        Carrier.CJ,
        any_of(
            r"CJ\s*대한통운|대한통운|\bCJ\s*(?:Logistics|Korea Express|택배)|CJ\s*ロジスティクス|大韓通運"
        ),
    ),
    (Carrier.HANJIN, any_of(r"한진\s*택배|\bHanjin\b|韓進|ハンジン")),
    (
        Carrier.LOTTE,
        any_of(
            r"롯데\s*택배|롯데\s*글로벌|\bLotte\b(?! (?:Mart|Department|World|Tower|Hotel|Giants))|ロッテ"
        ),
    ),
    (Carrier.POST, any_of(r"우체국\s*택배|\bKorea Post\b|\bEMS\b|日本郵便|ゆうパック|韓国郵便")),
    (Carrier.LOGEN, any_of(r"로젠\s*택배|\bLogen\b|ロゼン")),
    (Carrier.COUPANG, any_of(r"쿠팡\s*(?:로지스틱스|택배|로켓배송)|\bCoupang\b|クーパン")),
    (Carrier.YAMATO, any_of(r"ヤマト運輸|ヤマト|クロネコ|\bYamato\b|야마토")),
    (Carrier.SAGAWA, any_of(r"佐川急便|佐川|\bSagawa\b|사가와")),
    (Carrier.FEDEX, any_of(r"\bFedEx\b|페덱스|フェデックス")),
    (Carrier.DHL, any_of(r"\bDHL\b")),
    (Carrier.UPS, any_of(r"\bUPS\b")),
]


@functools.lru_cache(maxsize=SOURCES_KEPT)
def carriers(text: str) -> frozenset[Carrier]:
    """Every carrier `text` names."""
    return named_in(text, _NAMES)


_AS_THE_SHOPS = any_of(
    r"\b(?:all|every|each) (?:of )?(?:our |your |the )?(?:orders?|parcels?|packages?|shipments?|deliveries)\b"
    r"|\balways\b|\bexclusively\b|\bonly (?:use|ship with|ship via)\b|\bwe (?:use|ship with|ship via)\b",
    r"모든\s?(?:주문|상품|택배|배송|물건)|항상|언제나|전부|저희는?\s?(?:\S+\s)?(?:만\s)?(?:이용|사용)",
    r"(?:全て|すべて|全部)の(?:ご)?(?:注文|商品|荷物|配送|お届け)|いつも|常に|(?:当店|弊社)では",
)
"""A carrier said as the shop's practice ("저희는 모든 주문을 CJ대한통운으로", "we always ship with"),
not as the one carrying this parcel: the shop's own text must say it, not one order's tracking."""


def carriers_of_the_shop(sentences: list[str]) -> frozenset[Carrier]:
    """The carriers `sentences` name as the shop's practice."""
    return frozenset().union(
        *(carriers(sentence) for sentence in sentences if _AS_THE_SHOPS.search(sentence))
    )
