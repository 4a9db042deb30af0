"""Order queries always take the customer: an order is found only by its owner."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Order, OrderItem, OrderStatus, Product, Shipment, ShipmentEvent


@dataclass(frozen=True)
class OrderLine:
    item: OrderItem
    product: Product


async def recent_numbers(session: AsyncSession, limit: int = 2000) -> list[str]:
    """The newest orders' numbers: what the shop's numbering looks like (services.orders.codes)."""
    statement = select(Order.number).order_by(col(Order.id).desc()).limit(limit)
    return list((await session.exec(statement)).all())


async def owned_orders_ending(session: AsyncSession, customer_id: int, tail: str) -> Sequence[Order]:
    """The customer's orders whose number, without separators, ends with `tail` (letters and
    digits only, upper case): the candidates services.shop.sources.base.same_order decides on."""
    if not tail.isalnum():
        return []
    number = func.upper(Order.number)
    for separator in ("-", " ", "_", "/", "."):
        number = func.replace(number, separator, "")
    statement = select(Order).where(Order.customer_id == customer_id, number.like(f"%{tail}"))
    return (await session.exec(statement)).all()


async def recent_orders(
    session: AsyncSession,
    customer_id: int,
    *,
    limit: int = 5,
    statuses: Sequence[OrderStatus] | None = None,
) -> Sequence[Order]:
    statement = select(Order).where(Order.customer_id == customer_id)
    if statuses is not None:
        statement = statement.where(col(Order.status).in_(list(statuses)))
    statement = statement.order_by(col(Order.placed_at).desc()).limit(limit)
    return (await session.exec(statement)).all()


async def recent_order_numbers(session: AsyncSession, *, customer_id: int | None, limit: int) -> list[str]:
    """The numbers of the customer's newest `limit` orders, newest first."""
    statement = (
        select(Order.number)
        .where(Order.customer_id == customer_id)
        .order_by(col(Order.placed_at).desc())
        .limit(limit)
    )
    return list((await session.exec(statement)).all())


async def order_lines(session: AsyncSession, order_id: int) -> list[OrderLine]:
    statement = (
        select(OrderItem, Product)
        .join(Product, col(Product.id) == OrderItem.product_id)
        .where(OrderItem.order_id == order_id)
        .order_by(col(OrderItem.id))
    )
    return [OrderLine(item, product) for item, product in await session.exec(statement)]


async def shipment_with_events(
    session: AsyncSession, order_id: int
) -> tuple[Shipment | None, Sequence[ShipmentEvent]]:
    shipment = (await session.exec(select(Shipment).where(Shipment.order_id == order_id))).first()
    if shipment is None:
        return None, ()
    events = await session.exec(
        select(ShipmentEvent).where(ShipmentEvent.shipment_id == shipment.id).order_by(col(ShipmentEvent.at))
    )
    return shipment, events.all()
