"""The shop's own words, codes and carriers, read as its customers write them: options with their
own stock, order-number shapes learned from the shop's orders, tracking pages, local times."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from services.catalogue.variants import mentioned_options
from services.orders.codes import OrderCodes
from services.orders.tracking import tracking_url
from services.shop.files.products import join_options, split_options
from services.shop.local_time import local_day, local_minute
from services.shop.sources.base import ShopProduct, same_order

PEN = ShopProduct("FP-021", "月白", 16500, 6, "JPY", options=("EF", "F", "M"), option_stock=(2, 4, 0))
BEANS = ShopProduct(
    "BN-YIR", "Yirgacheffe", 18500, 4, options=("200g", "500g", "1kg"), option_stock=(0, 4, 0)
)
MUG = ShopProduct(
    "MG", "머그", 18000, 17, options=("아이보리", "차콜", "세이지그린"), option_stock=(12, 0, 5)
)
TEE = ShopProduct("T", "Tee", 9000, 6, options=("S", "M", "L"), option_stock=(2, 4, 0))


@pytest.mark.parametrize(
    ("product", "text", "options"),
    [
        (PEN, "月白のEFってまだ在庫ありますか?", ("EF",)),  # F is in EF, but not named
        (PEN, "Fは在庫ありますか", ("F",)),
        (BEANS, "예가체프 200g 재고 있나요?", ("200g",)),
        (BEANS, "1200g 있어요?", ()),
        (BEANS, "케냐 500그람 있어요?", ("500g",)),
        (BEANS, "1키로 있어요? 1 kg", ("1kg",)),
        (BEANS, "500グラムはありますか", ("500g",)),
        (MUG, "머그 차콜색 있나요?", ("차콜",)),
        (MUG, "do you have it in charcoal?", ("차콜",)),
        (MUG, "세이지 그린 있어요?", ("세이지그린",)),
        (TEE, "it's small, do you have L?", ("L",)),
        (TEE, "Mサイズ", ("M",)),
        (TEE, "a tee please", ()),
    ],
)
def test_the_options_a_question_names(product: ShopProduct, text: str, options: tuple[str, ...]) -> None:
    assert mentioned_options(product, text) == options


def test_options_with_their_stock_are_read_and_written_back() -> None:
    assert split_options("200g:14|500g:0|1kg:2") == (("200g", "500g", "1kg"), (14, 0, 2))
    assert split_options("S|M|L") == (("S", "M", "L"), None)
    assert split_options("Size: M") == (("Size: M",), None), "a colon without a count is a name"
    assert join_options(("200g", "500g"), (14, 0)) == "200g:14|500g:0"


def test_order_shapes_are_learned_and_a_code_is_read_whole() -> None:
    codes = OrderCodes.learn(["MC20261130-0003", "MC20261201-0009", "KT-261130-063"])
    assert codes.find("mc20261130-0003 배송 조회") == ["mc20261130-0003"]
    assert codes.find("mc202611300008") == ["mc202611300008"]
    assert codes.find("261130-063은요") == ["261130-063"]
    assert codes.find("수량 12개, 3000원") == []
    assert codes.example() == "MC12345678-9012", "made up in the shop's shape, not a real number"
    assert OrderCodes.learn([]).example() is None


@pytest.mark.parametrize(
    ("stored", "typed", "same"),
    [
        ("MC20261130-0003", "mc202611300003", True),
        ("MC20261130-0003", "20261130-0003", True),  # the shop's prefix left out
        ("MC20261130-0003", "1130-0003", False),  # too short to be sure
        ("MC20261130-0003", "XMC20261130-0003", False),
        ("KT-261130-063", "261130063", True),
        ("20240115-001234", "#202401150012 34", True),
    ],
)
def test_one_order_however_it_is_typed(stored: str, typed: str, same: bool) -> None:
    assert same_order(stored, typed) is same


@pytest.mark.parametrize(
    ("carrier", "page"),
    [
        ("CJ대한통운", "https://trace.cjlogistics.com/next/tracking.html?wblNo=600122334455"),
        ("CJ Logistics", "https://trace.cjlogistics.com/next/tracking.html?wblNo=600122334455"),
        ("한진택배", "https://www.hanjin.com/"),
        ("ヤマト運輸", "https://toi.kuronekoyamato.co.jp/"),
        ("日本郵便", "https://trackings.post.japanpost.jp/"),
        ("DHL Express", "https://www.dhl.com/"),
        ("Upstate Couriers", None),
        ("EMS", None),
    ],
)
def test_known_carriers_have_their_tracking_page(carrier: str, page: str | None) -> None:
    url = tracking_url(carrier, "6001-2233-4455")
    assert (url is None) if page is None else (url is not None and url.startswith(page)), url


def test_a_shops_own_tracking_pattern_wins() -> None:
    own = {"EMS": "https://service.epost.go.kr/ems?no={number}"}
    assert tracking_url("ems", "EG4829 103 75KR", own) == "https://service.epost.go.kr/ems?no=EG482910375KR"


def test_times_are_shown_where_the_shop_is() -> None:
    seoul, tokyo = ZoneInfo("Asia/Seoul"), ZoneInfo("Asia/Tokyo")
    event = datetime(2026, 11, 30, 21, 40, tzinfo=UTC)  # 06:40 the next morning in Seoul
    assert local_minute(event, seoul) == "2026-12-01 06:40 KST"
    assert local_minute(event.replace(tzinfo=None), tokyo) == "2026-12-01 06:40 JST", "naive is UTC"
    assert local_day(datetime(2026, 11, 26, 22, 0, tzinfo=UTC), seoul) == "2026-11-27"
