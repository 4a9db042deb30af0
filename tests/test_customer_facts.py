"""What the model is told besides the FAQ: today's date in the shop's zone, and the orders of the
customer it talks to, as the carrier reported them; never another customer's."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from sqlmodel import select

from bot.app import App
from db.models import Customer
from services.faq.replies import customer_facts, order_fact, today_fact
from services.shop.sources.base import ShopEvent, ShopOrder, ShopOrderLine, ShopShipment
from tests.harness import DEMO_USER_ID

SEOUL = ZoneInfo("Asia/Seoul")
LATE = datetime(2026, 12, 1, 16, 30, tzinfo=UTC)
"""01:30 on Wednesday 2 December in Seoul, still Tuesday in UTC."""


def test_today_is_the_shops_calendar_day() -> None:
    assert today_fact(LATE, SEOUL) == "Today: 2026-12-02 (Wednesday)"
    assert today_fact(LATE, UTC) == "Today: 2026-12-01 (Tuesday)"
    assert today_fact(LATE.replace(tzinfo=None), SEOUL) == "Today: 2026-12-02 (Wednesday)", "naive is UTC"


def _order(shipment: ShopShipment | None, status: str = "shipped") -> ShopOrder:
    return ShopOrder(
        number="20261128-000451",
        customer_id="c-1",
        status=status,
        placed_at=datetime(2026, 11, 27, 15, 40, tzinfo=UTC),  # the 28th in Seoul
        items=(ShopOrderLine("POT-24", "cast-iron pot 24 cm", 1), ShopOrderLine("MUG", "mug", 2, "white")),
        shipment=shipment,
        total=107_000,
    )


def test_an_order_is_told_with_its_goods_and_what_the_carrier_reported() -> None:
    picked_up = ShopEvent(datetime(2026, 11, 29, 7, 5, tzinfo=UTC), "picked up", "Icheon hub")
    delivered = ShopEvent(datetime(2026, 11, 30, 4, 20, tzinfo=UTC), "배송완료")
    done = ShopShipment(
        "CJ대한통운", "6012-3456-7890", "delivered", date(2026, 12, 1), (delivered, picked_up)
    )
    assert order_fact(_order(done, "delivered"), SEOUL) == (
        "Order 20261128-000451: delivered, placed 2026-11-28, total ₩107,000, cast-iron pot 24 cm x1, "
        "mug (white) x2, shipped 2026-11-29, delivered 2026-11-30, tracking 6012-3456-7890 (CJ대한통운)"
    )
    on_its_way = ShopShipment("Hanjin", "4120-7763-0021", "in_transit", date(2026, 12, 3), (picked_up,))
    assert order_fact(_order(on_its_way), SEOUL).endswith(
        "shipped 2026-11-29, expected 2026-12-03, tracking 4120-7763-0021 (Hanjin)"
    )
    assert order_fact(_order(None, "paid"), SEOUL) == (
        "Order 20261128-000451: paid, placed 2026-11-28, total ₩107,000, cast-iron pot 24 cm x1, "
        "mug (white) x2"
    )


async def test_the_model_is_told_today_and_the_customers_own_orders_only(app: App) -> None:
    async with app.session_factory() as session:
        demo = (await session.exec(select(Customer).where(Customer.telegram_user_id == DEMO_USER_ID))).one()
        facts = await customer_facts(session, demo, zone=SEOUL, as_of=LATE)
        nobody = await customer_facts(session, None, zone=SEOUL, as_of=LATE)
        before = await customer_facts(session, demo, zone=SEOUL, as_of=datetime(2024, 1, 16, tzinfo=UTC))
    today, customer, *orders = facts.splitlines()
    assert today == "Today: 2026-12-02 (Wednesday)" and customer.startswith("Customer: ")
    shipped = next(line for line in orders if line.startswith("Order 20240115-001234: shipped"))
    assert "tracking 6523-1188-4410 (CJ대한통운 (CJ Logistics))" in shipped and ", expected " in shipped
    assert "delivered " not in shipped
    delivered = next(line for line in orders if line.startswith("Order 20231202-000458: delivered"))
    assert re.search(r", delivered \d{4}-\d\d-\d\d, tracking 4120-7763-0021 \(Hanjin\)$", delivered)
    assert "20240116-009999" not in facts and "2391-5500-7315" not in facts, "another customer's order"
    assert nobody == today
    assert "20240115-001234" in before and "20240120-000871" not in before, "placed after the moment asked"
