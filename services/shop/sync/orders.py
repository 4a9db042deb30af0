"""Orders keyed by order number, with their items, shipment and shipment events.

An existing order is compared as a whole with the file's; a changed one has its row
updated, its items updated in place by position (return requests point at item rows, so
they are never deleted and re-created), and its shipment events replaced.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import shop_sync
from services.shop.files.orders import EventRecord, ItemRecord, OrderRecord, ShipmentRecord
from services.shop.files.problems import ProblemCollector
from services.shop.sync.customers import customer_key
from services.shop.sync.report import ImportReport


class _Shop:
    """Everything an order file refers to, read once."""

    def __init__(self, customers: list[Any], products: list[Any]) -> None:
        self.customer_ids = {customer_key(row.external_id, row.id): row.id for row in customers}
        self.customer_keys = {row.id: customer_key(row.external_id, row.id) for row in customers}
        self.products = {row.sku.upper(): row for row in products}
        self.skus = {row.id: row.sku for row in products}


async def _shop(connection: AsyncConnection) -> _Shop:
    customers = await shop_sync.customer_keys(connection)
    products = await shop_sync.product_prices(connection)
    return _Shop(list(customers), list(products))


def _resolve(record: OrderRecord, shop: _Shop, problems: ProblemCollector) -> OrderRecord | None:
    """Fill in catalogue prices and the total; None (with the problem noted) when a reference is unknown."""
    ok = True
    if record.customer_id not in shop.customer_ids:
        problems.add(
            record.line, "customer_id", f"no customer {record.customer_id!r} (import customers first)"
        )
        ok = False
    items = []
    for index, item in enumerate(record.items):
        product = shop.products.get(item.sku.upper())
        if product is None:
            problems.add(
                record.line, f"items[{index}].sku", f"no product {item.sku!r} (import products first)"
            )
            ok = False
            continue
        price = item.unit_price if item.unit_price is not None else product.price
        items.append(replace(item, sku=product.sku, unit_price=price))
    if not ok:
        return None
    total = record.total
    if total is None:
        total = sum((item.unit_price or 0) * item.quantity for item in items)
    return replace(record, items=tuple(items), total=total)


async def _stored(connection: AsyncConnection, shop: _Shop, order_ids: list[int]) -> dict[int, OrderRecord]:
    """The stored orders as records, to compare with the file's."""
    if not order_ids:
        return {}
    wanted = set(order_ids)
    orders = [r for r in await shop_sync.order_rows(connection) if r.id in wanted]
    items: dict[int, list[Any]] = defaultdict(list)
    for row in await shop_sync.item_rows(connection):
        if row.order_id in wanted:
            items[row.order_id].append(row)
    shipments = {
        row.order_id: row for row in await shop_sync.shipment_rows(connection) if row.order_id in wanted
    }
    shipment_ids = {row.id for row in shipments.values()}
    events: dict[int, list[Any]] = defaultdict(list)
    for row in await shop_sync.event_rows(connection):
        if row.shipment_id in shipment_ids:
            events[row.shipment_id].append(row)
    records = {}
    for order in orders:
        shipment_row = shipments.get(order.id)
        shipment = None
        if shipment_row is not None:
            shipment = ShipmentRecord(
                carrier=shipment_row.carrier,
                tracking_number=shipment_row.tracking_number,
                status=shipment_row.status,
                eta=shipment_row.eta,
                events=tuple(EventRecord(e.at, e.status, e.location) for e in events[shipment_row.id]),
            )
        records[order.id] = OrderRecord(
            order_number=order.number,
            customer_id=shop.customer_keys.get(order.customer_id, str(order.customer_id)),
            status=str(order.status.value if hasattr(order.status, "value") else order.status),
            placed_at=order.placed_at,
            items=tuple(
                ItemRecord(shop.skus.get(i.product_id, "?"), i.quantity, i.option, i.unit_price)
                for i in items[order.id]
            ),
            currency=order.currency,
            total=order.total,
            shipment=shipment,
        )
    return records


def _differences(old: OrderRecord, new: OrderRecord) -> list[str]:
    names = ("customer_id", "status", "placed_at", "currency", "total", "items", "shipment")
    return [name for name in names if getattr(old, name) != getattr(new, name)]


async def import_orders(
    session: AsyncSession, records: list[OrderRecord], path: str, problems: ProblemCollector | None = None
) -> ImportReport:
    connection = await session.connection()
    shop = await _shop(connection)
    problems = problems or ProblemCollector(path)
    resolved = [r for r in (_resolve(record, shop, problems) for record in records) if r is not None]
    problems.raise_if_any()
    existing = await shop_sync.order_ids_by_number(connection)
    stored = await _stored(
        connection, shop, [existing[r.order_number] for r in resolved if r.order_number in existing]
    )
    report = ImportReport("orders")
    new: list[OrderRecord] = []
    changed: list[tuple[int, OrderRecord, OrderRecord]] = []
    for record in resolved:
        order_id = existing.get(record.order_number)
        if order_id is None:
            new.append(record)
            report.add_new(record.order_number)
            continue
        if not record.shipment_given:
            record = replace(record, shipment=stored[order_id].shipment)
        differences = _differences(stored[order_id], record)
        if differences:
            changed.append((order_id, stored[order_id], record))
            report.add_changed(record.order_number, differences)
        else:
            report.unchanged += 1
    report.untouched = len(existing) - report.changed - report.unchanged
    await _check_item_removals(connection, changed, problems)
    problems.raise_if_any()
    if problems.count:
        return report  # a whole-file check: the caller reports everything and writes nothing
    await _insert_new(connection, shop, new)
    for order_id, old, record in changed:
        await _update(connection, shop, order_id, old, record)
    return report


def _order_values(record: OrderRecord, shop: _Shop) -> dict[str, Any]:
    return {
        "number": record.order_number,
        "customer_id": shop.customer_ids[record.customer_id],
        "status": record.status,
        "total": record.total,
        "currency": record.currency,
        "placed_at": record.placed_at,
    }


def _item_values(order_id: int, item: ItemRecord, shop: _Shop) -> dict[str, Any]:
    return {
        "order_id": order_id,
        "product_id": shop.products[item.sku.upper()].id,
        "quantity": item.quantity,
        "unit_price": item.unit_price,
        "option": item.option,
    }


def _shipment_values(order_id: int, shipment: ShipmentRecord) -> dict[str, Any]:
    return {
        "order_id": order_id,
        "carrier": shipment.carrier,
        "tracking_number": shipment.tracking_number,
        "status": shipment.status,
        "eta": shipment.eta,
    }


def _event_values(shipment_id: int, event: EventRecord) -> dict[str, Any]:
    return {"shipment_id": shipment_id, "at": event.at, "status": event.status, "location": event.location}


async def _insert_new(connection: AsyncConnection, shop: _Shop, new: list[OrderRecord]) -> None:
    """Plain executemany inserts, then one query for the new ids: INSERT ... RETURNING with
    parameter order kept runs row by row on SQLite, twenty times slower."""
    if not new:
        return
    await shop_sync.insert_orders(connection, rows=[_order_values(record, shop) for record in new])
    numbers = {record.order_number for record in new}
    ids = {
        number: order_id
        for number, order_id in (await shop_sync.order_ids_by_number(connection)).items()
        if number in numbers
    }
    await shop_sync.insert_items(
        connection, rows=[_item_values(ids[r.order_number], item, shop) for r in new for item in r.items]
    )
    shipped = [(ids[r.order_number], r.shipment) for r in new if r.shipment is not None]
    if not shipped:
        return
    await shop_sync.insert_shipments(
        connection, rows=[_shipment_values(order_id, shipment) for order_id, shipment in shipped]
    )
    new_ids = {order_id for order_id, _ in shipped}
    shipment_ids = {
        order_id: shipment_id
        for order_id, shipment_id in (await shop_sync.shipment_ids_by_order(connection)).items()
        if order_id in new_ids
    }
    events = [
        _event_values(shipment_ids[order_id], event)
        for order_id, shipment in shipped
        for event in shipment.events
    ]
    if events:
        await shop_sync.insert_events(connection, rows=events)


async def _check_item_removals(
    connection: AsyncConnection,
    changed: list[tuple[int, OrderRecord, OrderRecord]],
    problems: ProblemCollector,
) -> None:
    """An item with a return request on it cannot disappear from its order."""
    shrinking = {
        order_id: len(record.items) for order_id, old, record in changed if len(record.items) < len(old.items)
    }
    if not shrinking:
        return
    item_rows = await shop_sync.item_positions(connection, order_ids=list(shrinking))
    doomed: dict[int, int] = {}
    position: dict[int, int] = defaultdict(int)
    for row in item_rows:
        if position[row.order_id] >= shrinking[row.order_id]:
            doomed[row.id] = row.order_id
        position[row.order_id] += 1
    if not doomed:
        return
    returned = await shop_sync.returns_on_items(connection, item_ids=list(doomed))
    lines = {order_id: record for order_id, _, record in changed}
    for row in returned:
        record = lines[doomed[row.order_item_id]]
        problems.add(record.line, "items", f"would remove an item with return request {row.rma_number}")


async def _update(
    connection: AsyncConnection, shop: _Shop, order_id: int, old: OrderRecord, record: OrderRecord
) -> None:
    await shop_sync.update_order(connection, order_id=order_id, values=_order_values(record, shop))
    if old.items != record.items:
        item_ids = await shop_sync.item_ids_of(connection, order_id=order_id)
        for index, item in enumerate(record.items):
            values = _item_values(order_id, item, shop)
            if index < len(item_ids):
                await shop_sync.update_item(connection, item_id=item_ids[index], values=values)
            else:
                await shop_sync.insert_item(connection, values=values)
        extra = item_ids[len(record.items) :]
        if extra:
            await shop_sync.delete_items(connection, item_ids=extra)
    if old.shipment == record.shipment:
        return
    shipment_id = await shop_sync.shipment_id_of(connection, order_id=order_id)
    if shipment_id is not None:
        await shop_sync.delete_events_of(connection, shipment_id=shipment_id)
    if record.shipment is None:
        if shipment_id is not None:
            await shop_sync.delete_shipment(connection, shipment_id=shipment_id)
        return
    values = _shipment_values(order_id, record.shipment)
    if shipment_id is None:
        shipment_id = await shop_sync.insert_shipment(connection, values=values)
    else:
        await shop_sync.update_shipment(connection, shipment_id=shipment_id, values=values)
    if record.shipment.events:
        await shop_sync.insert_events(
            connection, rows=[_event_values(shipment_id, e) for e in record.shipment.events]
        )


async def export_orders(session: AsyncSession) -> list[OrderRecord]:
    connection = await session.connection()
    shop = await _shop(connection)
    ids = await shop_sync.order_ids_in_placed_order(connection)
    stored = await _stored(connection, shop, ids)
    return [stored[order_id] for order_id in ids]
