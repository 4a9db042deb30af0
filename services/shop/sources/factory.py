"""Which source answers: csbot's tables, or the shop's API when CSBOT_SHOP_API_URL is set."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlmodel.ext.asyncio.session import AsyncSession

from services.shop.sources.base import ShopData
from services.shop.sources.http import HttpShopData
from services.shop.sources.local import LocalShopData

if TYPE_CHECKING:
    from services.settings import Settings

_connectors: dict[tuple[object, ...], HttpShopData] = {}


def http_connector(settings: Settings) -> HttpShopData:
    """One connector per configuration for the life of the process, so its cache and
    circuit breaker see every customer's calls (a breaker per message would never open)."""
    assert settings.shop_api_url is not None
    token = settings.shop_api_token.get_secret_value() if settings.shop_api_token else None
    key = (
        settings.shop_api_url,
        token,
        settings.shop_api_timeout,
        settings.shop_api_cache_seconds,
        settings.shop_api_breaker_seconds,
        settings.shop_timezone,
        settings.phone_country_code,
    )
    connector = _connectors.get(key)
    if connector is None:
        connector = HttpShopData(
            settings.shop_api_url,
            token,
            timezone=settings.shop_policy().timezone,
            timeout=settings.shop_api_timeout,
            cache_seconds=settings.shop_api_cache_seconds,
            breaker_seconds=settings.shop_api_breaker_seconds,
            country_code=settings.phone_country_code,
        )
        _connectors[key] = connector
    return connector


def shop_data(session: AsyncSession, settings: Settings) -> ShopData:
    if settings.shop_api_url is None:
        return LocalShopData(session)
    return http_connector(settings)
