"""Building the answering services from the shop's data, once at start."""

from __future__ import annotations

import asyncio

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import catalogue, faq
from services.classifier import IntentClassifier
from services.entities import CatalogueName
from services.faq import FaqLookupAnswerer
from services.faq_store import FaqRefresher, documents


async def load_answerers(
    session_factory: async_sessionmaker[AsyncSession],
) -> tuple[IntentClassifier, FaqLookupAnswerer]:
    """Catalogue names for entity extraction and the FAQ index, read at start.

    The encoder and both indexes take a few seconds of CPU: built in a worker
    thread so the event loop (and a health check) stays responsive.
    """
    async with session_factory() as session:
        products = await catalogue.all_products(session)
        entries = documents(await faq.all_entries(session))
        fingerprint = await faq.fingerprint(session)
    names = [CatalogueName(p.sku, tuple(name for name in (p.name, p.name_ko) if name)) for p in products]
    classifier = await asyncio.to_thread(IntentClassifier, names)
    answerer = await asyncio.to_thread(FaqLookupAnswerer, entries)
    answerer.refresher = FaqRefresher(answerer, fingerprint)
    return classifier, answerer
