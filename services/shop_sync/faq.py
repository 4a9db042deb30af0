"""FAQ entries keyed by (slug, language)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import FaqEntry
from services.shop_files.faq import FaqRecord
from services.shop_sync.report import ImportReport

TABLE = FaqEntry.__table__  # type: ignore[attr-defined]
FIELDS = ("question", "answer", "tags")


async def import_faq(session: AsyncSession, records: list[FaqRecord]) -> ImportReport:
    connection = await session.connection()
    existing = {(row.slug, row.language): row for row in (await connection.execute(select(TABLE))).all()}
    report = ImportReport("faq")
    inserts: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    for record in records:
        values = {"question": record.question, "answer": record.answer, "tags": ",".join(record.tags)}
        key = f"{record.slug} ({record.language})"
        row = existing.get((record.slug, record.language))
        if row is None:
            inserts.append({"slug": record.slug, "language": record.language, **values})
            report.add_new(key)
            continue
        changed = [name for name in FIELDS if getattr(row, name) != values[name]]
        if changed:
            updates.append({"row_id": row.id, **{f"new_{k}": v for k, v in values.items()}})
            report.add_changed(key, changed)
        else:
            report.unchanged += 1
    report.untouched = len(existing) - report.changed - report.unchanged
    if inserts:
        await connection.execute(insert(TABLE), inserts)
    if updates:
        statement = (
            update(TABLE)
            .where(TABLE.c.id == bindparam("row_id"))
            .values({name: bindparam(f"new_{name}") for name in FIELDS})
        )
        await connection.execute(statement, updates)
    return report


async def export_faq(session: AsyncSession) -> list[FaqRecord]:
    connection = await session.connection()
    rows = (await connection.execute(select(TABLE).order_by(TABLE.c.slug, TABLE.c.language))).all()
    return [
        FaqRecord(row.slug, row.language, row.question, row.answer, tuple(filter(None, row.tags.split(","))))
        for row in rows
    ]
