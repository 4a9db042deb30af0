"""The shop's data read live from its own system, over the REST contract in docs/shop-api.yaml.

Every call has a timeout per attempt, is retried with exponential backoff and jitter on
timeouts, connection errors, 429 and 5xx (honouring Retry-After), answers from a short TTL
cache when it can, and goes through a circuit breaker. Whatever fails ends as
ShopDataUnavailable, never as an empty answer: the customer must hear "I can't look that
up right now", not "you have no such order".
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from datetime import tzinfo
from typing import Any
from urllib.parse import quote, urlencode

import aiohttp
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from services.resilience import Backoff, CircuitBreaker, retry_after_seconds
from services.shop.files.orders import OrderRecord, parse_order
from services.shop.files.products import parse_product
from services.shop.phone import DEFAULT_COUNTRY_CODE, normalize_phone
from services.shop.sources.base import (
    RECENT_ORDERS,
    ShopCustomer,
    ShopDataUnavailable,
    ShopEvent,
    ShopOrder,
    ShopOrderLine,
    ShopProduct,
    ShopShipment,
    same_order,
)
from services.shop.sources.cache import TTLCache

logger = logging.getLogger(__name__)

_REFERENCE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 5.0
CATALOGUE_PAGES = 1000


class _NotFound(Exception):
    pass


class _Retryable(Exception):
    """An attempt that may succeed if tried again: a timeout, a dropped connection, 429 or 5xx."""

    def __init__(self, problem: str, retry_after: float | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.retry_after = retry_after


class HttpShopData:
    def __init__(
        self,
        base_url: str,
        token: str | None,
        *,
        timezone: tzinfo,
        timeout: float = 3.0,
        retries: int = 2,
        backoff: float = 0.2,
        cache_seconds: float = 15.0,
        breaker_threshold: int = 5,
        breaker_seconds: float = 30.0,
        country_code: str = DEFAULT_COUNTRY_CODE,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"Accept": "application/json"}
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self._tz = timezone
        self._country_code = country_code
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._retries = retries
        self._backoff = Backoff(backoff, backoff * 2.0**retries)
        self.cache = TTLCache(cache_seconds)
        self.breaker = CircuitBreaker(breaker_threshold, breaker_seconds)

    # --- the interface -------------------------------------------------------------

    async def customer_by_phone(self, phone: str) -> ShopCustomer | None:
        try:
            data = await self._get("/customers", {"phone": "+" + phone}, cache=False)
        except _NotFound:  # the contract says 200 with an empty list; a 404 means the same
            return None
        for raw in _list(data, "customers"):
            customer = _customer(raw, self._country_code)
            if customer is not None and customer.phone == phone:
                return customer
        return None

    async def orders_of(
        self, customer_id: str, *, limit: int = 5, statuses: Sequence[str] | None = None
    ) -> list[ShopOrder]:
        params: list[tuple[str, str]] = [("limit", str(limit))]
        params += [("status", status) for status in statuses or ()]
        try:
            data = await self._get(f"/customers/{quote(customer_id, safe='')}/orders", params)
        except _NotFound:
            return []
        found = [self._order(raw) for raw in _list(data, "orders")]
        # The contract says "this customer's orders"; we check it rather than trust it.
        mine = [o for o in found if o is not None and o.customer_id == customer_id]
        mine.sort(key=lambda o: o.placed_at, reverse=True)
        return mine[:limit]

    async def order_of(self, customer_id: str, reference: str) -> ShopOrder | None:
        for order in await self.orders_of(customer_id, limit=RECENT_ORDERS):
            if same_order(order.number, reference):
                return order
        reference = reference.strip().lstrip("#").strip()
        if not _REFERENCE.match(reference):  # customer text never shapes a path ("..", "/")
            return None
        path = f"/customers/{quote(customer_id, safe='')}/orders/{quote(reference, safe='')}"
        try:
            found = self._order(await self._get(path, ()))
        except _NotFound:
            return None
        if found is None or found.customer_id != customer_id or not same_order(found.number, reference):
            return None
        return found

    async def products_by_sku(self, skus: Sequence[str]) -> list[ShopProduct]:
        if not skus:
            return []
        try:
            data = await self._get("/products", [("sku", sku) for sku in skus])
        except _NotFound:
            return []
        found = {
            p.sku.upper(): p for p in (_product(raw) for raw in _list(data, "products")) if p is not None
        }
        return [found[sku.upper()] for sku in dict.fromkeys(skus) if sku.upper() in found]

    async def catalogue(self) -> list[ShopProduct]:
        products: list[ShopProduct] = []
        cursor: str | None = None
        for _ in range(CATALOGUE_PAGES):
            try:
                data = await self._get("/products", [("cursor", cursor)] if cursor else (), cache=False)
            except _NotFound:
                break
            products += [p for p in (_product(raw) for raw in _list(data, "products")) if p is not None]
            cursor = data.get("next_cursor") if isinstance(data, dict) else None
            if not cursor:
                break
        return products

    # --- HTTP ----------------------------------------------------------------------

    async def _get(self, path: str, params: Any, *, cache: bool = True) -> Any:
        query = urlencode(list(params.items()) if isinstance(params, dict) else list(params))
        url = f"{self.base_url}{path}" + (f"?{query}" if query else "")
        if cache:
            hit, value = self.cache.get(url)
            if hit:
                return value
        if not self.breaker.allow():
            raise ShopDataUnavailable(f"circuit open after repeated failures of {self.base_url}")
        try:
            value = await self._get_with_retries(url)
        except _NotFound:
            self.breaker.succeeded()
            raise
        except ShopDataUnavailable:
            self.breaker.failed()
            raise
        self.breaker.succeeded()
        if cache:
            self.cache.put(url, value)
        return value

    async def _get_with_retries(self, url: str) -> Any:
        """One client session per call: the connector outlives event loops (tests, `csbot chat`)
        and needs no shutdown hook; the price is a new connection per look-up."""
        async with aiohttp.ClientSession(timeout=self._timeout, headers=self._headers) as session:
            return await self._attempts(session, url)

    async def _attempts(self, session: aiohttp.ClientSession, url: str) -> Any:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._retries + 1),
            wait=self._wait,
            retry=retry_if_exception_type(_Retryable),
            sleep=asyncio.sleep,
            reraise=True,
        )
        try:
            return await retrying(self._attempt, session, url)
        except _Retryable as error:
            logger.warning(
                "shop API unavailable",
                extra={"url": url, "problem": error.problem, "attempts": self._retries + 1},
            )
            raise ShopDataUnavailable(f"{error.problem} from {url}") from error

    @staticmethod
    async def _attempt(session: aiohttp.ClientSession, url: str) -> Any:
        try:
            async with session.get(url) as response:
                if response.status == 404:
                    raise _NotFound(url)
                if response.status in RETRY_STATUSES:
                    raise _Retryable(f"HTTP {response.status}", retry_after_seconds(response.headers))
                if response.status != 200:
                    logger.error("shop API refused the call", extra={"url": url, "status": response.status})
                    raise ShopDataUnavailable(f"HTTP {response.status} from {url}")
                return await response.json(content_type=None)
        except (TimeoutError, aiohttp.ClientError, ValueError) as error:
            raise _Retryable(type(error).__name__, None) from error

    def _wait(self, retry_state: RetryCallState) -> float:
        """The server's Retry-After (at most MAX_RETRY_AFTER), else the shared back-off."""
        error = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(error, _Retryable) and error.retry_after is not None:
            return min(error.retry_after, MAX_RETRY_AFTER)
        return self._backoff.tenacity_wait(retry_state)

    # --- records -------------------------------------------------------------------

    def _order(self, raw: Any) -> ShopOrder | None:
        try:
            record = parse_order(raw, self._tz)
        except ValueError as error:
            logger.warning("shop API sent an order csbot cannot read", extra={"problem": str(error)})
            return None
        return _shop_order(record)


def _list(data: Any, key: str) -> list[Any]:
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ShopDataUnavailable(f"the shop API answered without a {key!r} list")
    return items


def _customer(raw: Any, country_code: str) -> ShopCustomer | None:
    if not isinstance(raw, dict) or not raw.get("customer_id") or not raw.get("phone"):
        return None
    return ShopCustomer(
        str(raw["customer_id"]),
        str(raw.get("name") or ""),
        normalize_phone(str(raw["phone"]), country_code),
        str(raw.get("email") or ""),
    )


def _product(raw: Any) -> ShopProduct | None:
    if not isinstance(raw, dict):
        return None
    try:
        r = parse_product(raw)
    except ValueError as error:
        logger.warning("shop API sent a product csbot cannot read", extra={"problem": str(error)})
        return None
    return ShopProduct(
        r.sku,
        r.name,
        r.price,
        r.stock,
        r.currency,
        r.options,
        r.restock_date,
        r.name_ko,
        r.name_en,
        r.name_ja,
        aliases=r.aliases,
        category=r.category,
        option_stock=r.option_stock,
    )


def _shop_order(record: OrderRecord) -> ShopOrder:
    shipment = record.shipment
    return ShopOrder(
        number=record.order_number,
        customer_id=record.customer_id,
        status=record.status,
        placed_at=record.placed_at,
        items=tuple(ShopOrderLine(i.sku, i.sku, i.quantity, i.option, i.unit_price) for i in record.items),
        currency=record.currency,
        total=record.total,
        shipment=None
        if shipment is None
        else ShopShipment(
            shipment.carrier,
            shipment.tracking_number,
            shipment.status,
            shipment.eta,
            tuple(ShopEvent(e.at, e.status, e.location) for e in shipment.events),
        ),
    )
