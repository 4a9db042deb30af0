"""Building the answering services from the shop's data, once at start."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import catalogue, faq
from services.classifier import IntentClassifier
from services.entities import CatalogueName
from services.faq import FaqDocument, FaqLookupAnswerer
from services.stock import product_names


async def load_answerers(
    session_factory: async_sessionmaker[AsyncSession],
) -> tuple[IntentClassifier, FaqLookupAnswerer]:
    """Catalogue names for entity extraction and the FAQ index, read once at start."""
    async with session_factory() as session:
        products = await catalogue.all_products(session)
        entries = await faq.all_entries(session)
    classifier = IntentClassifier(
        CatalogueName(p.sku, product_names(p)) for p in products
    )
    answerer = FaqLookupAnswerer(
        FaqDocument(e.slug, e.language, e.question, e.answer, tuple(filter(None, e.tags.split(","))))
        for e in entries
    )
    return classifier, answerer
