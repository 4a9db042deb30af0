"""Building the answering services from the shop's data, once at start."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import catalogue, faq, orders
from services.faq.lookup import FaqLookupAnswerer
from services.faq.store import FaqRefresher, documents
from services.orders.codes import OrderCodes
from services.shop.sources.base import ShopDataUnavailable
from services.shop.sources.factory import shop_data
from services.shop.sources.local import LocalShopData
from services.understanding.classifier import IntentClassifier
from services.understanding.entities import CatalogueName, EntityExtractor

if TYPE_CHECKING:
    from services.settings import Settings

logger = logging.getLogger(__name__)


async def load_answerers(
    session_factory: async_sessionmaker[AsyncSession],
    settings: Settings | None = None,
) -> tuple[IntentClassifier, FaqLookupAnswerer]:
    """Catalogue names for entity extraction and the FAQ index, read at start.

    The names come from wherever the shop's data lives (its API when configured); if
    that is down at start, csbot starts anyway and finds products by SKU only. The
    encoder and both indexes take a few seconds of CPU: built in a worker thread so
    the event loop (and a health check) stays responsive.
    """
    async with session_factory() as session:
        source = shop_data(session, settings) if settings is not None else LocalShopData(session)
        loaded = True
        try:
            products = await source.catalogue()
        except ShopDataUnavailable as error:
            logger.warning(
                "catalogue not loaded: product names will not be recognised", extra={"error": str(error)}
            )
            products, loaded = [], False
        order_numbers = await orders.recent_numbers(session)
        entries = documents(await faq.all_entries(session))
        fingerprint = await faq.fingerprint(session)
        version = await catalogue.fingerprint(session)
    names = [CatalogueName(p.sku, p.names, p.kinds) for p in products]
    codes = OrderCodes.learn(order_numbers)
    classifier = await asyncio.to_thread(lambda: IntentClassifier(names, order_codes=codes))
    classifier.catalogue_version, classifier.catalogue_checked_at = version, time.monotonic()
    classifier.catalogue_loaded = loaded
    min_confidence = settings.faq_min_confidence if settings is not None else None
    answerer = await asyncio.to_thread(lambda: FaqLookupAnswerer(entries, min_confidence=min_confidence))
    answerer.refresher = FaqRefresher(answerer, fingerprint)
    return classifier, answerer


async def refresh_catalogue(session: AsyncSession, classifier: IntentClassifier, interval: float) -> bool:
    """Rebuild the name index when csbot's catalogue changed since it was built.

    A shop imports tonight's catalogue while the bot runs; its new products must be
    found by name without a restart. At most one cheap check per `interval` seconds; the
    rebuild runs in a thread so messages keep flowing meanwhile.
    """
    now = time.monotonic()
    if classifier.catalogue_version is None or now - classifier.catalogue_checked_at < interval:
        return False
    classifier.catalogue_checked_at = now
    version = await catalogue.fingerprint(session)
    if version == classifier.catalogue_version:
        return False
    classifier.catalogue_version = version  # one rebuild, however many messages arrive meanwhile
    names = [CatalogueName(p.sku, p.names, p.kinds) for p in await LocalShopData(session).catalogue()]
    codes = OrderCodes.learn(await orders.recent_numbers(session))
    extractor = await asyncio.to_thread(lambda: EntityExtractor(names, order_codes=codes))
    classifier.use_catalogue(extractor, version)
    classifier.catalogue_loaded = True
    logger.info("catalogue changed: product name index rebuilt", extra={"products": len(names)})
    return True
