"""The shop's data from csbot's own tables (fed by `csbot import`)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer, Order, OrderStatus, Product
from db.repositories import catalogue, customers, orders
from services.shop.files.products import split_list, split_options
from services.shop.sources.base import (
    ShopCustomer,
    ShopEvent,
    ShopOrder,
    ShopOrderLine,
    ShopProduct,
    ShopShipment,
    compact_reference,
    same_order,
)


def customer_id_of(customer: Customer) -> str:
    """The id a customer goes by towards the shop: its own, else csbot's row number."""
    return customer.external_id if customer.external_id is not None else str(customer.id)


def product_record(product: Product) -> ShopProduct:
    options, option_stock = split_options(product.options)
    return ShopProduct(
        sku=product.sku,
        name=product.name,
        price=product.price,
        stock=product.stock,
        currency=product.currency,
        options=options,
        restock_date=product.restock_date,
        name_ko=product.name_ko,
        name_en=product.name_en,
        name_ja=product.name_ja,
        aliases=split_list(product.aliases),
        category=product.category,
        option_stock=option_stock,
    )


async def owned_order(session: AsyncSession, owner_id: int, reference: str) -> Order | None:
    """The customer's own order a reference names (services.shop.sources.base.same_order), or None."""
    candidates = await orders.owned_orders_ending(session, owner_id, compact_reference(reference))
    return next((order for order in candidates if same_order(order.number, reference)), None)


class LocalShopData:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def customer_by_phone(self, phone: str) -> ShopCustomer | None:
        row = await customers.by_phone(self._session, phone)
        if row is None:
            return None
        return ShopCustomer(customer_id_of(row), row.name, row.phone, row.email)

    async def orders_of(
        self, customer_id: str, *, limit: int = 5, statuses: Sequence[str] | None = None
    ) -> list[ShopOrder]:
        owner = await customers.by_key(self._session, customer_id)
        if owner is None or owner.id is None:
            return []
        wanted = None if statuses is None else [OrderStatus(s) for s in statuses]
        rows = await orders.recent_orders(self._session, owner.id, limit=limit, statuses=wanted)
        return [await self._order(row, customer_id) for row in rows]

    async def order_of(self, customer_id: str, reference: str) -> ShopOrder | None:
        owner = await customers.by_key(self._session, customer_id)
        if owner is None or owner.id is None:
            return None
        row = await owned_order(self._session, owner.id, reference)
        return None if row is None else await self._order(row, customer_id)

    async def products_by_sku(self, skus: Sequence[str]) -> list[ShopProduct]:
        return [product_record(p) for p in await catalogue.by_skus(self._session, skus)]

    async def catalogue(self) -> list[ShopProduct]:
        return [product_record(p) for p in await catalogue.all_products(self._session)]

    async def _order(self, order: Order, customer_id: str) -> ShopOrder:
        assert order.id is not None
        lines = await orders.order_lines(self._session, order.id)
        shipment, events = await orders.shipment_with_events(self._session, order.id)
        return ShopOrder(
            number=order.number,
            customer_id=customer_id,
            status=str(order.status),
            currency=order.currency,
            total=order.total,
            placed_at=order.placed_at,
            items=tuple(
                ShopOrderLine(
                    line.product.sku,
                    line.product.name,
                    line.item.quantity,
                    line.item.option,
                    line.item.unit_price,
                )
                for line in lines
            ),
            shipment=None
            if shipment is None
            else ShopShipment(
                carrier=shipment.carrier,
                tracking_number=shipment.tracking_number,
                status=shipment.status,
                eta=shipment.eta,
                events=tuple(ShopEvent(e.at, e.status, e.location) for e in events),
            ),
        )
