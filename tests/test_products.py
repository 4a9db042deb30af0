"""The products of a shop's sources, and where a reply names them in any script
(`services.llm.products`)."""

from __future__ import annotations

import pytest

from services.llm.products import catalogue, counts_of, mentions, named_loosely, only_attributes

SOURCES = """1. Gift wrapping: 2,000원 per item.

## Product facts
- Linen tablecloth 150×220 cm, 39,000원, weight 0.8 kg
- Cast-iron pot 24 cm, 89,000원, 3.2 kg, capacity 4 L
- Glass teapot 600 ml, 25,000원
- Cotton bath towel 70×140 cm, 12,000원
- Ceramic mug 350 ml, 9,000원
- Gift wrapping 2,000원
- Care: wash by hand"""

PRODUCTS = catalogue(SOURCES)


def test_a_catalogue_line_is_a_list_item_named_before_its_numbers() -> None:
    """A policy's line names a topic and is no product; a line with no number lists nothing."""
    assert [product.name for product in PRODUCTS] == [
        "Linen tablecloth",
        "Cast-iron pot",
        "Glass teapot",
        "Cotton bath towel",
        "Ceramic mug",
    ]
    pot = PRODUCTS[1]
    assert pot.head == "pot"
    assert pot.sounds == ("PT", "RNPT", "KSTRNPT")
    assert pot.values == {"length:240", "KRW:89000", "mass:3200", "volume:4000"}
    assert pot.kinds == {"length", "KRW", "mass", "volume"}


def named(text: str) -> list[tuple[str, bool]]:
    return [(mention.product.name, mention.sure) for mention in mentions(text, PRODUCTS)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("The pots and the mugs", [("Cast-iron pot", True), ("Ceramic mug", True)]),
        ("a glass tea pot", [("Glass teapot", True)]),  # two words written apart, read once
        ("a teapot", [("Glass teapot", True)]),
        ("コットンのバスタオル", [("Cotton bath towel", True)]),  # katakana: loanwords all
        ("マグカップ", [("Ceramic mug", True)]),
        ("바스타월이랑 티포트", [("Cotton bath towel", True), ("Glass teapot", True)]),
        ("목욕은", [("Ceramic mug", False)]),  # two sounds in Hangul: may confirm, not condemn
        ("머그컵은", [("Ceramic mug", True)]),  # ... but a loanword named as it is written names it
        ("타월", [("Cotton bath towel", True)]),
        ("무게는", []),  # what is measured names nothing, though "무게" (weight) sounds like "mug"
        ("냄비와 수건", [("Cast-iron pot", True), ("Cotton bath towel", True)]),  # native words
        ("鍋とテーブル掛け", [("Cast-iron pot", True), ("Linen tablecloth", True)]),
        ("유리 주전자", [("Glass teapot", True)]),  # no kettle in the catalogue: the teapot
        ("the potato", []),
    ],
)
def test_where_a_reply_names_a_product(text: str, found: list[tuple[str, bool]]) -> None:
    assert named(text) == found


def test_only_the_names_before_a_place_are_read() -> None:
    text = "The mug is 9,000원 and the teapot 25,000원"
    assert named(text[: text.index("9,000")]) == [("Ceramic mug", True)]
    found = mentions(text, PRODUCTS, before=text.index("25,000"))
    assert [mention.product.name for mention in found] == ["Ceramic mug", "Glass teapot"]
    assert found[-1].end == text.index(" 25,000")


@pytest.mark.parametrize(
    ("text", "only"),
    [
        ("重さは", True),
        ("무게는 약 ", True),
        ("容量は全部で", True),
        ("鋳鉄鍋のほうは", False),
        ("냄비는 ", False),
        ("", True),
    ],
)
def test_a_clause_that_names_only_what_is_measured(text: str, only: bool) -> None:
    assert only_attributes(text) is only


def test_any_word_of_a_name_names_it_loosely() -> None:
    """For telling a list of several products from one product's numbers: "리넨 식탁보" names the
    linen tablecloth by its first word; what is measured ("무게", which sounds like "mug") none."""
    assert "Linen tablecloth" in {product.name for product in named_loosely("리넨 식탁보는", PRODUCTS)}
    assert {product.name for product in named_loosely("the cotton one", PRODUCTS)} == {"Cotton bath towel"}
    assert named_loosely("냄비는 무게가", PRODUCTS) == set()


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        ("鋳物鍋2点", {"Cast-iron pot": {2}}),
        ("ティーポットとマグカップ2個", {"Ceramic mug": {2}}),  # the count of the name after it
        ("수건 다섯 장과 머그 두 개", {"Cotton bath towel": {5}, "Ceramic mug": {2}}),
        ("four towels and a teapot", {"Cotton bath towel": {4}}),
    ],
)
def test_a_count_belongs_to_the_name_right_before_it(text: str, counted: dict[str, set[int]]) -> None:
    assert {product.name: said for product, said in counts_of(text, PRODUCTS).items()} == counted
