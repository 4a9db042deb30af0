"""A shipment's tracking page: the carrier's own, where csbot knows the carrier.

The usual Korean and Japanese carriers and the international ones are known by the names shops
write for them ("CJ대한통운", "CJ Logistics", "ヤマト運輸", "DHL Express"); a shop adds its own
or overrides one with `CSBOT_TRACKING_URLS` (`{"Carrier name": "https://.../{number}"}`). "EMS" is
left to the shop: every country's post runs its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

KNOWN: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("cj대한통운", "대한통운", "cjlogistics", "cj"),
        "https://trace.cjlogistics.com/next/tracking.html?wblNo={number}",
    ),
    (
        ("한진택배", "한진", "hanjin"),
        "https://www.hanjin.com/kor/CMS/DeliveryMgr/WaybillResult.do?mCode=MN038&schLang=KR&wblnumText2={number}",
    ),
    (
        ("롯데택배", "롯데글로벌로지스", "롯데", "lotte", "lotteglogis"),
        "https://www.lotteglogis.com/home/reservation/tracking/linkView?InvNo={number}",
    ),
    (
        ("우체국택배", "우체국", "koreapost", "epost"),
        "https://service.epost.go.kr/trace.RetrieveDomRigiTraceList.comm?sid1={number}",
    ),
    (("로젠택배", "로젠", "logen"), "https://www.ilogen.com/web/personal/trace/{number}"),
    (
        ("ヤマト運輸", "ヤマト", "クロネコ", "yamato", "kuronekoyamato"),
        "https://toi.kuronekoyamato.co.jp/cgi-bin/tneko?number00=1&number01={number}",
    ),
    (
        ("佐川急便", "佐川", "sagawa"),
        "https://k2k.sagawa-exp.co.jp/p/web/okurijosearch.do?okurijoNo={number}",
    ),
    (
        ("日本郵便", "ゆうパック", "japanpost"),
        "https://trackings.post.japanpost.jp/services/srv/search/direct?reqCodeNo1={number}",
    ),
    (("dhl",), "https://www.dhl.com/global-en/home/tracking/tracking-express.html?tracking-id={number}"),
    (("fedex",), "https://www.fedex.com/fedextrack/?trknbr={number}"),
    (("ups",), "https://www.ups.com/track?tracknum={number}"),
    (("usps",), "https://tools.usps.com/go/TrackConfirmAction?tLabels={number}"),
)
_NOT_NAME = re.compile(r"[\s\-_.()（）·・]+")
_SUFFIXES = ("", "express", "logistics", "global", "korea", "japan", "택배", "運輸", "急便")
"""What follows a carrier's name in the way shops write it: "DHL Express", "CJ대한통운택배"."""


def _key(carrier: str) -> str:
    return _NOT_NAME.sub("", carrier.lower())


def tracking_url(
    carrier: str, tracking_number: str, shop_patterns: Mapping[str, str] | None = None
) -> str | None:
    """The page where the customer follows the parcel, or None for a carrier csbot does not know.

    A shop's own pattern wins; else a known name followed by nothing or a usual suffix, so
    "DHL Express" is DHL's and "Upstate Couriers" is not UPS's."""
    number = re.sub(r"[^0-9A-Za-z]", "", tracking_number)
    if not number:
        return None
    key = _key(carrier)
    for name, pattern in (shop_patterns or {}).items():
        if _key(name) == key:
            return pattern.replace("{number}", quote(number))
    for names, pattern in KNOWN:
        if any(key.startswith(name) and key[len(name) :] in _SUFFIXES for name in names):
            return pattern.replace("{number}", quote(number))
    return None
