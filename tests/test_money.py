"""Prices as shops write them, stored in minor units, written back the same."""

from __future__ import annotations

import pytest

from services.shop.money import format_price, money, parse_price


@pytest.mark.parametrize(
    ("text", "currency", "minor"),
    [
        ("59000", "KRW", 59000),
        ("59,000", "KRW", 59000),
        ("₩59,000", "KRW", 59000),
        ("59,000원", "KRW", 59000),
        ("24.90", "USD", 2490),
        ("$24.9", "USD", 2490),
        ("1200", "JPY", 1200),
        ("0", "EUR", 0),
    ],
)
def test_prices_read_as_written(text: str, currency: str, minor: int) -> None:
    assert parse_price(text, currency) == minor
    assert parse_price(format_price(minor, currency), currency) == minor


@pytest.mark.parametrize(
    ("text", "currency", "problem"),
    [
        ("12x", "KRW", "is not a number"),
        ("-5", "KRW", "is negative"),
        ("1.5", "KRW", "KRW has no decimal places"),
        ("1.999", "USD", "more than 2 decimal places"),
        ("nan", "USD", "is not a number"),
    ],
)
def test_bad_prices_say_why(text: str, currency: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_price(text, currency)


def test_customers_read_the_currencys_own_form() -> None:
    assert [money(59000, "KRW"), money(1200, "JPY"), money(2490, "USD")] == ["₩59,000", "¥1,200", "24.90 USD"]
