"""products.csv: `sku,name,price,stock` plus `currency,options,restock_date,name_ko,name_en,name_ja,
aliases,category`. `options` is `S|M|L`, or with each option's stock `S:3|M:0|L:5` (then `stock`
may be left empty: it is their sum)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from services.shop.files.problems import ProblemCollector, open_csv
from services.shop.money import currency_problem, format_price, parse_price, valid_currency

REQUIRED = ("sku", "name", "price", "stock")
OPTIONAL = ("currency", "options", "restock_date", "name_ko", "name_en", "name_ja", "aliases", "category")
COLUMNS = (
    "sku",
    "name",
    "name_ko",
    "name_en",
    "name_ja",
    "price",
    "currency",
    "stock",
    "options",
    "restock_date",
    "aliases",
    "category",
)
DEFAULT_CURRENCY = "KRW"


@dataclass(frozen=True)
class ProductRecord:
    sku: str
    name: str
    price: int
    """minor units of `currency`"""
    stock: int
    currency: str = DEFAULT_CURRENCY
    options: tuple[str, ...] = ()
    restock_date: date | None = None
    name_ko: str = ""
    name_en: str = ""
    name_ja: str = ""
    aliases: tuple[str, ...] = ()
    category: str = ""
    option_stock: tuple[int, ...] | None = None
    """Each option's stock, in the order of `options`, when the shop counts them apart."""
    line: int = field(default=0, compare=False)
    price_text: str = field(default="", compare=False)
    """As written, to be read again in a stored product's currency when the file has none."""
    given: frozenset[str] = field(default=frozenset(OPTIONAL), compare=False)
    """The optional columns the file has: the others are left as they are on existing products,
    so a stock-only file (`sku,name,price,stock`) keeps the localized names."""


_COUNTED = re.compile(r"^(.+?)\s*:\s*(\d+)$")


def split_list(text: str) -> tuple[str, ...]:
    """A `|`-separated field (options, aliases)."""
    return tuple(part.strip() for part in text.split("|") if part.strip())


def split_options(text: str) -> tuple[tuple[str, ...], tuple[int, ...] | None]:
    """`S|M|L` -> the options and no counts; `S:3|M:0|L:5` -> the options and each one's stock.
    Counts are read only when every option has one: "Size: M" alone is an option's name."""
    parts = split_list(text)
    counted = [_COUNTED.match(part) for part in parts]
    if parts and all(counted):
        return tuple(m.group(1) for m in counted if m), tuple(int(m.group(2)) for m in counted if m)
    return parts, None


def join_options(options: Iterable[str], stock: Iterable[int] | None = None) -> str:
    if stock is None:
        return "|".join(options)
    return "|".join(f"{option}:{count}" for option, count in zip(options, stock, strict=True))


def read_products(
    path: str | Path, problems: ProblemCollector | None = None
) -> tuple[list[ProductRecord], list[str]]:
    """Records plus the header columns csbot ignores (so the caller can say so); with a `whole`
    collector, the good records and the problems both."""
    problems = problems or ProblemCollector(path)
    table = open_csv(path, REQUIRED, OPTIONAL, problems)
    reader, ignored, given = table.rows, table.ignored, table.given
    records: list[ProductRecord] = []
    seen: dict[str, int] = {}
    for row in reader:
        line = reader.line_num
        if None in row:
            columns = len(reader.fieldnames or [])
            problems.add(line, "", f"{columns + len(row[None])} values for {columns} columns")
            continue
        record = _product(row, line, problems, "currency" in given)
        if record is None:
            continue
        record = replace(record, given=given)
        key = record.sku.upper()
        if key in seen:
            problems.add(line, "sku", f"{record.sku!r} already on line {seen[key]}")
            continue
        seen[key] = line
        records.append(record)
    problems.raise_if_any()
    return records, ignored


def parse_product(data: dict[str, Any]) -> ProductRecord:
    """A product object from the shop API (the fields of a products.csv row); ValueError names the field."""
    row: dict[str, str | None] = {}
    for name in REQUIRED + OPTIONAL:
        value = data.get(name)
        if isinstance(value, list):
            value = "|".join(str(part) for part in value)
        row[name] = None if value is None else str(value)
    problems = ProblemCollector("shop API")
    record = _product(row, 0, problems)
    if record is None:
        problem = problems.problems[0]
        raise ValueError(f"{problem.field}: {problem.message}")
    return record


def _a_price_in_some_currency(text: str) -> bool:
    for currency in ("USD", "KRW", "JPY", "EUR", "GBP"):
        try:
            parse_price(text, currency)
        except ValueError:
            continue
        return True
    return False


def _product(
    row: dict[str, str | None], line: int, problems: ProblemCollector, currency_given: bool = True
) -> ProductRecord | None:
    def value(name: str) -> str:
        return (row.get(name) or "").strip()

    before = problems.count
    sku, name = value("sku"), value("name")
    if not sku:
        problems.add(line, "sku", "empty")
    elif any(ch.isspace() for ch in sku):
        problems.add(line, "sku", f"{sku!r} contains spaces")
    if not name:
        problems.add(line, "name", "empty")
    currency = (value("currency") or DEFAULT_CURRENCY).upper()
    if not valid_currency(currency):
        problems.add(line, "currency", currency_problem(value("currency")))
    price = 0
    if not value("price"):
        problems.add(line, "price", "empty")
    elif valid_currency(currency):
        try:
            price = parse_price(value("price"), currency)
        except ValueError as error:
            # Without a currency column the product's stored currency decides (at import):
            # `19.90` may be a dollar product's price. Only what is no price at all fails here.
            if currency_given or not _a_price_in_some_currency(value("price")):
                problems.add(line, "price", str(error))
    options, option_stock = split_options(value("options"))
    stock = 0
    if option_stock is not None and not value("stock"):
        stock = sum(option_stock)
    else:
        try:
            stock = int(value("stock"))
            if stock < 0:
                problems.add(line, "stock", f"{value('stock')!r} is negative")
        except ValueError:
            problems.add(
                line, "stock", f"{value('stock')!r} is not a whole number" if value("stock") else "empty"
            )
    if option_stock is not None and stock != sum(option_stock) and problems.count == before:
        problems.add(
            line,
            "stock",
            f"{stock} but the options' stock adds up to {sum(option_stock)} ({value('options')})",
        )
    if len(set(options)) != len(options):
        problems.add(line, "options", f"{value('options')!r} names an option twice")
    restock: date | None = None
    if value("restock_date"):
        try:
            restock = date.fromisoformat(value("restock_date"))
        except ValueError:
            problems.add(line, "restock_date", f"{value('restock_date')!r} is not a date (YYYY-MM-DD)")
    if problems.count > before:
        return None
    return ProductRecord(
        sku=sku,
        name=name,
        price=price,
        stock=stock,
        currency=currency,
        options=options,
        option_stock=option_stock,
        restock_date=restock,
        name_ko=value("name_ko"),
        name_en=value("name_en"),
        name_ja=value("name_ja"),
        aliases=split_list(value("aliases")),
        category=value("category"),
        line=line,
        price_text=value("price"),
    )


def write_products(records: Iterable[ProductRecord], out: io.TextIOBase | io.StringIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in records:
        writer.writerow(
            [
                r.sku,
                r.name,
                r.name_ko,
                r.name_en,
                r.name_ja,
                format_price(r.price, r.currency),
                r.currency,
                r.stock,
                join_options(r.options, r.option_stock),
                r.restock_date.isoformat() if r.restock_date else "",
                "|".join(r.aliases),
                r.category,
            ]
        )
