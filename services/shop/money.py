"""Prices as the shop writes them ("59000", "19.99") and as csbot stores them (minor units).

One place knows how many decimals a currency has, so the importer, the exporter and the
replies can never disagree about whether 1999 means ₩1,999 or $19.99.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

ZERO_DECIMAL_CURRENCIES = frozenset({"KRW", "JPY", "VND", "CLP", "ISK", "PYG", "UGX", "XAF", "XOF"})
_SYMBOLS = {"KRW": "₩", "JPY": "¥"}
_THOUSANDS = re.compile(r"^\d{1,3}(,\d{3})+(\.\d+)?$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
_SYMBOLS_AROUND = "₩$¥€£원円"
"""Spreadsheets exported for people: `₩59,000`, `59,000원`, `$24.90` are read as the number."""


def decimals(currency: str) -> int:
    return 0 if currency in ZERO_DECIMAL_CURRENCIES else 2


def valid_currency(code: str) -> bool:
    return _CURRENCY.match(code) is not None


def parse_price(text: str, currency: str) -> int:
    """Major units to minor units; raises ValueError with a sentence a shop owner understands."""
    raw = text.strip().replace(" ", "").strip(_SYMBOLS_AROUND)
    if _THOUSANDS.match(raw):
        raw = raw.replace(",", "")
    try:
        amount = Decimal(raw)
    except InvalidOperation:
        raise ValueError(f"{text!r} is not a number") from None
    if not amount.is_finite():
        raise ValueError(f"{text!r} is not a number")
    if amount < 0:
        raise ValueError(f"{text!r} is negative")
    minor = amount.scaleb(decimals(currency))
    if minor != minor.to_integral_value():
        places = decimals(currency)
        raise ValueError(
            f"{text!r} has more than {places} decimal places for {currency}"
            if places
            else f"{text!r}: {currency} has no decimal places"
        )
    return int(minor)


def format_price(minor: int, currency: str) -> str:
    """The file form: `59000`, `19.99` - what parse_price reads back to the same number."""
    places = decimals(currency)
    if places == 0:
        return str(minor)
    return f"{Decimal(minor).scaleb(-places):.{places}f}"


def money(minor: int, currency: str) -> str:
    """The customer form: `₩59,000`, `¥1,200`, `19.99 USD`."""
    places = decimals(currency)
    amount = Decimal(minor).scaleb(-places)
    symbol = _SYMBOLS.get(currency)
    if symbol is not None:
        return f"{symbol}{amount:,.{places}f}"
    return f"{amount:,.{places}f} {currency}"
