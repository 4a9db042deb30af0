"""The HTTP side of a csbot process: Telegram's webhook, and health checks for the orchestrator.

The webhook answers 200 only once the update is stored (in the inbox, or in the
local journal when the database is down): Telegram repeats an update until it
gets a 2xx, so nothing that got a 200 can be lost, and nothing without one was
ours yet. A request without the right secret header (compared as the bytes sent)
gets 401 and touches nothing; a body that is no update we can store (not JSON,
nested too deep, an integer beyond 64 bits, no known update type:
bot/webhook_body.py) gets 400, with one warning line saying why. A 5xx means
the update was not stored (draining, or neither the database nor the journal took
it: the database down and the journal's disk full): Telegram sends it again.
Handling happens after the 200; when this process is already handling its share,
the update is stored unclaimed and the inbox worker of whichever instance is free
takes it. While draining for a shutdown the webhook answers 503, so Telegram
sends the update again (to another instance behind the balancer).

`/healthz`: the process is alive. `/readyz`: 200 while the instance can take updates
(the database or the journal takes writes, and it is not draining), with what is
degraded (the database, the journal, Redis) listed; 503 with the reasons otherwise.
`/metrics`: the Prometheus text format (bot/metrics.py). `/admin`: the admin web
console (bot/console), when one is given.
"""

from __future__ import annotations

import asyncio
import hmac
import logging

from aiogram import Bot
from aiohttp import web
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.durable_dispatcher import DurableDispatcher
from bot.fsm_storage import StateStore
from bot.metrics import CONTENT_TYPE, Metrics
from bot.webhook_body import NotAnUpdate, read_update
from db.repositories import gauges
from services.inbox.durable import NotStored

logger = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
READINESS_TIMEOUT_S = 2.0


class HttpFront:
    def __init__(
        self,
        dispatcher: DurableDispatcher,
        bot: Bot,
        *,
        engine: AsyncEngine,
        state_store: StateStore | None,
        concurrency: int,
        metrics: Metrics | None = None,
        webhook_path: str | None = None,
        webhook_secret: str | None = None,
        console: web.Application | None = None,
    ) -> None:
        self._dispatcher = dispatcher
        self._bot = bot
        self._engine = engine
        self._state_store = state_store
        self._metrics = metrics
        dispatcher.scheduler.capacity = concurrency
        self._webhook_path = webhook_path
        self._secret = webhook_secret
        self._console = console
        self.draining = False

    def application(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        if self._metrics is not None:
            app.router.add_get("/metrics", self._metrics_page)
        if self._webhook_path is not None:
            app.router.add_post(self._webhook_path, self._webhook)
        if self._console is not None:
            app.add_subapp("/admin", self._console)
        return app

    async def _healthz(self, _request: web.Request) -> web.Response:
        return web.json_response({"status": "alive"})

    async def _readyz(self, _request: web.Request) -> web.Response:
        """503 only when this instance cannot take updates: it is draining, or neither the database
        nor the journal takes writes. A database or Redis outage alone is shared by every instance
        behind the balancer: they all stay in (the journal keeps what arrives, handling waits for
        Redis), and the outage is listed under `degraded`."""
        problems, degraded = [], []
        if self.draining:
            problems.append("draining for shutdown")
        database = await self._database_problem()
        if database is None and self._dispatcher.inbox.database_refused is not None:
            # It answers a read but refused the last update (a lock, a full disk): writes count here.
            database = f"database: {self._dispatcher.inbox.database_refused[:120]}"
        refusal = await self._dispatcher.inbox.journal.check()
        journal = f"journal: {refusal}" if refusal is not None else None
        if database is not None and journal is not None:
            problems += [database, journal]
        else:
            degraded += [problem for problem in (database, journal) if problem is not None]
        redis = getattr(self._state_store.storage, "redis", None) if self._state_store else None
        if redis is not None:
            try:
                async with asyncio.timeout(READINESS_TIMEOUT_S):
                    await redis.ping()
            except Exception as error:  # redis raises its own connection and timeout errors
                degraded.append(f"redis: {type(error).__name__}")
        if problems:
            body: dict[str, object] = {"status": "not ready", "problems": problems}
            return web.json_response({**body, "degraded": degraded} if degraded else body, status=503)
        ready: dict[str, object] = {"status": "ready"}
        return web.json_response({**ready, "degraded": degraded} if degraded else ready)

    async def _database_problem(self) -> str | None:
        try:
            async with asyncio.timeout(READINESS_TIMEOUT_S), self._engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
        except Exception as error:  # whatever the driver raises, the answer is "not ready"
            return f"database: {type(error).__name__}"
        return None

    async def _metrics_page(self, _request: web.Request) -> web.Response:
        assert self._metrics is not None
        try:
            async with asyncio.timeout(READINESS_TIMEOUT_S), AsyncSession(self._engine) as session:
                self._metrics.inbox_backlog.set(await gauges.inbox_backlog(session))
                self._metrics.handoffs_open.set(await gauges.open_handoffs(session))
        except Exception as error:  # the counters are still worth serving without the database's gauges
            logger.warning("metrics: database gauges not read", extra={"error": f"{type(error).__name__}"})
        return web.Response(body=self._metrics.exposition(), headers={"Content-Type": CONTENT_TYPE})

    async def _webhook(self, request: web.Request) -> web.Response:
        if not self._secret_matches(request):
            logger.warning("webhook request without the right secret refused", extra={"peer": request.remote})
            return web.json_response({"ok": False, "error": "unauthorized"}, status=401)
        if self.draining:
            return web.json_response({"ok": False, "error": "shutting down"}, status=503)
        try:
            update = read_update(await request.read(), self._bot)
        except NotAnUpdate as error:
            logger.warning(
                "webhook body refused: not an update that can be stored",
                extra={"reason": str(error), "peer": request.remote},
            )
            return web.json_response({"ok": False, "error": f"not a Telegram update: {error}"}, status=400)
        # Stored before the 200. When this process has no free slot and nothing of this chat,
        # the stored row waits for whichever instance's inbox worker is free first.
        try:
            await self._dispatcher.dispatch(self._bot, update, queue=False)
        except NotStored as error:
            logger.error(
                "update not stored: answered 503, Telegram sends it again",
                extra={"update_id": update.update_id, "error": str(error)[:300]},
            )
            return web.json_response({"ok": False, "error": "not stored: try again"}, status=503)
        return web.json_response({"ok": True})

    def _secret_matches(self, request: web.Request) -> bool:
        """The secret header's bytes as sent (whatever their encoding) against ours, in constant time."""
        if self._secret is None:
            return False
        wanted = SECRET_HEADER.lower().encode()
        given = next((value for name, value in request.raw_headers if name.lower() == wanted), b"")
        return hmac.compare_digest(given, self._secret.encode())
