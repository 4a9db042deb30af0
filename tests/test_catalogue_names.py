"""Finding a shop's products in customer text: any SKU, any localized name, any part of one."""

from __future__ import annotations

from services.understanding.entities import (
    CatalogueName,
    EntityExtractor,
    sku_like_tokens,
    without_product_names,
)

SHOP = EntityExtractor(
    [
        CatalogueName("TNT-2P-GRN", ("Ridge 2-Person Tent", "릿지 2인용 텐트", "リッジ 2人用テント")),
        CatalogueName("MUG-TI-450", ("Titanium Mug 450ml", "티타늄 머그 450ml", "チタンマグ 450ml")),
        CatalogueName("a1001", ("Merino Crew Sweater", "메리노 크루 스웨터")),
        CatalogueName("a1002", ("Merino Wool Socks", "메리노 울 양말")),
        CatalogueName("P-452", ("Item 452",)),
        CatalogueName("P-4521", ("Item 4521",)),
    ]
)


def products(text: str) -> list[str]:
    return list(SHOP.extract(text).products)


def test_the_shops_own_skus_in_any_case() -> None:
    assert SHOP.extract("tnt-2p-grn 재고?").skus == ("TNT-2P-GRN",)
    assert SHOP.extract("A1001 in stock?").skus == ("a1001",)


def test_every_localized_name_and_its_parts() -> None:
    assert products("リッジ 2人用テントの在庫は？") == ["TNT-2P-GRN"]
    assert products("チタンマグありますか") == ["MUG-TI-450"]
    assert products("텐트는 재고 있어요?") == ["TNT-2P-GRN"]
    assert products("do you have the titanium mug?") == ["MUG-TI-450"]


def test_a_shared_word_names_each_product_and_more_words_pick_one() -> None:
    assert products("merino 재고 있나요?") == ["a1001", "a1002"]
    assert products("merino socks in stock?") == ["a1002"]
    assert products("메리노 스웨터 있어요?") == ["a1001"]


def test_a_name_is_not_the_start_of_a_longer_one() -> None:
    assert products("item 4521 in stock?") == ["P-4521"]
    assert products("item 452 in stock?") == ["P-452"]


def test_sku_looking_words_for_a_catalogue_not_indexed() -> None:
    assert sku_like_tokens("BAG-30L 재고 있어요? and x9") == ("BAG-30L",)
    assert sku_like_tokens("order 20240115-001234") == ("20240115-001234",)
    assert sku_like_tokens("is it in stock?") == ()


def test_two_products_named_by_their_own_words_are_both_found() -> None:
    assert products("텐트랑 티타늄 머그 재고 있나요?") == ["MUG-TI-450", "TNT-2P-GRN"]


def test_a_part_of_a_japanese_compound_names_the_product() -> None:
    shop = EntityExtractor([CatalogueName("STV", ("Pocket Gas Stove", "ポケット ガスストーブ"))])
    assert shop.extract("ストーブは入荷しますか").products == ("STV",)


def test_the_stock_lookup_evaluation_runs_on_both_sets(capsys: object) -> None:
    import re

    from bench import stock_lookup

    stock_lookup.main()
    last = capsys.readouterr().out.strip().splitlines()[-1]  # type: ignore[attr-defined]
    assert re.fullmatch(
        r"tuning_products=\d\.\d{3} heldout_products=\d\.\d{3}"
        r" tuning_follow_ups=\d\.\d{3} heldout_follow_ups=\d\.\d{3}",
        last,
    )


def test_a_shops_own_coded_order_numbers_are_recognised() -> None:
    assert SHOP.extract("주문 HB-2026-0001 어디쯤 왔어요?").order_numbers == ("HB-2026-0001",)
    assert SHOP.extract("where is ord20260001?").order_numbers == ("ORD20260001",)
    # Not order numbers: SKUs, RMA numbers, phone numbers, size ranges.
    for text in ("P-4521 재고", "TNT-2P-GRN", "RMA-20261130123456 상태", "010-1234-5678", "270-280 있나요"):
        assert SHOP.extract(text).order_numbers == (), text


def test_order_references_match_with_or_without_dashes_and_in_any_case() -> None:
    from services.shop.sources.base import same_order

    assert same_order("HB-2026-0001", "hb-2026-0001")
    assert same_order("20240115-001234", "202401150012 34")
    assert not same_order("20240115-001234", "20240115-001235")


def neutral(text: str) -> str:
    return without_product_names(text, SHOP.extract(text).product_words)


def test_the_words_that_named_a_product_become_a_neutral_noun() -> None:
    assert (
        neutral("I want to return the Merino  Crew Sweater, too small")
        == "I want to return the item, too small"
    )
    assert neutral("merino socks are itchy") == "item are itchy"  # two words, one product: one noun
    assert neutral("텐트는 반품할래요") == "상품는 반품할래요"
    assert neutral("チタンマグを交換したい") == "商品を交換したい"
    assert neutral("is my order late?") == "is my order late?"


def test_a_neutral_noun_replaces_whole_words_only() -> None:
    assert without_product_names("the mugshot and the mug", ("mug",)) == "the mugshot and the item"


def test_the_naming_words_are_not_logged_as_entities() -> None:
    found = SHOP.extract("do you have the Titanium Mug 450ml?")
    assert found.product_words == ("titanium mug 450ml",)
    assert found.as_dict() == {"products": ["MUG-TI-450"]}


def test_a_part_of_a_compound_inside_a_longer_katakana_word_names_nothing() -> None:
    shop = EntityExtractor([CatalogueName("BAG", ("Canvas Tote Bag", "キャンバストートバッグ"))])
    assert shop.extract("今キャンペーンやってますか").products == ()
    assert shop.extract("キャンバスの色は？").products == ("BAG",)


def test_a_hyphenated_rma_number_is_read_whole() -> None:
    """csbot files RMA-YYYYMMDDnnnnnn, but customers also type numbers in a shop's older
    hyphenated style: "RMA-2024-0001" must not be cut to "RMA-2024" (nor read as an order)."""
    found = SHOP.extract("what about RMA-2024-0001?")
    assert found.rma_numbers == ("RMA-2024-0001",)
    assert found.order_numbers == ()
    assert SHOP.extract("rma 20261130123456 상태").rma_numbers == ("RMA-20261130123456",)
    dashed = SHOP.extract("RMA-20261130-123456")
    assert dashed.rma_numbers == ("RMA-20261130-123456",)
    assert dashed.order_numbers == (), "its order-shaped part is no order of the customer's"


def test_a_name_shared_in_part_with_another_kind_of_thing_is_a_near_miss() -> None:
    """ "wool coat" found the Wool Beanie by "wool" and got its stock line: the word that differs names
    another kind of thing, so the product is a near miss (offered, never the answer)."""
    for text in (
        "titanium spoon in stock?",
        "티타늄 컵 있어요?",
        "티타늄컵 있어요?",
        "チタンのスプーンはありますか",
    ):
        found = SHOP.extract(text)
        assert found.products == ("MUG-TI-450",) and found.near_misses == ("MUG-TI-450",), text
        assert found.answered_products == (), text
    assert SHOP.extract("ridge backpack?").near_misses == ("TNT-2P-GRN",)
    assert SHOP.extract("titanium spoon?").as_dict() == {
        "products": ["MUG-TI-450"],
        "near_misses": ["MUG-TI-450"],
    }


def test_a_name_s_own_kind_its_plural_or_its_other_words_are_no_near_miss() -> None:
    for text in (
        "do you have the titanium mug?",  # part of the name, the kind included
        "titanium mugs?",  # a plural
        "is the titanium in stock?",  # nothing else named
        "merino socks in stock?",
        "텐트랑 티타늄 머그 재고 있나요?",  # two products, each by its own words
        "텐트는 재고 있어요?",
        "チタンマグの在庫ありますか",
        "is the ridge tent available in green?",  # options are no things
        "the tent, and do you sell umbrellas?",  # the tent was asked for by its kind
        "is the titanium still in stock or is it gone?",  # a word elsewhere is not the phrase's kind
        "titanium, 450ml, any left?",
    ):
        found = SHOP.extract(text)
        assert found.products and found.near_misses == (), text
    shirt = EntityExtractor([CatalogueName("OS", ("Linen Overshirt", "린넨 오버셔츠"))])
    assert shirt.extract("is the linen shirt in stock?").near_misses == (), "an overshirt is a shirt"
    assert shirt.extract("린넨 셔츠는 재고 있나요?").near_misses == ()


def test_words_naming_a_thing_no_product_is_are_kept_apart() -> None:
    """What tells "do you have sneakers?" from "is it available in M?" after a question about a product."""
    assert SHOP.extract("do you have sneakers?").other_things == ("sneakers",)
    assert SHOP.extract("가방 있어요?").other_things == ("가방",)
    assert SHOP.extract("スニーカーはありますか").other_things == ("スニーカー",)
    assert SHOP.extract("is A1001X in stock?").other_things == ("a1001x",), "an unknown code is a thing too"
    for follow_up in (
        "is it available in M?",
        "what about navy?",
        "그거 재고 있어요?",
        "how much is it?",
        "Mサイズはありますか",
    ):
        assert SHOP.extract(follow_up).other_things == (), follow_up
    assert SHOP.extract("do you have the titanium mug?").other_things == ()
    assert SHOP.extract("tnt-2p-grn 재고?").other_things == (), "a product code is no word of a thing"
    assert SHOP.extract("do you have sneakers?").as_dict() == {}, "the customer's words are not logged"


def test_a_long_run_of_particles_is_read_without_taking_it_apart() -> None:
    """A 10,000-character run of "가" (a particle) exceeded Python's recursion limit while being split
    into particles (tests/test_bad_input.py found it): such runs are no frame word, and cost little."""
    for text in ("가" * 10_000, "는은" * 3_000, "ウール" + "の" * 5_000 + "コート", "이가" * 12):
        SHOP.extract(text)
