"""`csbot import` and `csbot export`: the shop's products, customers and orders as files.

Each file is read and checked whole before anything is written, then applied in one
transaction: a file with one bad row changes nothing, and `--dry-run` runs the same
comparison and rolls it back.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from bot.cli_output import emit
from services.settings import Settings

KINDS = ("products", "customers", "orders", "faq")


def add_parsers(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    importing = commands.add_parser(
        "import", help="upsert products, customers, orders or FAQ entries from a file"
    )
    importing.add_argument("kind", choices=KINDS)
    importing.add_argument(
        "file", help="products.csv, customers.csv, orders.jsonl or faq.csv (formats: README)"
    )
    importing.add_argument("--dry-run", action="store_true", help="report what would change; write nothing")
    importing.add_argument(
        "--replace", action="store_true", help="faq only: also delete entries that are not in the file"
    )
    exporting = commands.add_parser(
        "export", help="write products, customers, orders or FAQ in the import format"
    )
    exporting.add_argument("kind", choices=KINDS)
    exporting.add_argument("file", nargs="?", default="-", help="output file (default: standard output)")


async def run_import(args: argparse.Namespace, settings: Settings) -> int:
    from db import migrate
    from db.engine import check_connection, create_engine, create_session_factory
    from services.shop.files.customers import read_customers
    from services.shop.files.orders import read_orders
    from services.shop.files.problems import FileProblems, ProblemCollector
    from services.shop.files.products import read_products
    from services.shop.sync.customers import import_customers
    from services.shop.sync.orders import import_orders
    from services.shop.sync.products import import_products

    path = args.file
    if not Path(path).is_file():
        print(f"csbot: {path}: cannot read the file (no such file)", file=sys.stderr)
        return 2
    if args.kind == "faq":
        return await _import_faq(args, settings)
    if args.replace:
        print("csbot: --replace: only for `csbot import faq`", file=sys.stderr)
        return 2
    policy = settings.shop_policy()
    # One collector for the whole file: its row problems and its conflicts with the stored data
    # (a customer's phone held by another, a price in the product's stored currency) are read in
    # one pass and reported together.
    problems = ProblemCollector(path, whole=True)
    try:
        ignored: list[str] = []
        if args.kind == "products":
            products, ignored = read_products(path, problems)
        elif args.kind == "customers":
            customers, ignored = read_customers(path, settings.phone_country_code, problems)
        else:
            orders = read_orders(path, policy.timezone, problems)
    except FileProblems as failed:
        return _nothing_imported(path, failed)
    if ignored:
        print(f"{path}: ignoring column(s) csbot does not use: {', '.join(ignored)}", file=sys.stderr)
    engine = create_engine(settings.database_url)
    try:
        await check_connection(engine)
        await migrate.upgrade(engine)
        async with create_session_factory(engine)() as session:
            if args.kind == "products":
                report = await import_products(session, products, path, problems)
            elif args.kind == "customers":
                report = await import_customers(session, customers, path, problems)
            else:
                report = await import_orders(session, orders, path, problems)
            try:
                problems.finish()
            except FileProblems as failed:
                await session.rollback()
                return _nothing_imported(path, failed)
            if args.dry_run:
                await session.rollback()
            else:
                await session.commit()
    finally:
        await engine.dispose()
    emit(report.render(dry_run=args.dry_run) + "\n")
    return 0


def _nothing_imported(path: str, problems: Exception) -> int:
    print(str(problems), file=sys.stderr)
    print(f"csbot: {path}: nothing imported", file=sys.stderr)
    return 2


async def run_export(args: argparse.Namespace, settings: Settings) -> int:
    from db import migrate
    from db.engine import check_connection, create_engine, create_session_factory
    from services.faq.store import export_faq
    from services.shop.files.customers import write_customers
    from services.shop.files.orders import write_orders
    from services.shop.files.products import write_products
    from services.shop.sync.customers import export_customers
    from services.shop.sync.orders import export_orders
    from services.shop.sync.products import export_products

    policy = settings.shop_policy()
    engine = create_engine(settings.database_url)
    out = io.StringIO()
    try:
        await check_connection(engine)
        await migrate.upgrade(engine)  # a database nothing was imported into yet exports just the header
        async with create_session_factory(engine)() as session:
            if args.kind == "products":
                write_products(await export_products(session), out)
            elif args.kind == "customers":
                write_customers(await export_customers(session), out)
            elif args.kind == "faq":
                out.write(await export_faq(session))
            else:
                write_orders(await export_orders(session), out, policy.timezone)
    finally:
        await engine.dispose()
    if args.file == "-":
        emit(out.getvalue())
    else:
        Path(args.file).write_text(out.getvalue(), encoding="utf-8")
        print(f"{args.kind}: wrote {args.file}", file=sys.stderr)
    return 0


async def _import_faq(args: argparse.Namespace, settings: Settings) -> int:
    """The FAQ file (services/faq/files.py: examples, tags, --replace), with the same one-transaction
    and dry-run rules as every other import."""
    from db import migrate
    from db.engine import check_connection, create_engine, create_session_factory
    from services.faq.files import FaqFileError, parse_faq_csv
    from services.faq.store import import_faq

    path = Path(args.file)
    try:
        rows = parse_faq_csv(path.read_bytes(), source=str(args.file))
    except FaqFileError as error:
        *lines, last = error.lines
        for line in lines:
            print(f"csbot: {line}", file=sys.stderr)
        print(f"csbot: {last}; nothing was imported", file=sys.stderr)
        return 2
    engine = create_engine(settings.database_url)
    try:
        await check_connection(engine)
        await migrate.upgrade(engine)
        async with create_session_factory(engine)() as session:
            counts = await import_faq(session, rows, replace=args.replace, dry_run=args.dry_run)
    finally:
        await engine.dispose()
    verb = "would import" if args.dry_run else "imported"
    emit(
        f"faq: {verb} {counts.created} new, {counts.updated} changed, {counts.unchanged} unchanged, "
        f"{counts.removed} removed\n"
    )
    return 0
