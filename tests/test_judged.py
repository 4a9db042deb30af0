"""The customer's own numbers, judged against bounds the sources support."""

from __future__ import annotations

import pytest

from services.llm.fact_claims import claims
from services.llm.judged import cutoffs, judged, lunch_breaks, misjudged, opening_hours

SOURCES = (
    "Customer service: weekdays 10:00-18:30 (lunch 12:30-13:30). Orders paid by 2 p.m. ship the same "
    "day. Shipping: 3,000원 per order, free for orders of 50,000원 or more."
)
OFFERS = frozenset().union(*(claim.offers for claim in claims(SOURCES)))


@pytest.mark.parametrize(
    ("reply", "held"),
    [
        ("Yes, 6:15 p.m. works - we're open 10:00 to 18:30.", {"6:15 p.m."}),
        ("18:29 works, we're open 10:00 to 18:30.", {"18:29"}),
        ("18:31 works, we're open 10:00 to 18:30.", set()),
        ("9:59 works, we're open 10:00 to 18:30.", set()),
        ("Call us between 10:00 and 11:00; we're open 10:00-18:30.", {"10:00 and 11:00"}),  # its ends
        ("Call us between 17:00 and 18:30; we're open 10:00-18:30.", {"17:00 and 18:30"}),
        ("Call us between 17:00 and 18:45; we're open 10:00-18:30.", set()),
        ("We're open 10:00-18:30. Please call between 12:00 and 12:30.", {"12:00 and 12:30"}),
        ("지금이 12시 40분이라 점심시간(12시 반~1시 반)이에요.", {"12시 40분"}),
        ("今は13時ですので、お昼休み(12:30-13:30)中です。", {"13時"}),
        # a range of times inside one, when to call
        ("平日10時から18時半までですが、12時から12時半の間にお掛けください。", {"12時から12時半"}),
        ("Call us between 11:00 and 12:00; we're open 10:00-18:30.", {"11:00 and 12:00"}),
        ("Call us between 9:00 and 12:00; we're open 10:00-18:30.", set()),  # starts before it
        # a time before a cutoff, as the customer's case
        ("오후 2시까지 결제된 주문은 당일 발송되니 오후 1시에 결제하시면 그날 발송돼요.", {"오후 1시"}),
        ("If you pay at 1:59 p.m., orders paid by 2 p.m. ship the same day.", {"1:59 p.m."}),
        ("If you pay at 2:01 p.m., orders paid by 2 p.m. ship the same day.", set()),
        (
            "Orders paid by 2 p.m. ship the same day, so paying at 1:45 p.m. means it goes out that day.",
            {"1:45 p.m."},
        ),
        (
            "Orders paid by 2 p.m. ship the same day, so paying at 2:30 p.m. means it goes out that day.",
            set(),
        ),
        # a time after it, said to miss it
        ("Orders paid by 2 p.m. ship the same day, so 2:01 p.m. is the next business day.", {"2:01 p.m."}),
        ("오후 2시까지 결제된 주문만 당일 출고라서, 3시 결제는 당일 출고 대상이 아니에요.", {"3시"}),
        ("오후 2시까지 결제된 주문만 당일 출고라서, 1시 결제는 당일 출고 대상이 아니에요.", set()),
        ("Don't worry, orders paid by 2 p.m. ship the same day, and 3 p.m. is fine too.", set()),
        ("Orders paid by 2 p.m. ship the same day; at 3 p.m. it won't ship until tomorrow.", {"3 p.m."}),
        ("오후 2시까지 결제된 주문은 당일 발송되니 3시에 결제하시면 그날 발송돼요.", set()),  # 15:00 too
        ("If you pay between 1 and 2 p.m., orders paid by 2 p.m. ship the same day.", {"1 and 2 p.m."}),
        # an amount said as an order's, beside the shop's
        ("Free shipping starts at 50,000 won, so a 45,000 won order has a 3,000 won fee.", {"45,000 won"}),
        ("45,000원짜리 주문은 5만 원이 안 되어서 배송비 3,000원이 붙어요.", {"45,000원"}),
        # ... or as the customer's basket
        ("지금 4만 8천 원어치 담으셨으니 무료배송까지 조금 남았어요.", {"4만 8천 원"}),
        ("You have 48,000 won in your cart, so shipping is still charged.", {"48,000 won"}),
    ],
)
def test_a_number_judged_against_a_supported_bound(reply: str, held: set[str]) -> None:
    assert judged(reply, OFFERS) == held


@pytest.mark.parametrize(
    ("reply", "held"),
    [
        ("평일 오후 1시에 결제하시면 당일 출고돼요.", {"오후 1시"}),
        ("水曜日の13時45分にお支払いが完了していれば当日発送となります。", {"13時45分"}),
        ("평일 오후 3시에 결제하시면 당일 출고돼요.", set()),  # after it
        ("1시에 전화 주시면 돼요.", set()),  # not on the same day's dispatch
        ("正午までにお支払いいただければ当日発送です。", set()),  # its own deadline, said wrong
    ],
)
def test_the_sources_deadline_where_the_reply_states_none(reply: str, held: set[str]) -> None:
    deadlines = tuple(cutoffs(SOURCES, OFFERS))
    assert deadlines == (14 * 60,)
    assert judged(reply, OFFERS, deadlines=deadlines) == held
    assert judged(reply, OFFERS) == set()  # with no deadline given, nothing is judged


@pytest.mark.parametrize(
    "reply",
    [
        "Orders paid by 3 p.m. ship the same day; we're open 10:00 to 18:30.",  # stated, not judged
        "Yes, 6:15 p.m. works - we're open 10:00 to 18:45.",  # a range the sources do not give
        "Yes, 6:15 p.m. works.",  # no range stated
        "We're open 10:00 to 18:30. Orders paid by 3 p.m. ship the same day.",  # not judged
        "Orders paid by 3 p.m. ship the same day.",  # a cutoff, not the customer's case
        "Orders of 45,000 won or more ship free; shipping is otherwise 3,000 won.",  # the threshold
        "A 45,000 won order ships free.",  # no supported amount beside it
        "If you pay 45,000 won by 2 p.m., it ships the same day.",  # an amount is no time
    ],
)
def test_a_number_only_stated_or_judged_against_nothing_supported_is_not_held(reply: str) -> None:
    assert judged(reply, OFFERS) == frozenset()


def test_the_hours_may_be_stated_in_the_reply_already_released() -> None:
    before = "We're open weekdays 10:00-18:30."
    assert judged("Please call between 12:00 and 12:30.", OFFERS, before=before) == {"12:00 and 12:30"}
    assert judged("Please call between 12:00 and 12:30.", OFFERS) == frozenset()
    before = "Orders paid by 2 p.m. ship the same day."
    assert judged("If you pay at 1 p.m., it ships today.", OFFERS, before=before) == {"1 p.m."}
    assert judged("If you pay at 1 p.m., it ships today.", OFFERS) == frozenset()


PICK_UP = f"{SOURCES} Evening pick-up of returns at 20:00."
PICK_UP_OFFERS = frozenset().union(*(claim.offers for claim in claims(PICK_UP)))


@pytest.mark.parametrize(
    ("reply", "wrong"),
    [
        # a time the sources state, said of a call that gets through
        ("20:00에 전화 주시면 바로 연결돼요.", ["20:00"]),  # after the hours
        ("14:00에 전화 주시면 바로 연결돼요.", []),
        ("10:00 전에 전화 주시면 연결돼요.", ["10:00"]),  # a call before the opening
        ("14:00 전에 전화 주시면 연결돼요.", []),
        ("18:30 이후에 전화 주시면 연결돼요.", ["18:30"]),  # a call after the closing
        ("13:30 이후에 전화 주시면 연결돼요.", []),
        ("18:30 works, we're open 10:00 to 18:30.", []),  # at closing: read either way
        # ... said to be the lunch break, or on one side of it
        ("오후 2시쯤 전화 주시면 점심시간이라 연결이 어려워요.", ["오후 2시"]),
        ("오후 2시면 점심시간 전이라 통화 가능해요.", ["오후 2시"]),
        ("오후 2시면 점심시간 끝난 뒤라 통화 가능해요.", []),
        # ... at its very start or end: on that side
        ("12:30이면 점심시간 전이라 통화 가능해요.", []),
        ("13:30이면 점심시간 전이라 통화 가능해요.", ["13:30"]),
        ("13:30이면 점심시간 끝난 뒤라 통화 가능해요.", []),
        ("12:30이면 점심시간 끝난 뒤라 통화 가능해요.", ["12:30"]),
        # ... said to miss the day's cutoff, or to make it
        ("오후 1시 30분에 결제하시면 당일 출고가 어려워요.", ["오후 1시 30분"]),
        ("오후 2시에 결제하시면 당일 출고가 어려워요.", []),  # at the cutoff: read either way
        ("If you pay at 6:30 p.m. it still ships the same day.", ["6:30 p.m."]),
        ("토요일 오후 1시 30분에 결제하시면 당일 출고가 어려워요.", []),  # not a working day
        ("Paying by 1:30 p.m. beats the 2 p.m. cutoff, so the order ships the same day.", []),
    ],
)
def test_a_time_the_sources_state_said_on_the_wrong_side_of_their_bound(reply: str, wrong: list[str]) -> None:
    said = misjudged(
        reply,
        PICK_UP_OFFERS,
        deadlines=cutoffs(PICK_UP, PICK_UP_OFFERS),
        lunch=lunch_breaks(PICK_UP, PICK_UP_OFFERS),
        opening=opening_hours(PICK_UP, PICK_UP_OFFERS),
    )
    assert [text.partition(" (")[0] for text in said] == wrong
