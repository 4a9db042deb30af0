"""Bulk statements of the shop file imports and exports, on Core tables.

One executemany per batch instead of an ORM object per row. They run on the session's
connection, inside the import's transaction: the caller commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Row, Table, bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from db.models import Customer, Order, OrderItem, Product, ReturnRequest, Shipment, ShipmentEvent
from db.tables import table_of

CUSTOMERS = table_of(Customer)
PRODUCTS = table_of(Product)
ORDERS = table_of(Order)
ITEMS = table_of(OrderItem)
SHIPMENTS = table_of(Shipment)
EVENTS = table_of(ShipmentEvent)
RETURNS = table_of(ReturnRequest)

AnyRow = Row[*tuple[Any, ...]]
"""A row of a table, or of some of its columns, by column name."""
Values = Mapping[str, Any]
"""One row's column values, by column name."""
Change = tuple[int, Values]
"""A row's id and its columns' new values."""


async def _update_by_id(
    connection: AsyncConnection, table: Table, columns: Sequence[str], changes: Sequence[Change]
) -> None:
    statement = (
        update(table)
        .where(table.c.id == bindparam("row_id"))
        .values({name: bindparam(f"new_{name}") for name in columns})
    )
    await connection.execute(
        statement,
        [
            {"row_id": row_id, **{f"new_{name}": values[name] for name in columns}}
            for row_id, values in changes
        ],
    )


# Customers -----------------------------------------------------------------------------------


async def customer_rows(connection: AsyncConnection, *, by_id: bool = False) -> Sequence[AnyRow]:
    """Every customer row, in id order when `by_id` asks for it."""
    statement = select(CUSTOMERS)
    if by_id:
        statement = statement.order_by(CUSTOMERS.c.id)
    return (await connection.execute(statement)).all()


async def park_customer_phones(connection: AsyncConnection, *, row_ids: Sequence[int]) -> None:
    """Gives each of these customers a placeholder phone (`moving:<id>`), unique to the row."""
    await connection.execute(
        update(CUSTOMERS).where(CUSTOMERS.c.id == bindparam("row_id")).values(phone=bindparam("parking")),
        [{"row_id": row_id, "parking": f"moving:{row_id}"} for row_id in row_ids],
    )


async def update_customers(
    connection: AsyncConnection, *, columns: Sequence[str], changes: Sequence[Change]
) -> None:
    """Sets `columns` of each changed customer to its new values, in one executemany."""
    await _update_by_id(connection, CUSTOMERS, columns, changes)


async def insert_customers(connection: AsyncConnection, *, rows: Sequence[Values]) -> None:
    """Adds these customers, in one executemany."""
    await connection.execute(insert(CUSTOMERS), list(rows))


# Products ------------------------------------------------------------------------------------


async def product_rows(connection: AsyncConnection, *, by_sku: bool = False) -> Sequence[AnyRow]:
    """Every product row, in SKU order when `by_sku` asks for it."""
    statement = select(PRODUCTS)
    if by_sku:
        statement = statement.order_by(PRODUCTS.c.sku)
    return (await connection.execute(statement)).all()


async def insert_products(connection: AsyncConnection, *, rows: Sequence[Values]) -> None:
    """Adds these products, in one executemany."""
    await connection.execute(insert(PRODUCTS), list(rows))


async def update_products(
    connection: AsyncConnection, *, columns: Sequence[str], changes: Sequence[Change]
) -> None:
    """Sets `columns` of each changed product to its new values, in one executemany."""
    await _update_by_id(connection, PRODUCTS, columns, changes)


# Orders: what they refer to, and the stored orders ---------------------------------------------


async def customer_keys(connection: AsyncConnection) -> Sequence[AnyRow]:
    """(id, external_id) of every customer, unordered."""
    return (await connection.execute(select(CUSTOMERS.c.id, CUSTOMERS.c.external_id))).all()


async def product_prices(connection: AsyncConnection) -> Sequence[AnyRow]:
    """(id, sku, price) of every product, unordered."""
    return (await connection.execute(select(PRODUCTS.c.id, PRODUCTS.c.sku, PRODUCTS.c.price))).all()


async def order_ids_by_number(connection: AsyncConnection) -> dict[str, int]:
    """Every order's id, by its number."""
    rows = (await connection.execute(select(ORDERS.c.id, ORDERS.c.number))).all()
    return {row.number: row.id for row in rows}


async def order_ids_in_placed_order(connection: AsyncConnection) -> list[int]:
    """Every order's id, oldest placed first (then by number)."""
    rows = (await connection.execute(select(ORDERS.c.id).order_by(ORDERS.c.placed_at, ORDERS.c.number))).all()
    return [row.id for row in rows]


async def order_rows(connection: AsyncConnection) -> Sequence[AnyRow]:
    """Every order row, unordered."""
    return (await connection.execute(select(ORDERS))).all()


async def item_rows(connection: AsyncConnection) -> Sequence[AnyRow]:
    """Every order item row, in id order (an order's items in their order)."""
    return (await connection.execute(select(ITEMS).order_by(ITEMS.c.id))).all()


async def shipment_rows(connection: AsyncConnection) -> Sequence[AnyRow]:
    """Every shipment row, unordered."""
    return (await connection.execute(select(SHIPMENTS))).all()


async def event_rows(connection: AsyncConnection) -> Sequence[AnyRow]:
    """Every shipment event row, by time (then id)."""
    return (await connection.execute(select(EVENTS).order_by(EVENTS.c.at, EVENTS.c.id))).all()


async def shipment_ids_by_order(connection: AsyncConnection) -> dict[int, int]:
    """Every shipment's id, by its order's id."""
    rows = (await connection.execute(select(SHIPMENTS.c.id, SHIPMENTS.c.order_id))).all()
    return {row.order_id: row.id for row in rows}


async def item_positions(connection: AsyncConnection, *, order_ids: Sequence[int]) -> Sequence[AnyRow]:
    """(id, order_id) of these orders' items, in id order."""
    statement = select(ITEMS.c.id, ITEMS.c.order_id).where(ITEMS.c.order_id.in_(list(order_ids)))
    return (await connection.execute(statement.order_by(ITEMS.c.id))).all()


async def returns_on_items(connection: AsyncConnection, *, item_ids: Sequence[int]) -> Sequence[AnyRow]:
    """(order_item_id, rma_number) of the return requests on these items, unordered."""
    statement = select(RETURNS.c.order_item_id, RETURNS.c.rma_number).where(
        RETURNS.c.order_item_id.in_(list(item_ids))
    )
    return (await connection.execute(statement)).all()


async def item_ids_of(connection: AsyncConnection, *, order_id: int) -> list[int]:
    """The ids of one order's items, in id order."""
    statement = select(ITEMS.c.id).where(ITEMS.c.order_id == order_id).order_by(ITEMS.c.id)
    return [row.id for row in (await connection.execute(statement)).all()]


async def shipment_id_of(connection: AsyncConnection, *, order_id: int) -> int | None:
    """The id of one order's shipment, if it has one."""
    statement = select(SHIPMENTS.c.id).where(SHIPMENTS.c.order_id == order_id)
    shipment_id: int | None = (await connection.execute(statement)).scalar_one_or_none()
    return shipment_id


# Orders: writes ------------------------------------------------------------------------------


async def insert_orders(connection: AsyncConnection, *, rows: Sequence[Values]) -> None:
    """Adds these orders, in one executemany."""
    await connection.execute(insert(ORDERS), list(rows))


async def update_order(connection: AsyncConnection, *, order_id: int, values: Values) -> None:
    """Sets one order's columns to `values`."""
    await connection.execute(update(ORDERS).where(ORDERS.c.id == order_id).values(values))


async def insert_items(connection: AsyncConnection, *, rows: Sequence[Values]) -> None:
    """Adds these order items, in one executemany."""
    await connection.execute(insert(ITEMS), list(rows))


async def insert_item(connection: AsyncConnection, *, values: Values) -> None:
    """Adds one order item."""
    await connection.execute(insert(ITEMS).values(values))


async def update_item(connection: AsyncConnection, *, item_id: int, values: Values) -> None:
    """Sets one order item's columns to `values`."""
    await connection.execute(update(ITEMS).where(ITEMS.c.id == item_id).values(values))


async def delete_items(connection: AsyncConnection, *, item_ids: Sequence[int]) -> None:
    """Removes these order items."""
    await connection.execute(delete(ITEMS).where(ITEMS.c.id.in_(list(item_ids))))


async def insert_shipments(connection: AsyncConnection, *, rows: Sequence[Values]) -> None:
    """Adds these shipments, in one executemany."""
    await connection.execute(insert(SHIPMENTS), list(rows))


async def insert_shipment(connection: AsyncConnection, *, values: Values) -> int:
    """Adds one shipment and returns its id."""
    statement = insert(SHIPMENTS).values(values).returning(SHIPMENTS.c.id)
    shipment_id: int = (await connection.execute(statement)).scalar_one()
    return shipment_id


async def update_shipment(connection: AsyncConnection, *, shipment_id: int, values: Values) -> None:
    """Sets one shipment's columns to `values`."""
    await connection.execute(update(SHIPMENTS).where(SHIPMENTS.c.id == shipment_id).values(values))


async def delete_shipment(connection: AsyncConnection, *, shipment_id: int) -> None:
    """Removes one shipment."""
    await connection.execute(delete(SHIPMENTS).where(SHIPMENTS.c.id == shipment_id))


async def insert_events(connection: AsyncConnection, *, rows: Sequence[Values]) -> None:
    """Adds these shipment events, in one executemany."""
    await connection.execute(insert(EVENTS), list(rows))


async def delete_events_of(connection: AsyncConnection, *, shipment_id: int) -> None:
    """Removes every event of one shipment."""
    await connection.execute(delete(EVENTS).where(EVENTS.c.shipment_id == shipment_id))
