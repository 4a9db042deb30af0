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
CURRENCIES = frozenset(
    """AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP
    BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL
    GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW
    KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN
    NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK
    SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS
    VES VND VUV WST XAF XCD XOF XPF YER ZAR ZMW ZWL""".split()  # noqa: SIM905 (a table to read)
)
"""ISO 4217's current codes: `WON` or `YEN` is a word, not a currency, and is refused by name."""
_CURRENCY_WORDS = {"WON": "KRW", "YEN": "JPY", "RMB": "CNY", "NTD": "TWD", "EURO": "EUR"}
_SYMBOLS_AROUND = "₩$¥€£원円"
"""Spreadsheets exported for people: `₩59,000`, `59,000원`, `$24.90` are read as the number."""
_SIGNS = {
    "₩": frozenset({"KRW", "KPW"}),
    "원": frozenset({"KRW", "KPW"}),
    "¥": frozenset({"JPY", "CNY"}),
    "円": frozenset({"JPY"}),
    "€": frozenset({"EUR"}),
    "£": frozenset({"GBP", "EGP", "GIP", "FKP", "SHP", "SYP", "LBP", "SDG", "SSP"}),
    "$": frozenset(
        {
            "USD",
            "AUD",
            "CAD",
            "NZD",
            "SGD",
            "HKD",
            "TWD",
            "MXN",
            "ARS",
            "CLP",
            "COP",
            "UYU",
            "BSD",
            "BBD",
            "BMD",
            "BND",
            "BZD",
            "FJD",
            "GYD",
            "JMD",
            "KYD",
            "LRD",
            "NAD",
            "SBD",
            "SRD",
            "TTD",
            "XCD",
            "CUP",
            "DOP",
            "BOB",
            "NIO",
            "TOP",
            "WST",
            "MOP",
            "KHR",
        }
    ),
}
"""Which currencies a sign written beside a price can mean: `$5` in a KRW file is a mistake."""


def decimals(currency: str) -> int:
    return 0 if currency in ZERO_DECIMAL_CURRENCIES else 2


def valid_currency(code: str) -> bool:
    return code in CURRENCIES


def currency_problem(code: str) -> str:
    """Why `code` is not a currency csbot can price in, one sentence for the shop."""
    suggestion = _CURRENCY_WORDS.get(code.upper())
    if suggestion:
        return f"{code!r} is not a currency code; use {suggestion}"
    return f"{code!r} is not an ISO 4217 currency code (e.g. KRW, JPY, USD)"


def parse_price(text: str, currency: str) -> int:
    """Major units to minor units; raises ValueError with a sentence a shop owner understands."""
    compact = text.strip().replace(" ", "")
    for sign, currencies in _SIGNS.items():
        if sign in compact and currency not in currencies:
            raise ValueError(f"{text!r} is written with {sign!r}, but the price is in {currency}")
    raw = compact.strip(_SYMBOLS_AROUND)
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
