"""Building the answering services from the shop's data, once at start."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import faq
from services.classifier import IntentClassifier
from services.entities import CatalogueName
from services.faq import FaqDocument, FaqLookupAnswerer
from services.shopdata.base import ShopDataUnavailable
from services.shopdata.factory import shop_data
from services.shopdata.local import LocalShopData

if TYPE_CHECKING:
    from bot.config import Settings

logger = logging.getLogger(__name__)


async def load_answerers(
    session_factory: async_sessionmaker[AsyncSession],
    settings: Settings | None = None,
) -> tuple[IntentClassifier, FaqLookupAnswerer]:
    """Catalogue names for entity extraction and the FAQ index, read once at start.

    The names come from wherever the shop's data lives (its API when configured); if
    that is down at start, csbot starts anyway and finds products by SKU only.
    """
    async with session_factory() as session:
        source = shop_data(session, settings) if settings is not None else LocalShopData(session)
        try:
            products = await source.catalogue()
        except ShopDataUnavailable as error:
            logger.warning(
                "catalogue not loaded: product names will not be recognised", extra={"error": str(error)}
            )
            products = []
        entries = await faq.all_entries(session)
    classifier = IntentClassifier(CatalogueName(p.sku, p.names) for p in products)
    answerer = FaqLookupAnswerer(
        FaqDocument(e.slug, e.language, e.question, e.answer, tuple(filter(None, e.tags.split(","))))
        for e in entries
    )
    return classifier, answerer
