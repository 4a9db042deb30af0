"""A time of the customer's, judged against a range of hours the sources support."""

from __future__ import annotations

import pytest

from services.llm.fact_claims import claims
from services.llm.hours import within_hours

SOURCES = "Customer service: weekdays 10:00-18:30 (lunch 12:30-13:30)."
OFFERS = frozenset().union(*(claim.offers for claim in claims(SOURCES)))


@pytest.mark.parametrize(
    ("reply", "held"),
    [
        ("Yes, 6:15 p.m. works - we're open 10:00 to 18:30.", {"6:15 p.m."}),
        ("10:00 works, we're open 10:00 to 18:30.", {"10:00"}),
        ("18:29 works, we're open 10:00 to 18:30.", {"18:29"}),
        ("18:30 works, we're open 10:00 to 18:30.", set()),  # the range's end is closed
        ("9:59 works, we're open 10:00 to 18:30.", set()),
        ("지금이 12시 40분이라 점심시간(12시 반~1시 반)이에요.", {"12시 40분"}),
        ("今は13時ですので、お昼休み(12:30-13:30)中です。", {"13時"}),
    ],
)
def test_a_judged_time_inside_a_supported_range(reply: str, held: set[str]) -> None:
    assert within_hours(reply, OFFERS) == held


@pytest.mark.parametrize(
    "reply",
    [
        "Orders paid by 3 p.m. ship the same day; we're open 10:00 to 18:30.",  # stated, not judged
        "Yes, 6:15 p.m. works - we're open 10:00 to 18:45.",  # a range the sources do not give
        "Yes, 6:15 p.m. works.",  # no range beside it
    ],
)
def test_a_time_only_stated_or_judged_against_nothing_supported_is_not_held(reply: str) -> None:
    assert within_hours(reply, OFFERS) == frozenset()
