"""Sizes and colours asked for, and the ones a product comes in (services/catalogue/options.py)."""

from __future__ import annotations

import pytest

from services.catalogue.options import asked_options, not_offered, offered_options

DEMO_SHIRT = ("S, M, L, XL; beige, navy",)
"""The demo seed writes a product's options as one value."""


@pytest.mark.parametrize(
    ("question", "sizes", "colours"),
    [
        ("Is the linen overshirt in size XXL?", {"XXL"}, set()),
        ("linen overshirt in red?", set(), {"red"}),
        ("is it available in M?", {"M"}, set()),
        ("린넨 오버셔츠 빨간색 있어요?", set(), {"red"}),
        ("M 사이즈 있나요?", {"M"}, set()),
        ("그럼 L은요?", {"L"}, set()),
        ("Mサイズはありますか", {"M"}, set()),
        ("ネイビーはありますか", set(), {"navy"}),
        ("紺色はありますか", set(), {"navy"}),
        ("the merino sweater in navy, size small", {"S"}, {"navy"}),
        ("I'm looking for a bag, let's see", set(), set()),
        ("料金はいくらですか", set(), set()),
        ("Trail Daypack 30L in stock?", set(), set()),
        ("블루투스 스피커 있어요?", set(), set()),  # a colour inside another word (review)
        ("블랙프라이데이 할인해요?", set(), set()),
        ("블랙이요", set(), {"black"}),
        ("크림색 있나요", set(), {"cream"}),
    ],
)
def test_the_sizes_and_colours_a_question_asks_for(question: str, sizes: set[str], colours: set[str]) -> None:
    asked = asked_options(question)
    assert (set(asked.sizes), set(asked.colours)) == (sizes, colours)


def test_numbered_sizes_are_read_where_they_read_as_sizes() -> None:
    assert asked_options("denim wide pants in 36?").numbers == {36}
    assert asked_options("데님 팬츠 26사이즈 있나요").numbers == {26}
    assert asked_options("デニムパンツの32サイズはありますか").numbers == {32}
    assert asked_options("can it arrive in 30 minutes?").numbers == set()


def test_options_outside_the_product_s_are_not_offered() -> None:
    xxl = not_offered(asked_options("in size XXL?"), DEMO_SHIRT)
    assert xxl.sizes == ("XXL",) and xxl.offered.sizes == ("S", "M", "L", "XL")
    red = not_offered(asked_options("in red?"), DEMO_SHIRT)
    assert red.colours == ("red",) and red.offered.colour_values == ("beige", "navy")
    assert not_offered(asked_options("in 36?"), ("26-34",)).sizes == ("36",)
    assert not_offered(asked_options("medium?"), ("small", "large")).sizes == ("M",)


def test_offered_asked_or_unreadable_options_are_not_judged() -> None:
    assert not not_offered(asked_options("in navy?"), DEMO_SHIRT)
    assert not not_offered(asked_options("in M?"), DEMO_SHIRT)
    assert not not_offered(asked_options("in 30?"), ("26-34",))
    assert not not_offered(asked_options("navy or red?"), DEMO_SHIRT), "one of them is offered"
    assert not not_offered(asked_options("in M?"), ("26-34",)), "a letter against numbers: not judged"
    assert not not_offered(asked_options("in red?"), ("heather", "navy")), "an unread value may be red"
    assert not not_offered(asked_options("in red?"), ()), "no options listed: nothing to judge"
    assert not offered_options(("one size",)).readable
