"""Import speed: rows per second for products and orders, on SQLite and PostgreSQL side by side.

Generates a catalogue of N products, N/10 customers and N orders (1-3 items each, about
two thirds shipped with 2 events), writes them in the import formats, then times what
`csbot import` does - read and check the whole file, compare with the tables, write the
difference in one transaction - first into empty tables, then again with nothing changed
(the idempotent re-run a shop's nightly job does).

    python -m bench.import_speed                                    # SQLite, 100,000 rows
    python -m bench.import_speed --database-url postgresql://postgres@127.0.0.1:5432/bench

The PostgreSQL database is emptied (its shop tables truncated) before the run: give it
a scratch database. The last line holds the PostgreSQL/SQLite ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import text

from db import migrate
from db.engine import create_engine, create_session_factory
from services.settings import Settings
from services.shop.files.customers import read_customers
from services.shop.files.orders import read_orders
from services.shop.files.products import read_products
from services.shop.sync.customers import import_customers
from services.shop.sync.orders import import_orders
from services.shop.sync.products import import_products
from services.shop.sync.report import ImportReport

SEOUL = ZoneInfo("Asia/Seoul")
SHOP_TABLES = "return_requests, shipment_events, shipments, order_items, orders, customers, products"


def write_files(folder: Path, rows: int, seed: int = 7) -> dict[str, Path]:
    rng = random.Random(seed)
    products = folder / "products.csv"
    with products.open("w", encoding="utf-8") as out:
        out.write("sku,name,price,stock,currency,options,restock_date,name_ko,name_en,name_ja\n")
        for i in range(rows):
            restock = "2027-01-15" if i % 17 == 0 else ""
            out.write(
                f"P-{i:06d},Product {i},{rng.randrange(1000, 300000, 100)},{0 if restock else rng.randrange(0, 200)},"
                f"KRW,S|M|L,{restock},상품 {i},Product {i},商品 {i}\n"
            )
    customers = folder / "customers.csv"
    n_customers = max(1, rows // 10)
    with customers.open("w", encoding="utf-8") as out:
        out.write("customer_id,name,phone,email\n")
        for i in range(n_customers):
            out.write(f"C{i:06d},Customer {i},010-{i // 10000:04d}-{i % 10000:04d},c{i}@example.com\n")
    orders = folder / "orders.jsonl"
    start = datetime(2026, 1, 1, tzinfo=UTC)
    with orders.open("w", encoding="utf-8") as out:
        for i in range(rows):
            placed = start + timedelta(minutes=3 * i)
            order: dict[str, object] = {
                "order_number": f"O-{i:07d}",
                "customer_id": f"C{rng.randrange(n_customers):06d}",
                "status": "paid",
                "placed_at": placed.astimezone(SEOUL).isoformat(),
                "items": [
                    {"sku": f"P-{rng.randrange(rows):06d}", "quantity": rng.randrange(1, 3), "option": "M"}
                    for _ in range(rng.randrange(1, 4))
                ],
            }
            if i % 3:
                order["status"] = "shipped"
                order["shipment"] = {
                    "carrier": "CJ Logistics",
                    "tracking_number": f"T{i:09d}",
                    "status": "in_transit",
                    "eta": (placed + timedelta(days=2)).date().isoformat(),
                    "events": [
                        {"at": (placed + timedelta(hours=h)).isoformat(), "status": s, "location": "hub"}
                        for h, s in ((20, "picked up"), (30, "in transit"))
                    ],
                }
            out.write(json.dumps(order, ensure_ascii=False) + "\n")
    return {"products": products, "customers": customers, "orders": orders}


async def _timed(
    url: str, step: Callable[..., Awaitable[ImportReport]], *args: object
) -> tuple[float, ImportReport]:
    engine = create_engine(url)
    try:
        started = time.perf_counter()
        async with create_session_factory(engine)() as session:
            report = await step(session, *args)
            await session.commit()
        return time.perf_counter() - started, report
    finally:
        await engine.dispose()


async def run_backend(url: str, files: dict[str, Path], label: str) -> dict[str, float]:
    engine = create_engine(url)
    try:
        await migrate.upgrade(engine)
        if url.startswith("postgresql"):
            async with engine.begin() as connection:
                await connection.execute(text(f"TRUNCATE {SHOP_TABLES} RESTART IDENTITY CASCADE"))
    finally:
        await engine.dispose()
    speeds: dict[str, float] = {}
    for kind in ("products", "customers", "orders"):
        for run in ("new", "unchanged"):
            started = time.perf_counter()
            if kind == "products":
                products = read_products(files[kind])[0]
                count, parse = len(products), time.perf_counter() - started
                seconds, report = await _timed(url, import_products, products)
            elif kind == "customers":
                customers = read_customers(files[kind])[0]
                count, parse = len(customers), time.perf_counter() - started
                seconds, report = await _timed(url, import_customers, customers, str(files[kind]))
            else:
                orders = read_orders(files[kind], SEOUL)
                count, parse = len(orders), time.perf_counter() - started
                seconds, report = await _timed(url, import_orders, orders, str(files[kind]))
            total = parse + seconds
            speeds[f"{kind}/{run}"] = count / total
            print(
                f"{label:10} {kind:9} {run:9} {count:7} rows  read {parse:6.2f}s  db {seconds:6.2f}s  "
                f"{count / total:9,.0f} rows/s   ({report.new} new, {report.changed} changed, "
                f"{report.unchanged} unchanged)"
            )
    return speeds


async def main(rows: int = 100_000, database_url: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        files = write_files(Path(folder), rows)
        print(f"import speed, {rows:,} products / {max(1, rows // 10):,} customers / {rows:,} orders")
        sqlite = await run_backend(f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}", files, "sqlite")
        if database_url is None:
            print(
                " ".join(
                    f"sqlite_{k.replace('/', '_')}={v:.0f}" for k, v in sqlite.items() if "customers" not in k
                )
            )
            return
        url = Settings(database_url=database_url, _env_file=None).database_url  # type: ignore[call-arg]
        postgres = await run_backend(url, files, "postgresql")
        print(
            " ".join(
                f"pg_over_sqlite_{k.replace('/', '_')}={postgres[k] / sqlite[k]:.2f}"
                for k in sqlite
                if "customers" not in k
            )
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--database-url", help="a scratch PostgreSQL database (its shop tables are emptied)")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.rows, arguments.database_url))
