"""The console's pure parts: phone masking, grouping unanswered questions, SVG charts."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from services.console.charts import Chart, Series, nice_ticks, render
from services.console.gaps import group_questions
from services.console.privacy import mask_phone, mask_phones


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("call me on 010-1234-5678 please", "call me on •••-••••-5678 please"),
        (
            "급하면 010-2345-6789로 연락 주세요",
            "급하면 •••-••••-6789로 연락 주세요",
        ),  # a particle right after it
        ("01012345678", "•••••••5678"),
        ("+82 10-1234-5678", "+•• ••-••••-5678"),
        ("order 20240115-001234 where?", "order 20240115-001234 where?"),  # order numbers stay readable
        ("20240115-001234배송", "20240115-001234배송"),
        ("user 700000001, 39000 won, SKU-7890", "user 700000001, 39000 won, SKU-7890"),
    ],
)
def test_phone_numbers_are_masked_and_nothing_else(text: str, masked: str) -> None:
    assert mask_phones(text) == masked


def test_a_stored_phone_keeps_its_last_four_digits() -> None:
    assert mask_phone("821012345678") == "••••••••5678"


def test_unanswered_questions_are_grouped_by_what_they_ask() -> None:
    questions = [
        "Do you sell gift cards?",
        "do you sell gift cards",
        "Do you sell gift cards for birthdays?",
        "환불은 언제 되나요?",
        "환불 언제 되나요",
        "Can I pay with bitcoin?",
        "  ",
    ]
    groups = group_questions(questions)
    assert [(g.count, g.example, g.variants) for g in groups] == [
        (3, "Do you sell gift cards?", ["Do you sell gift cards for birthdays?"]),  # first-asked phrasing
        (2, "환불은 언제 되나요?", ["환불 언제 되나요"]),  # no spaces needed between words
        (1, "Can I pay with bitcoin?", []),
    ]
    assert sum(g.count for g in groups) == 6


def test_korean_and_japanese_paraphrases_of_one_question_are_one_group() -> None:
    """The way a question is asked ("되나요", "가능한가요", "해주시나요"; "できますか", "ありますか") is not
    what it asks: three groups of one were one group of three."""
    groups = group_questions(
        [
            "선물 포장 되나요?",
            "선물 포장 가능한가요?",
            "선물포장 해주시나요?",
            "ギフト包装できますか",
            "ギフト包装はありますか",
            "해외 배송 되나요?",
            "해외배송 가능한가요",
            "영수증 발급 가능한가요?",
        ]
    )
    assert [(g.count, g.example) for g in groups] == [
        (3, "선물 포장 되나요?"),
        (2, "ギフト包装できますか"),
        (2, "해외 배송 되나요?"),
        (1, "영수증 발급 가능한가요?"),
    ]


def test_ticks_are_round_and_reach_the_top() -> None:
    assert nice_ticks(3) == [0.0, 1.0, 2.0, 3.0]
    assert nice_ticks(0.0023) == [0.0, 0.0005, 0.001, 0.0015, 0.002, 0.0025]
    assert nice_ticks(140)[-1] >= 140 and len(nice_ticks(140)) <= 7
    assert nice_ticks(0) == [0.0, 1.0]


def test_a_chart_has_a_title_units_ticks_labels_and_a_legend() -> None:
    start = datetime(2026, 11, 30, tzinfo=UTC)
    labels = [start + timedelta(hours=h) for h in range(3)]
    svg = render(
        Chart(
            "Time to answer per hour",
            "ms",
            labels,
            [Series("p50", [10.0, None, 30.0]), Series("p95", [20.0, 25.0, 90.0])],
        )
    )
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<title>Time to answer per hour</title>" in svg and ">ms</text>" in svg
    assert ">100</text>" in svg and ">0</text>" in svg  # y ticks up to a round 100
    assert "11-30 00:00" in svg and ">p50</text>" in svg and ">p95</text>" in svg
    assert svg.count("<circle") == 5  # the missing value is not drawn as zero
    stacked = render(Chart("Messages", "messages", labels, [Series("a<b", [1.0, 2.0, 0.0])], stacked=True))
    assert stacked.count("<rect") == 2 + 1 and "a&lt;b" in stacked  # two bars, one legend swatch; escaped
    empty = render(Chart("Nothing", "USD", labels, [Series("cost", [0.0, 0.0, 0.0])]))
    assert "no data in this period" in empty
    assert not re.search(r"nan|inf", svg + stacked + empty)
