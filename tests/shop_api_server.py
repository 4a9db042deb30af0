"""A shop's own system, as the REST contract in docs/shop-api.yaml describes it (aiohttp on 127.0.0.1).

It serves the example shop's files and can be told to fail the way real systems do:
an outage (503 on everything), slow answers, or a few failures before it recovers.
"""

from __future__ import annotations

import asyncio
import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

EXAMPLES = Path(__file__).parent.parent / "examples" / "shop"
TOKEN = "contract-test-token"


def _digits(phone: str) -> str:
    digits = "".join(ch for ch in phone if ch.isdigit())
    return "82" + digits[1:] if digits.startswith("0") else digits


@dataclass
class ShopApiDouble:
    customers: list[dict[str, Any]] = field(default_factory=list)
    products: list[dict[str, Any]] = field(default_factory=list)
    orders: list[dict[str, Any]] = field(default_factory=list)
    down: bool = False
    delay: float = 0.0
    fail_next: int = 0
    page_size: int = 2
    list_cap: int = 50
    """Newest orders a list answer holds at most (a shop whose list endpoint pages early)."""
    requests: list[str] = field(default_factory=list)
    url: str = ""
    _runner: web.AppRunner | None = None

    @classmethod
    def from_examples(cls) -> ShopApiDouble:
        with (EXAMPLES / "customers.csv").open(encoding="utf-8") as f:
            customers = list(csv.DictReader(f))
        with (EXAMPLES / "products.csv").open(encoding="utf-8") as f:
            products = [
                {**row, "options": [o for o in row["options"].split("|") if o], "stock": int(row["stock"])}
                for row in csv.DictReader(f)
            ]
        orders = [
            json.loads(line) for line in (EXAMPLES / "orders.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        return cls(customers=customers, products=products, orders=orders)

    async def start(self) -> ShopApiDouble:
        app = web.Application(middlewares=[self._gate])
        app.router.add_get("/customers", self._customers)
        app.router.add_get("/customers/{customer_id}/orders", self._orders)
        app.router.add_get("/customers/{customer_id}/orders/{number}", self._order)
        app.router.add_get("/products", self._products)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @web.middleware
    async def _gate(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.requests.append(request.path_qs)
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return web.json_response({"error": "unauthorized"}, status=401)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.down:
            return web.json_response({"error": "maintenance"}, status=503)
        if self.fail_next:
            self.fail_next -= 1
            return web.json_response({"error": "busy"}, status=502)
        return await handler(request)

    async def _customers(self, request: web.Request) -> web.Response:
        wanted = _digits(request.query.get("phone", ""))
        found = [c for c in self.customers if _digits(c["phone"]) == wanted]
        return web.json_response({"customers": found})

    def _orders_of(self, customer_id: str) -> list[dict[str, Any]]:
        mine = [o for o in self.orders if o["customer_id"] == customer_id]
        return sorted(mine, key=lambda o: o["placed_at"], reverse=True)

    async def _orders(self, request: web.Request) -> web.Response:
        orders = self._orders_of(request.match_info["customer_id"])
        statuses = request.query.getall("status", [])
        if statuses:
            orders = [o for o in orders if o["status"] in statuses]
        limit = min(int(request.query.get("limit", "5")), self.list_cap)
        return web.json_response({"orders": orders[:limit]})

    async def _order(self, request: web.Request) -> web.Response:
        number = request.match_info["number"].replace("-", "")
        for order in self._orders_of(request.match_info["customer_id"]):
            if order["order_number"].replace("-", "") == number:
                return web.json_response(order)
        return web.json_response({"error": "not found"}, status=404)

    async def _products(self, request: web.Request) -> web.Response:
        skus = [s.upper() for s in request.query.getall("sku", [])]
        if skus:
            return web.json_response({"products": [p for p in self.products if p["sku"].upper() in skus]})
        start = int(request.query.get("cursor", "0"))
        page = self.products[start : start + self.page_size]
        following = start + self.page_size
        return web.json_response(
            {"products": page, "next_cursor": str(following) if following < len(self.products) else None}
        )
