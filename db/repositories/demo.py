"""The demo shop's rows, found and removed: a shop's database serves the shop's data only.

The demo is recognised by what db/seed.py writes: its customers' ids (`DEMO-1`, `DEMO-2`), its
products (SKU and name both), and its FAQ entries where they are still the demo's own words (an
entry the shop rewrote is the shop's). Removing it takes the demo customers' orders, shipments,
events and return requests with them; conversations in the logs stay (they are the shop's record).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, delete, or_, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer, FaqEntry, Order, OrderItem, Product, ReturnRequest, Shipment, ShipmentEvent
from db.seed import DEMO_CUSTOMER_IDS, DEMO_PRODUCTS, FAQ


@dataclass(frozen=True)
class DemoRows:
    customers: int
    products: int
    orders: int
    faq_entries: int

    def __bool__(self) -> bool:
        return bool(self.customers or self.products or self.orders or self.faq_entries)

    def render(self) -> str:
        return (
            f"{self.products} products, {self.customers} customers, {self.orders} orders, "
            f"{self.faq_entries} FAQ rows"
        )


_DEMO_PRODUCTS = {(spec["sku"], spec["name"]) for spec in DEMO_PRODUCTS}
_DEMO_FAQ = {(slug, language, answer) for slug, language, _, answer, _, _ in FAQ}


async def _customer_ids(session: AsyncSession) -> list[int]:
    statement = select(Customer.id).where(col(Customer.external_id).in_(DEMO_CUSTOMER_IDS))
    return [row for row in (await session.exec(statement)).all() if row is not None]


async def _product_ids(session: AsyncSession) -> list[int]:
    skus = [sku for sku, _ in _DEMO_PRODUCTS]
    rows = (await session.exec(select(Product).where(col(Product.sku).in_(skus)))).all()
    return [row.id for row in rows if (row.sku, row.name) in _DEMO_PRODUCTS and row.id is not None]


async def _faq_ids(session: AsyncSession) -> list[int]:
    slugs = sorted({slug for slug, _, _ in _DEMO_FAQ})
    rows = (await session.exec(select(FaqEntry).where(col(FaqEntry.slug).in_(slugs)))).all()
    return [
        row.id for row in rows if (row.slug, row.language, row.answer) in _DEMO_FAQ and row.id is not None
    ]


async def _order_ids(session: AsyncSession, customer_ids: list[int], product_ids: list[int]) -> list[int]:
    """The demo customers' orders, and any order holding a demo product (it cannot outlive it)."""
    if not customer_ids and not product_ids:
        return []
    statement = (
        select(Order.id)
        .outerjoin(OrderItem, col(OrderItem.order_id) == col(Order.id))
        .where(or_(col(Order.customer_id).in_(customer_ids), col(OrderItem.product_id).in_(product_ids)))
        .distinct()
    )
    return [row for row in (await session.exec(statement)).all() if row is not None]


async def demo_rows(session: AsyncSession) -> DemoRows:
    customers, products = await _customer_ids(session), await _product_ids(session)
    return DemoRows(
        len(customers),
        len(products),
        len(await _order_ids(session, customers, products)),
        len(await _faq_ids(session)),
    )


async def remove_demo(session: AsyncSession) -> DemoRows:
    """Deletes the demo's rows (the caller commits); what was removed."""
    customers, products = await _customer_ids(session), await _product_ids(session)
    orders, faq_ids = await _order_ids(session, customers, products), await _faq_ids(session)
    if orders:
        shipments = select(Shipment.id).where(col(Shipment.order_id).in_(orders))
        await session.exec(delete(ShipmentEvent).where(col(ShipmentEvent.shipment_id).in_(shipments)))  # type: ignore[call-overload]
        await session.exec(delete(Shipment).where(col(Shipment.order_id).in_(orders)))  # type: ignore[call-overload]
        returns = col(ReturnRequest.order_id).in_(orders)
        await session.exec(  # type: ignore[call-overload]
            delete(ReturnRequest).where(returns, col(ReturnRequest.duplicate_of).is_not(None))
        )
        await session.exec(delete(ReturnRequest).where(returns))  # type: ignore[call-overload]
        await session.exec(delete(OrderItem).where(col(OrderItem.order_id).in_(orders)))  # type: ignore[call-overload]
        await session.exec(delete(Order).where(col(Order.id).in_(orders)))  # type: ignore[call-overload]
    if customers:
        await session.exec(delete(ReturnRequest).where(col(ReturnRequest.customer_id).in_(customers)))  # type: ignore[call-overload]
        await session.exec(delete(Customer).where(col(Customer.id).in_(customers)))  # type: ignore[call-overload]
    if products:
        await session.exec(delete(Product).where(col(Product.id).in_(products)))  # type: ignore[call-overload]
    if faq_ids:
        await session.exec(delete(FaqEntry).where(col(FaqEntry.id).in_(faq_ids)))  # type: ignore[call-overload]
    await session.flush()
    return DemoRows(len(customers), len(products), len(orders), len(faq_ids))
