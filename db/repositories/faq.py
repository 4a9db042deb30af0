from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import SQLModel, col, delete, func, or_, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer, FaqEntry, Order, Product


async def all_entries(session: AsyncSession) -> Sequence[FaqEntry]:
    return (await session.exec(select(FaqEntry).order_by(col(FaqEntry.slug), col(FaqEntry.language)))).all()


async def entries_containing(session: AsyncSession, *, text: str) -> list[FaqEntry]:
    """Entries whose slug, question or answer contains `text` (any case), by slug and language."""
    pattern = f"%{text}%"
    statement = select(FaqEntry).where(
        or_(
            col(FaqEntry.slug).ilike(pattern),
            col(FaqEntry.question).ilike(pattern),
            col(FaqEntry.answer).ilike(pattern),
        )
    )
    return list((await session.exec(statement.order_by(col(FaqEntry.slug), col(FaqEntry.language)))).all())


async def entry_id_by_key(session: AsyncSession, *, slug: str, language: str) -> int | None:
    """The id of the entry with this slug in this language, if there is one."""
    statement = select(FaqEntry.id).where(FaqEntry.slug == slug, FaqEntry.language == language)
    return (await session.exec(statement)).first()


async def entry_by_key(session: AsyncSession, *, slug: str, language: str) -> FaqEntry:
    """The entry with this slug in this language; NoResultFound when there is none."""
    statement = select(FaqEntry).where(FaqEntry.slug == slug, FaqEntry.language == language)
    return (await session.exec(statement)).one()


async def fingerprint(session: AsyncSession) -> str:
    """A digest of the FAQ's content: any edit, however it was made, changes it."""
    rows = await session.exec(
        select(  # type: ignore[call-overload]  # sqlmodel's select() overloads stop at 4 columns
            FaqEntry.slug,
            FaqEntry.language,
            FaqEntry.question,
            FaqEntry.answer,
            FaqEntry.tags,
            FaqEntry.examples,
        ).order_by(col(FaqEntry.slug), col(FaqEntry.language))
    )
    digest = hashlib.blake2b(digest_size=16)
    for row in rows:
        for value in row:
            digest.update(value.encode("utf-8"))
            digest.update(b"\x00")
    return digest.hexdigest()


@dataclass(frozen=True)
class EntryValues:
    slug: str
    language: str
    question: str
    answer: str
    tags: str
    examples: str


@dataclass(frozen=True)
class UpsertCounts:
    created: int
    updated: int
    unchanged: int
    removed: int


async def upsert_entries(
    session: AsyncSession, entries: Sequence[EntryValues], *, replace: bool
) -> UpsertCounts:
    """Insert or update by (slug, language); with `replace`, delete entries not in `entries`.

    Flushes only: the caller commits the whole import as one transaction.
    """
    existing = {(e.slug, e.language): e for e in (await session.exec(select(FaqEntry))).all()}
    created = updated = unchanged = removed = 0
    for values in entries:
        row = existing.pop((values.slug, values.language), None)
        if row is None:
            session.add(FaqEntry(**values.__dict__))
            created += 1
            continue
        changed = False
        for name in ("question", "answer", "tags", "examples"):
            if getattr(row, name) != getattr(values, name):
                setattr(row, name, getattr(values, name))
                changed = True
        if changed:
            session.add(row)
            updated += 1
        else:
            unchanged += 1
    if replace and existing:
        ids = [row.id for row in existing.values()]
        await session.exec(delete(FaqEntry).where(col(FaqEntry.id).in_(ids)))  # type: ignore[call-overload]
        removed = len(ids)
    await session.flush()
    return UpsertCounts(created, updated, unchanged, removed)


@dataclass(frozen=True)
class ShopCounts:
    products: int
    customers: int
    orders: int
    faq: int
    faq_languages: tuple[str, ...]


async def shop_counts(session: AsyncSession) -> ShopCounts:
    """How much of the shop's data there is (the go-live check)."""

    async def count(model: type[SQLModel]) -> int:
        return int((await session.exec(select(func.count()).select_from(model))).one())

    languages = (await session.exec(select(FaqEntry.language).distinct().order_by(FaqEntry.language))).all()
    return ShopCounts(
        await count(Product),
        await count(Customer),
        await count(Order),
        await count(FaqEntry),
        tuple(languages),
    )


async def delete_entry(session: AsyncSession, *, entry_id: int) -> None:
    """One language row of one entry (the console's Delete)."""
    await session.exec(delete(FaqEntry).where(col(FaqEntry.id) == entry_id))  # type: ignore[call-overload]
    await session.flush()


async def holds_shop_data(session: AsyncSession) -> bool:
    """Whether any products, customers, orders or FAQ entries exist (then no demo shop is created)."""
    for model in (Product, Customer, Order, FaqEntry):
        if (await session.exec(select(func.count()).select_from(model))).one():
            return True
    return False


async def entries_of(session: AsyncSession, *, slug: str) -> list[FaqEntry]:
    """Every language row of one entry."""
    statement = select(FaqEntry).where(FaqEntry.slug == slug).order_by(col(FaqEntry.language))
    return list((await session.exec(statement)).all())
