"""Copying a customer's returnable orders from the shop's API into csbot's tables.

A return request is csbot's own record and points at an order and an item row; when
orders are read live, the returns flow first mirrors the customer's returnable orders
(and their products) here, through the same upsert the importer uses.
"""

from __future__ import annotations

import logging

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer
from services.shop.files.orders import EventRecord, ItemRecord, OrderRecord, ShipmentRecord
from services.shop.files.problems import FileProblems
from services.shop.files.products import ProductRecord
from services.shop.policy import ShopPolicy
from services.shop.sources.base import ShopData, ShopOrder
from services.shop.sources.local import customer_id_of
from services.shop.sync.orders import import_orders
from services.shop.sync.products import import_products

logger = logging.getLogger(__name__)
MIRRORED_ORDERS = 8


def _record(order: ShopOrder) -> OrderRecord:
    shipment = order.shipment
    return OrderRecord(
        order_number=order.number,
        customer_id=order.customer_id,
        status=order.status,
        placed_at=order.placed_at,
        items=tuple(ItemRecord(i.sku, i.quantity, i.option, i.unit_price) for i in order.items),
        currency=order.currency,
        total=order.total,
        shipment=None
        if shipment is None
        else ShipmentRecord(
            shipment.carrier,
            shipment.tracking_number,
            shipment.status,
            shipment.eta,
            tuple(EventRecord(e.at, e.status, e.location) for e in shipment.events),
        ),
    )


async def mirror_returnable_orders(
    session: AsyncSession, shop: ShopData, customer: Customer, policy: ShopPolicy
) -> None:
    """Raises ShopDataUnavailable when the shop's system does not answer."""
    live = await shop.orders_of(
        customer_id_of(customer),
        limit=MIRRORED_ORDERS,
        statuses=[s.value for s in policy.returnable_statuses],
    )
    if not live:
        return
    products = await shop.products_by_sku(sorted({line.sku for order in live for line in order.items}))
    await import_products(
        session,
        [
            ProductRecord(
                p.sku,
                p.name,
                p.price,
                p.stock,
                p.currency,
                p.options,
                p.restock_date,
                p.name_ko,
                p.name_en,
                p.name_ja,
            )
            for p in products
        ],
    )
    known = {p.sku.upper() for p in products}
    records = [_record(o) for o in live if all(line.sku.upper() in known for line in o.items)]
    try:
        await import_orders(session, records, "shop API")
    except FileProblems as problems:
        await session.rollback()
        logger.warning("orders from the shop API not mirrored", extra={"problems": problems.render()})
        return
    await session.commit()
