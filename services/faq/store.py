"""The shop's FAQ as data it owns: import, export, and keeping the running bot's index current."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import FaqEntry
from db.repositories import faq as faq_repository
from services.faq.entry import FaqDocument
from services.faq.files import format_faq_csv, parse_faq_csv
from services.faq.lookup import FaqLookupAnswerer

logger = logging.getLogger(__name__)

CHECK_EVERY_SECONDS = 5.0
"""How often a busy bot looks whether the FAQ table changed (one small query)."""


def documents(entries: Sequence[FaqEntry]) -> list[FaqDocument]:
    return [
        FaqDocument.from_stored(e.slug, e.language, e.question, e.answer, e.tags, e.examples) for e in entries
    ]


def entry_values(row: FaqDocument) -> faq_repository.EntryValues:
    return faq_repository.EntryValues(
        row.slug, row.language, row.question, row.answer, row.stored_tags, row.stored_examples
    )


async def import_faq(
    session: AsyncSession, rows: Sequence[FaqDocument], *, replace: bool, dry_run: bool = False
) -> faq_repository.UpsertCounts:
    """Write a checked file's rows (`parse_faq_csv`) in one transaction: all of them or, on any
    error, none; a dry run counts what would change and writes nothing. `csbot import faq` and
    the tests take this one path."""
    try:
        counts = await faq_repository.upsert_entries(
            session, [entry_values(r) for r in rows], replace=replace
        )
        await (session.rollback() if dry_run else session.commit())
    except BaseException:
        await session.rollback()
        raise
    return counts


async def export_faq(session: AsyncSession) -> str:
    entries = await faq_repository.all_entries(session)
    return format_faq_csv(
        FaqDocument(d.slug, d.language, d.question, d.answer, d.tags, d.examples) for d in documents(entries)
    )


class FaqRefresher:
    """Rebuilds the lookup's index when the FAQ table's content changes, without a restart.

    Checked at most every few seconds from the message path, or at once by the
    admin's /reload; the index is built in a worker thread and swapped whole.
    """

    def __init__(self, lookup: FaqLookupAnswerer, fingerprint: str | None = None) -> None:
        self.lookup = lookup
        self._fingerprint = fingerprint
        self._checked = time.monotonic()
        self._lock = asyncio.Lock()

    async def refresh(self, session: AsyncSession, *, force: bool = False) -> bool:
        """True when the index was rebuilt."""
        if not force and time.monotonic() - self._checked < CHECK_EVERY_SECONDS:
            return False
        async with self._lock:
            self._checked = time.monotonic()
            current = await faq_repository.fingerprint(session)
            if current == self._fingerprint and not force:
                return False
            entries = documents(await faq_repository.all_entries(session))
            await asyncio.to_thread(self.lookup.reload, entries)
            self._fingerprint = current
        logger.info("FAQ index reloaded", extra={"entries": len(entries), "forced": force})
        return True


def demo_documents() -> list[FaqDocument]:
    """The demo shop's FAQ without a database (for `csbot eval --faq demo` and the benchmarks)."""
    from db.seed import FAQ

    return [FaqDocument.from_stored(*row) for row in FAQ]


def file_documents(data: bytes, *, source: str) -> list[FaqDocument]:
    """A FAQ file (the import format) as the matcher's documents, without a database."""
    return [
        FaqDocument(r.slug, r.language, r.question, r.answer, r.tags, r.examples)
        for r in parse_faq_csv(data, source=source)
    ]
