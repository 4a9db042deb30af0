from __future__ import annotations

import pytest

from services.llm.fact_guard import FactGuard

FACTS = (
    "Orders paid by 2 p.m. ship the same day. Shipping is ₩3,000, free over ₩50,000. "
    "Gold members get 5% off. Contact help@shop.example or https://shop.example/returns. "
    "Order 20240115-001234 arrives 2026-12-01. Call 010-1234-5678."
)


@pytest.mark.parametrize(
    "reply",
    [
        "Shipping costs ₩3,000 and is free over ₩50,000.",
        "Gold members get 5% off.",
        "Your order 20240115-001234 should arrive on 2026-12-01.",
        "Write to help@shop.example or see https://shop.example/returns.",
        "You can call us on 01012345678.",
        "We accept cards, KakaoPay and bank transfer.",
    ],
)
def test_supported_replies_pass(reply: str) -> None:
    assert FactGuard(FACTS).check(reply).ok


@pytest.mark.parametrize(
    ("reply", "culprit"),
    [
        ("Shipping is ₩2,500.", "2500"),
        ("VIP members get 12% off.", "12"),
        ("Returns are accepted within 30 days.", "30"),
        ("Your order arrives 2026-12-03.", "03"),
        ("Email refunds@other.example for help.", "refunds@other.example"),
        ("See https://evil.example/promo", "https://evil.example/promo"),
        ("Call 010-9999-8888.", "9999"),
    ],
)
def test_invented_facts_are_caught(reply: str, culprit: str) -> None:
    verdict = FactGuard(FACTS).check(reply)
    assert not verdict.ok and culprit in verdict.reason
