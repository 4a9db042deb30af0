"""Products keyed by SKU (case-insensitive: `sku-7890` is `SKU-7890`)."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import shop_sync
from db.repositories.shop_sync import Change
from services.shop.files.problems import ProblemCollector
from services.shop.files.products import COLUMNS, ProductRecord, join_options, split_list, split_options
from services.shop.money import parse_price
from services.shop.sync.report import ImportReport

FIELDS = COLUMNS  # the file's columns are the table's fields


REQUIRED_FIELDS = ("sku", "name", "price", "stock")


def _fields(record: ProductRecord) -> tuple[str, ...]:
    """The required columns and the optional ones the file has (column names are field names)."""
    return REQUIRED_FIELDS + tuple(name for name in FIELDS if name in record.given)


def _values(record: ProductRecord) -> dict[str, Any]:
    return {
        "sku": record.sku,
        "name": record.name,
        "name_ko": record.name_ko,
        "name_en": record.name_en,
        "name_ja": record.name_ja,
        "price": record.price,
        "currency": record.currency,
        "stock": record.stock,
        "options": join_options(record.options, record.option_stock),
        "restock_date": record.restock_date,
        "aliases": "|".join(record.aliases),
        "category": record.category,
    }


async def import_products(
    session: AsyncSession,
    records: list[ProductRecord],
    path: str = "products",
    problems: ProblemCollector | None = None,
) -> ImportReport:
    connection = await session.connection()
    problems = problems or ProblemCollector(path)
    existing = {row.sku.upper(): row for row in await shop_sync.product_rows(connection)}
    report = ImportReport("products")
    inserts: list[dict[str, Any]] = []
    updates: list[Change] = []
    for record in records:
        values = _values(record)
        row = existing.get(record.sku.upper())
        if "currency" not in record.given and record.price_text:
            # No currency column: the price is in the product's own currency (KRW when new).
            currency = record.currency if row is None else row.currency
            try:
                values["price"] = parse_price(record.price_text, currency)
            except ValueError as error:
                problems.add(record.line, "price", f"{error} (the product is priced in {currency})")
                continue
        if row is None:
            inserts.append(values)
            report.add_new(record.sku)
            continue
        fields = _fields(record)
        changed = [name for name in fields if getattr(row, name) != values[name]]
        if changed:
            updates.append((row.id, values))
            report.add_changed(record.sku, changed)
        else:
            report.unchanged += 1
    problems.raise_if_any()
    if problems.count:
        return report  # a whole-file check: the caller reports everything and writes nothing
    report.untouched = len(existing) - report.changed - report.unchanged
    if inserts:
        await shop_sync.insert_products(connection, rows=inserts)
    if updates:
        fields = _fields(records[0])  # one file, one header
        await shop_sync.update_products(connection, columns=fields, changes=updates)
    return report


async def export_products(session: AsyncSession) -> list[ProductRecord]:
    connection = await session.connection()
    rows = await shop_sync.product_rows(connection, by_sku=True)
    return [
        ProductRecord(
            sku=row.sku,
            name=row.name,
            price=row.price,
            stock=row.stock,
            currency=row.currency,
            options=split_options(row.options)[0],
            option_stock=split_options(row.options)[1],
            restock_date=row.restock_date,
            name_ko=row.name_ko,
            name_en=row.name_en,
            name_ja=row.name_ja,
            aliases=split_list(row.aliases),
            category=row.category,
        )
        for row in rows
    ]
