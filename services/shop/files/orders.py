"""orders.jsonl: one order per line, with its items and, when it has shipped, its shipment.

    {"order_number": "20240115-001234", "customer_id": "C0001", "status": "shipped",
     "placed_at": "2024-01-15T18:12:00+09:00", "currency": "KRW", "total": 91000,
     "items": [{"sku": "SKU-7890", "quantity": 1, "option": "M / navy", "unit_price": 59000}],
     "shipment": {"carrier": "CJ Logistics", "tracking_number": "6523-1188-4410",
                  "status": "in_transit", "eta": "2024-01-17",
                  "events": [{"at": "2024-01-16T09:30:00+09:00", "status": "picked up",
                              "location": "Icheon hub"}]}}

`currency`, `total`, `unit_price`, `option`, `shipment`, `eta`, `events` and `location` are
optional; times without an offset are in the shop's time zone.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo
from decimal import Decimal
from pathlib import Path
from typing import Any

from db.models import OrderStatus
from services.shop.files.problems import ProblemCollector, read_text
from services.shop.money import currency_problem, decimals, format_price, parse_price, valid_currency

DEFAULT_CURRENCY = "KRW"
STATUSES = tuple(status.value for status in OrderStatus)


@dataclass(frozen=True)
class ItemRecord:
    sku: str
    quantity: int
    option: str = ""
    unit_price: int | None = None
    """minor units; None means the product's catalogue price at import"""


@dataclass(frozen=True)
class EventRecord:
    at: datetime
    status: str
    location: str = ""


@dataclass(frozen=True)
class ShipmentRecord:
    carrier: str
    tracking_number: str
    status: str = "in_transit"
    eta: date | None = None
    events: tuple[EventRecord, ...] = ()


@dataclass(frozen=True)
class OrderRecord:
    order_number: str
    customer_id: str
    status: str
    placed_at: datetime
    items: tuple[ItemRecord, ...]
    currency: str = DEFAULT_CURRENCY
    total: int | None = None
    """minor units; None means the sum of the items"""
    shipment: ShipmentRecord | None = None
    line: int = field(default=0, compare=False)
    shipment_given: bool = field(default=True, compare=False)
    """False when the line has no `shipment` key: the stored shipment stays (null removes it)."""


class _Bad(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _text(data: dict[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = data.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise _Bad(where + key, "missing")
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _Bad(where + key, f"{value!r} is not text")
    return str(value).strip()


def _time(value: Any, field: str, tz: tzinfo) -> datetime:
    if not isinstance(value, str):
        raise _Bad(field, "missing" if value is None else f"{value!r} is not a date-time")
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise _Bad(field, f"{value!r} is not an ISO 8601 date-time (2024-01-15T18:12:00+09:00)") from None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)).astimezone(UTC)


def _price(value: Any, field: str, currency: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | Decimal):
        raise _Bad(field, f"{value!r} is not a price")
    try:
        return parse_price(str(value), currency)
    except ValueError as error:
        raise _Bad(field, str(error)) from None


def _object(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad(field, "must be an object {...}")
    return value


def _order(data: Any, line: int, tz: tzinfo) -> OrderRecord:
    data = _object(data, "")
    number = _text(data, "order_number", "")
    customer_id = _text(data, "customer_id", "")
    status = _text(data, "status", "").lower()
    if status not in STATUSES:
        raise _Bad("status", f"{status!r} is not one of {', '.join(STATUSES)}")
    placed_at = _time(data.get("placed_at"), "placed_at", tz)
    currency = (_text(data, "currency", "", required=False) or DEFAULT_CURRENCY).upper()
    if not valid_currency(currency):
        raise _Bad("currency", currency_problem(currency))
    raw_items = data.get("items")
    if not isinstance(raw_items, list) or not raw_items:
        raise _Bad("items", "must be a non-empty list")
    items = []
    for index, raw in enumerate(raw_items):
        where = f"items[{index}]."
        item = _object(raw, f"items[{index}]")
        quantity = item.get("quantity", 1)
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
            raise _Bad(where + "quantity", f"{quantity!r} is not a whole number of at least 1")
        items.append(
            ItemRecord(
                sku=_text(item, "sku", where),
                quantity=quantity,
                option=_text(item, "option", where, required=False),
                unit_price=_price(item.get("unit_price"), where + "unit_price", currency),
            )
        )
    shipment = None
    if data.get("shipment") is not None:
        raw_shipment = _object(data["shipment"], "shipment")
        eta = None
        if raw_shipment.get("eta"):
            try:
                eta = date.fromisoformat(str(raw_shipment["eta"]))
            except ValueError:
                raise _Bad("shipment.eta", f"{raw_shipment['eta']!r} is not a date (YYYY-MM-DD)") from None
        raw_events = raw_shipment.get("events") or []
        if not isinstance(raw_events, list):
            raise _Bad("shipment.events", "must be a list")
        events = []
        for index, raw in enumerate(raw_events):
            where = f"shipment.events[{index}]."
            event = _object(raw, f"shipment.events[{index}]")
            events.append(
                EventRecord(
                    at=_time(event.get("at"), where + "at", tz),
                    status=_text(event, "status", where),
                    location=_text(event, "location", where, required=False),
                )
            )
        shipment = ShipmentRecord(
            carrier=_text(raw_shipment, "carrier", "shipment."),
            tracking_number=_text(raw_shipment, "tracking_number", "shipment."),
            status=_text(raw_shipment, "status", "shipment.", required=False) or "in_transit",
            eta=eta,
            events=tuple(sorted(events, key=lambda e: e.at)),
        )
    return OrderRecord(
        order_number=number,
        customer_id=customer_id,
        status=status,
        placed_at=placed_at,
        items=tuple(items),
        currency=currency,
        total=_price(data.get("total"), "total", currency),
        shipment=shipment,
        line=line,
        shipment_given="shipment" in data,
    )


def parse_order(data: Any, tz: tzinfo) -> OrderRecord:
    """One order object, as in a line of orders.jsonl (and the shop API); ValueError names the field."""
    try:
        return _order(data, 0, tz)
    except _Bad as bad:
        raise ValueError(f"{bad.field}: {bad.message}" if bad.field else bad.message) from None


def read_orders(path: str | Path, tz: tzinfo, problems: ProblemCollector | None = None) -> list[OrderRecord]:
    problems = problems or ProblemCollector(path)
    records: list[OrderRecord] = []
    seen: dict[str, int] = {}
    for line, text in enumerate(read_text(path).splitlines(), start=1):
        if not text.strip():
            continue
        try:
            data = json.loads(text, parse_float=Decimal)
        except json.JSONDecodeError as error:
            problems.add(line, "", f"not valid JSON ({error.msg} at column {error.colno})")
            continue
        try:
            record = _order(data, line, tz)
        except _Bad as bad:
            problems.add(line, bad.field, bad.message)
            continue
        if record.order_number in seen:
            problems.add(
                line, "order_number", f"{record.order_number!r} already on line {seen[record.order_number]}"
            )
            continue
        seen[record.order_number] = line
        records.append(record)
    problems.raise_if_any()
    return records


def _json_price(minor: int, currency: str) -> int | Decimal:
    return minor if decimals(currency) == 0 else Decimal(format_price(minor, currency))


class _Encoder(json.JSONEncoder):
    def default(self, o: object) -> object:
        if isinstance(o, Decimal):
            return float(o)
        return super().default(o)


def order_as_json(record: OrderRecord, tz: tzinfo) -> dict[str, Any]:
    currency = record.currency
    data: dict[str, Any] = {
        "order_number": record.order_number,
        "customer_id": record.customer_id,
        "status": record.status,
        "placed_at": record.placed_at.astimezone(tz).isoformat(),
        "currency": currency,
        "total": None if record.total is None else _json_price(record.total, currency),
        "items": [
            {
                "sku": item.sku,
                "quantity": item.quantity,
                "option": item.option,
                "unit_price": None if item.unit_price is None else _json_price(item.unit_price, currency),
            }
            for item in record.items
        ],
    }
    if record.shipment is not None:
        s = record.shipment
        data["shipment"] = {
            "carrier": s.carrier,
            "tracking_number": s.tracking_number,
            "status": s.status,
            "eta": s.eta.isoformat() if s.eta else None,
            "events": [
                {"at": e.at.astimezone(tz).isoformat(), "status": e.status, "location": e.location}
                for e in s.events
            ],
        }
    return data


def write_orders(records: Iterable[OrderRecord], out: io.TextIOBase | io.StringIO, tz: tzinfo) -> None:
    for record in records:
        out.write(json.dumps(order_as_json(record, tz), ensure_ascii=False, cls=_Encoder) + "\n")
