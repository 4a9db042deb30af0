"""The shop-data interface and the records it returns, whichever source answers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

from services.text.sentences import Language

RECENT_ORDERS = 50
"""How many of a customer's newest orders an order reference is matched against."""


class ShopDataUnavailable(Exception):
    """The shop's system did not answer (down, slow, refusing us): we know nothing, not "not found"."""


@dataclass(frozen=True)
class ShopCustomer:
    customer_id: str
    name: str
    phone: str
    email: str = ""


@dataclass(frozen=True)
class ShopProduct:
    sku: str
    name: str
    price: int
    stock: int
    currency: str = "KRW"
    options: tuple[str, ...] = ()
    restock_date: date | None = None
    name_ko: str = ""
    name_en: str = ""
    name_ja: str = ""
    aliases: tuple[str, ...] = ()
    """The shop's other words for the product, in any language ("예가체프", "yirgacheffe")."""
    category: str = ""
    """The kind of thing it is, as customers say it ("원두", "beans")."""
    option_stock: tuple[int, ...] | None = None
    """Each option's stock, in the order of `options`, when the shop counts them apart."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every name a customer may use for the product, in any language the shop gave, and the
        shop's aliases for it."""
        given = (self.name, self.name_ko, self.name_en, self.name_ja, *self.aliases)
        return tuple(dict.fromkeys(n for n in given if n))

    @property
    def kinds(self) -> tuple[str, ...]:
        """Words that say what kind of thing the product is, beyond its names' last words: its
        category. "콜롬비아 원두" asks for the Colombian beans, not for another thing called 원두."""
        return (self.category,) if self.category else ()

    def option_stock_of(self, option: str) -> int | None:
        """The stock of one of its options, when the shop counts options apart."""
        if self.option_stock is None or option not in self.options:
            return None
        return self.option_stock[self.options.index(option)]

    def display_name(self, language: Language) -> str:
        localized = {"ko": self.name_ko, "en": self.name_en, "ja": self.name_ja}.get(language, "")
        return localized or self.name


@dataclass(frozen=True)
class ShopEvent:
    at: datetime
    status: str
    location: str = ""


@dataclass(frozen=True)
class ShopShipment:
    carrier: str
    tracking_number: str
    status: str
    eta: date | None = None
    events: tuple[ShopEvent, ...] = ()


@dataclass(frozen=True)
class ShopOrderLine:
    sku: str
    name: str
    quantity: int
    option: str = ""
    unit_price: int | None = None
    """minor units; None when the source did not say"""


@dataclass(frozen=True)
class ShopOrder:
    number: str
    customer_id: str
    status: str
    placed_at: datetime
    items: tuple[ShopOrderLine, ...] = ()
    shipment: ShopShipment | None = None
    currency: str = "KRW"
    total: int | None = None

    @property
    def delivered_at(self) -> datetime | None:
        """When the carrier last reported it delivered (the start of the return window)."""
        if self.shipment is None:
            return None
        times = [e.at for e in self.shipment.events if says_delivered(e.status)]
        return max(times) if times else None


DELIVERED_WORDS = ("delivered", "배송완료", "배송 완료", "배달완료", "配達完了", "お届け済み")


def says_delivered(status: str) -> bool:
    """Carriers word it their own way; "undelivered" and "not delivered" are not deliveries."""
    text = status.lower()
    if "undeliver" in text or "not deliver" in text or "미배송" in text:
        return False
    return any(word in text for word in DELIVERED_WORDS)


def compact_reference(reference: str) -> str:
    """An order reference as compared: upper case, letters and digits only."""
    return re.sub(r"[^0-9A-Za-z]", "", reference).upper()


def same_order(number: str, reference: str) -> bool:
    """`20240115-001234`, `#202401150012 34` and `202401150012-34` all name one order; so do
    `MC20261130-0003`, `mc202611300003` and, without the shop's letter prefix, `20261130-0003`
    (a reference of six digits or more: the customer's own orders are the only ones compared)."""
    stored, typed = compact_reference(number), compact_reference(reference)
    if not typed:
        return False
    if stored == typed:
        return True
    digits = sum(ch.isdigit() for ch in typed)
    rest = stored[: len(stored) - len(typed)]
    return digits >= 6 and stored.endswith(typed) and rest.isalpha()


class ShopData(Protocol):
    """Reads only: csbot never writes to the shop's system.

    Every method may raise ShopDataUnavailable; none answers "nothing" when it does not know.
    Orders are always read through their customer, so ownership is part of every call.
    """

    async def customer_by_phone(self, phone: str) -> ShopCustomer | None: ...

    async def orders_of(
        self, customer_id: str, *, limit: int = 5, statuses: Sequence[str] | None = None
    ) -> list[ShopOrder]:
        """Newest first."""
        ...

    async def order_of(self, customer_id: str, reference: str) -> ShopOrder | None:
        """The customer's own order by number as the customer wrote it; None for anyone else's."""
        ...

    async def products_by_sku(self, skus: Sequence[str]) -> list[ShopProduct]:
        """In the order asked, case-insensitive; unknown SKUs are left out."""
        ...

    async def catalogue(self) -> list[ShopProduct]:
        """The whole catalogue, for the name index built at start."""
        ...
