"""ONE answer-service test suite, run over both shop-data sources: csbot's own tables (fed
by `csbot import`) and the HTTP connector against a server implementing docs/shop-api.yaml.

Then the connector alone: outages, slow answers, transient failures, the circuit
breaker, the cache and a wrong token, each ending in an honest "can't look that up".
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from aiogram.methods import SendMessage
from pydantic import SecretStr

from bot.app import App, build_app
from db.engine import create_engine, create_session_factory
from db.models import Order, ReturnRequest
from handlers.keyboards import HandoffOffer
from services.settings import Settings
from services.shop.files.customers import read_customers
from services.shop.files.orders import read_orders
from services.shop.files.products import read_products
from services.shop.sources import factory
from services.shop.sync.customers import import_customers
from services.shop.sync.orders import import_orders
from services.shop.sync.products import import_products
from services.text.sentences import Language, t
from tests.harness import Harness, buttons, texts_to
from tests.shop_api_server import EXAMPLES, TOKEN, ShopApiDouble

PARK = 810_000_001  # Telegram user of customer C-1001 (010-2345-6789)
CLARK = 810_000_002  # Telegram user of customer C-1002 (+82 10 8765 4321)
STRANGER = 810_000_003
PARK_ORDER, CLARK_ORDER = "20261120-0000101", "20261128-0000102"


@dataclass
class Shop:
    harness: Harness
    api: ShopApiDouble | None


async def import_examples(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        async with create_session_factory(engine)() as session:
            await import_products(session, read_products(EXAMPLES / "products.csv")[0])
            await import_customers(session, read_customers(EXAMPLES / "customers.csv")[0], "customers.csv")
            await import_orders(
                session, read_orders(EXAMPLES / "orders.jsonl", Settings().shop_policy().timezone), "o"
            )
            await session.commit()
    finally:
        await engine.dispose()


def api_settings(settings: Settings, api: ShopApiDouble, **overrides: object) -> Settings:
    return settings.model_copy(
        update={
            "shop_api_url": api.url,
            "shop_api_token": SecretStr(TOKEN),
            "shop_api_timeout": 0.3,
            "shop_api_breaker_seconds": 0.5,
            **overrides,
        }
    )


@pytest.fixture(autouse=True)
def fresh_connectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """The connector registry lives as long as the process: a test's shop system may get an earlier
    test's port, and with the same URL that test's connector and its cached answers ("BAG-30L" came
    from the cache while this test's system was down: a flaky failure in a full run)."""
    monkeypatch.setattr(factory, "_connectors", {})


@pytest.fixture(params=["tables", "http"])
async def shop(request: pytest.FixtureRequest, settings: Settings, database_url: str) -> AsyncIterator[Shop]:
    api: ShopApiDouble | None = None
    if request.param == "tables":
        await import_examples(database_url)
    else:
        api = await ShopApiDouble.from_examples().start()
        settings = api_settings(settings, api)
    app: App = await build_app(settings, upgrade=False, seed=False)
    try:
        yield Shop(Harness(app), api)
    finally:
        await app.close()
        if api is not None:
            await api.close()


async def link(harness: Harness, user_id: int, phone: str) -> list[str]:
    calls = await harness.feed(harness.updates.contact(user_id, phone, contact_user_id=user_id))
    return texts_to(calls, user_id)


# --- the shared suite: the same answers whichever source holds the data ----------------


async def test_stock_by_partial_name_in_any_language_and_by_sku(shop: Shop) -> None:
    h = shop.harness
    [ko] = await h.say(STRANGER, "트레일 데이팩 재고 있나요?")
    assert ko.startswith("트레일 데이팩 30L (BAG-30L): 3개 남았어요")
    assert ko.endswith("가격 ₩79,000. 옵션: black, olive, navy.")
    [en] = await h.say(STRANGER, "Do you have the titanium mug in stock?", language_code="en")
    assert en.startswith("Titanium Mug 450ml (MUG-TI-450): in stock (40")
    [sku] = await h.say(STRANGER, "lmp-head in stock?")
    assert sku.startswith("Headlamp 400, rechargeable (LMP-HEAD)") and "24.90 USD" in sku
    [restock] = await h.say(STRANGER, "포켓 가스 스토브 재입고 언제예요?")
    assert "2027-02-15" in restock


async def test_linking_by_phone_then_own_orders_with_shipment(shop: Shop) -> None:
    h = shop.harness
    assert await link(h, PARK, "+82 10 2345 6789") == [t("contact_linked", Language.KO, name="박서준")]
    [reply] = await h.say(PARK, "내 주문 어디쯤 왔어요?")
    assert PARK_ORDER in reply and "20261129-0000103" in reply and CLARK_ORDER not in reply
    [reply] = await h.say(PARK, f"주문번호 {PARK_ORDER} 배송 조회")
    assert "6001-2233-4455" in reply and "CJ Logistics" in reply and "Seoul Mapo-gu" in reply
    [reply] = await h.say(PARK, f"where is order {PARK_ORDER}?", language_code="en")
    assert "6001-2233-4455" in reply and "in transit" not in reply.split("\n")[0]


async def test_someone_elses_order_reads_exactly_like_a_missing_one(shop: Shop) -> None:
    h = shop.harness
    await link(h, PARK, "010-2345-6789")
    [foreign] = await h.say(PARK, f"주문번호 {CLARK_ORDER} 배송 조회")
    [missing] = await h.say(PARK, "주문번호 20261128-0000999 배송 조회")
    assert foreign == missing.replace("20261128-0000999", CLARK_ORDER)
    assert "4100-9988-7766" not in foreign
    [reply] = await h.say(STRANGER, f"where is order {CLARK_ORDER}?", language_code="en")
    assert reply == t("need_contact", Language.EN)


async def test_a_return_is_filed_once_against_the_customers_own_order(shop: Shop) -> None:
    """Live orders are mirrored into csbot's tables first: a return request points at rows."""
    h = shop.harness
    await link(h, CLARK, "+82 10 8765 4321")
    calls = await h.feed(h.updates.text(CLARK, "반품하고 싶어요"))
    orders = buttons([c for c in calls if isinstance(c, SendMessage)][-1])
    assert [label.split()[0] for label, _ in orders[:-1]] == [CLARK_ORDER]
    calls = await h.feed(h.updates.callback(CLARK, orders[0][1]))
    items = buttons([c for c in calls if isinstance(c, SendMessage)][-1])
    assert items[0][0] == "Trail Daypack 30L olive"
    calls = await h.feed(h.updates.callback(CLARK, items[0][1]))
    reasons = buttons([c for c in calls if isinstance(c, SendMessage)][-1])
    calls = await h.feed(h.updates.callback(CLARK, reasons[0][1]))
    kinds = buttons([c for c in calls if isinstance(c, SendMessage)][-1])
    calls = await h.feed(h.updates.callback(CLARK, kinds[0][1]))
    confirm = buttons([c for c in calls if isinstance(c, SendMessage)][-1])[0][1]
    await h.feed(h.updates.callback(CLARK, confirm))
    [request] = await h.rows(ReturnRequest)
    [order] = [o for o in await h.rows(Order) if o.id == request.order_id]
    assert order.number == CLARK_ORDER


async def test_cancellation_follows_the_orders_live_status(shop: Shop) -> None:
    h = shop.harness
    await link(h, PARK, "010-2345-6789")
    [paid] = await h.say(PARK, "주문 20261129-0000103 취소하고 싶어요")
    assert paid == t(
        "cancel_possible", Language.KO, number="20261129-0000103", status=t("status_paid", Language.KO)
    )
    [delivered] = await h.say(PARK, f"주문 {PARK_ORDER} 취소할 수 있어요?")
    assert delivered == t(
        "cancel_not_possible", Language.KO, number=PARK_ORDER, status=t("status_delivered", Language.KO)
    )
    [foreign] = await h.say(PARK, f"주문 {CLARK_ORDER} 취소해 주세요")
    assert foreign == h.said("order_not_found", Language.KO, reference=CLARK_ORDER)


async def test_a_number_nobody_has_links_nothing(shop: Shop) -> None:
    assert await link(shop.harness, STRANGER, "+82 10 0000 1111") == [t("contact_not_found", Language.KO)]


# --- the connector alone: failures of the shop's system ---------------------------------


@pytest.fixture
async def api(settings: Settings) -> AsyncIterator[tuple[ShopApiDouble, Settings]]:
    double = await ShopApiDouble.from_examples().start()
    yield double, api_settings(settings, double)
    await double.close()


async def api_harness(settings: Settings) -> Harness:
    return Harness(await build_app(settings, upgrade=False, seed=False))


def assert_unavailable(calls: list, user_id: int, language: Language = Language.KO) -> None:
    [message] = [c for c in calls if isinstance(c, SendMessage) and c.chat_id == user_id]
    assert message.text == t("shop_unavailable", language)
    assert buttons(message) == [("🙋 " + t("human_button", language), HandoffOffer(language=language).pack())]


async def test_outage_is_said_honestly_never_as_not_found(api: tuple[ShopApiDouble, Settings]) -> None:
    double, settings = api
    h = await api_harness(settings)
    try:
        await link(h, PARK, "010-2345-6789")
        double.down = True
        assert_unavailable(await h.feed(h.updates.text(PARK, f"주문번호 {PARK_ORDER} 배송 조회")), PARK)
        assert_unavailable(await h.feed(h.updates.text(PARK, "MUG-TI-450 재고 있어요?")), PARK)
        assert await link(h, CLARK, "+82 10 8765 4321") == [t("shop_unavailable", Language.KO)]
    finally:
        await h.app.close()


async def test_slow_answers_time_out_into_the_same_honest_reply(api: tuple[ShopApiDouble, Settings]) -> None:
    double, settings = api
    h = await api_harness(settings)
    try:
        await link(h, PARK, "010-2345-6789")
        double.delay = 1.0  # each attempt waits 0.3 s
        assert_unavailable(await h.feed(h.updates.text(PARK, "내 주문 어디쯤 왔어요?")), PARK)
    finally:
        await h.app.close()


async def test_transient_failures_are_retried_with_backoff(api: tuple[ShopApiDouble, Settings]) -> None:
    double, settings = api
    h = await api_harness(settings)
    try:
        await link(h, PARK, "010-2345-6789")
        double.fail_next = 2  # two 502s, then the answer
        [reply] = await h.say(PARK, f"주문번호 {PARK_ORDER} 배송 조회")
        assert "6001-2233-4455" in reply
    finally:
        await h.app.close()


async def test_the_breaker_stops_calling_a_failing_system_then_recovers(
    api: tuple[ShopApiDouble, Settings],
) -> None:
    double, settings = api
    h = await api_harness(settings)
    try:
        double.down = True
        for sku in ("TNT-2P-GRN", "BAG-30L", "STV-MINI", "MUG-TI-450", "LMP-HEAD"):
            assert_unavailable(await h.feed(h.updates.text(STRANGER, f"{sku} 재고?")), STRANGER)
        calls_when_opened = len(double.requests)
        assert_unavailable(await h.feed(h.updates.text(STRANGER, "TNT-2P-GRN 재고 있어요?")), STRANGER)
        assert len(double.requests) == calls_when_opened, "an open breaker must not call the shop"
        double.down = False
        await asyncio.sleep(0.6)  # the breaker's cooldown: one trial call goes through
        [reply] = await h.say(STRANGER, "TNT-2P-GRN 재고?")
        assert reply.startswith("릿지 2인용 텐트 (TNT-2P-GRN)")
    finally:
        await h.app.close()


async def test_a_repeated_question_is_answered_from_the_short_cache(
    api: tuple[ShopApiDouble, Settings],
) -> None:
    double, settings = api
    h = await api_harness(settings)
    try:
        await h.say(STRANGER, "BAG-30L 재고?")
        await h.say(STRANGER, "BAG-30L 재고 있어요?")
        assert len([r for r in double.requests if r.startswith("/products?sku=")]) == 1
    finally:
        await h.app.close()


async def test_a_wrong_token_is_unavailable_not_empty(api: tuple[ShopApiDouble, Settings]) -> None:
    _, settings = api
    h = await api_harness(settings.model_copy(update={"shop_api_token": SecretStr("wrong")}))
    try:
        assert_unavailable(await h.feed(h.updates.text(STRANGER, "BAG-30L 재고?")), STRANGER)
    finally:
        await h.app.close()


async def test_an_order_beyond_the_listed_ones_is_read_by_number_and_still_owned(
    api: tuple[ShopApiDouble, Settings],
) -> None:
    double, settings = api
    double.list_cap = 1  # lists hold only the newest order: PARK's 0101 is not in them
    h = await api_harness(settings)
    try:
        await link(h, PARK, "010-2345-6789")
        [reply] = await h.say(PARK, f"주문번호 {PARK_ORDER} 배송 조회")
        assert "6001-2233-4455" in reply
        assert any(r.startswith(f"/customers/C-1001/orders/{PARK_ORDER}") for r in double.requests)
        [foreign] = await h.say(PARK, f"주문번호 {CLARK_ORDER} 배송 조회")
        assert foreign == h.said("order_not_found", Language.KO, reference=CLARK_ORDER)
    finally:
        await h.app.close()


def test_the_contract_server_serves_every_path_of_the_openapi_file() -> None:
    spec = yaml.safe_load(
        (Path(__file__).parent.parent / "docs" / "shop-api.yaml").read_text(encoding="utf-8")
    )
    served = {
        "/customers",
        "/customers/{customer_id}/orders",
        "/customers/{customer_id}/orders/{order_number}",
        "/products",
    }
    assert set(spec["paths"]) == served
    assert all(set(methods) == {"get"} for methods in spec["paths"].values())
