"""Customers keyed by the shop's own customer id.

A customer csbot already knows without an id (the demo shop's, or one created before the
first import) is adopted when the file gives its phone number. A changed phone number
unlinks the Telegram account: the link proved who owns the old number, not the new one.
"""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import shop_sync
from db.repositories.shop_sync import Change
from services.shop.files.customers import CustomerRecord
from services.shop.files.problems import ProblemCollector
from services.shop.sync.report import ImportReport

FIELDS = ("external_id", "name", "phone", "email")


def customer_key(external_id: str | None, row_id: int) -> str:
    """The id a customer goes by in files: the shop's own, else csbot's row number."""
    return external_id if external_id is not None else str(row_id)


async def import_customers(
    session: AsyncSession, records: list[CustomerRecord], path: str, problems: ProblemCollector | None = None
) -> ImportReport:
    connection = await session.connection()
    rows = await shop_sync.customer_rows(connection)
    by_key = {customer_key(row.external_id, row.id): row for row in rows}
    by_phone = {row.phone: row for row in rows}
    report = ImportReport("customers")
    problems = problems or ProblemCollector(path)
    ids_in_file = {record.customer_id for record in records}
    matched: list[tuple[CustomerRecord, Any]] = []
    for record in records:
        row = by_key.get(record.customer_id)
        if row is None:
            holder = by_phone.get(record.phone)
            if holder is not None and holder.external_id is None and str(holder.id) not in ids_in_file:
                row = holder
        matched.append((record, row))
    matched_ids = {row.id for _, row in matched if row is not None}
    inserts: list[dict[str, Any]] = []
    updates: list[Change] = []
    for record, row in matched:
        holder = by_phone.get(record.phone)
        if holder is not None and holder.id not in matched_ids:
            other = customer_key(holder.external_id, holder.id)
            problems.add(record.line, "phone", f"+{record.phone} is customer {other!r}'s number")
            continue
        values = {
            "external_id": record.customer_id,
            "name": record.name,
            "phone": record.phone,
            "email": record.email if "email" in record.given or row is None else row.email,
        }
        if row is None:
            inserts.append(values)
            report.add_new(record.customer_id)
            continue
        changed = [name for name in FIELDS if getattr(row, name) != values[name]]
        if not changed:
            report.unchanged += 1
            continue
        unlink = "phone" in changed
        updates.append((row.id, {**values, "telegram_user_id": None if unlink else row.telegram_user_id}))
        if unlink and row.telegram_user_id is not None:
            changed.append("Telegram link removed")
        report.add_changed(record.customer_id, changed)
    problems.raise_if_any()
    if problems.count:
        return report  # a whole-file check: the caller reports everything and writes nothing
    report.untouched = len(rows) - report.changed - report.unchanged
    if updates:
        # Park the numbers first, so customers who swap numbers never hold the same one at once.
        await shop_sync.park_customer_phones(connection, row_ids=[row_id for row_id, _ in updates])
        await shop_sync.update_customers(connection, columns=(*FIELDS, "telegram_user_id"), changes=updates)
    if inserts:
        await shop_sync.insert_customers(connection, rows=inserts)
    return report


async def export_customers(session: AsyncSession) -> list[CustomerRecord]:
    connection = await session.connection()
    rows = await shop_sync.customer_rows(connection, by_id=True)
    return [
        CustomerRecord(customer_key(row.external_id, row.id), row.name, row.phone, row.email) for row in rows
    ]
