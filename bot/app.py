"""Assembling the application: database, the answering services, the dispatcher."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.cache_bus import CacheBus
from bot.dispatcher import create_dispatcher
from bot.durable_dispatcher import DurableDispatcher
from bot.fsm_storage import StateStore, open_state_store
from bot.journal_peers import RedisJournalPeers
from bot.metrics import Metrics
from db import migrate
from db.engine import check_connection, create_engine, create_session_factory
from db.journal import Journal
from db.seed import seed_demo
from db.wal_checkpoint import WalCheckpointer
from services.answerers import load_answerers
from services.inbox.durable import Inbox, InboxPolicy
from services.inbox.read_cache import caches_for
from services.llm.arms import ArmSet
from services.llm.gateway import LLMGateway
from services.llm.local.availability import local_generation_available
from services.llm.local.serving import LocalServer
from services.llm.speculative import SpeculativeAnswerer
from services.rollout.canary import Canary
from services.settings import ConfigError, Settings
from services.understanding.classifier import IntentClassifier

logger = logging.getLogger(__name__)

SHUTDOWN_GRACE_SECONDS = 10.0


@dataclass
class App:
    engine: AsyncEngine
    session_factory: async_sessionmaker[AsyncSession]
    dispatcher: DurableDispatcher
    inbox: Inbox
    metrics: Metrics
    gateway: LLMGateway | None = None
    local_server: LocalServer | None = None
    state_store: StateStore | None = None
    answerer: SpeculativeAnswerer | None = None
    """The baseline arm's answerer."""
    canary: Canary | None = None
    """Every configured arm, their weights, guard rails and schedule."""
    cache_bus: CacheBus | None = None
    checkpointer: WalCheckpointer | None = None
    marks_engine: AsyncEngine | None = None
    """The delivery marks' own connection (services/inbox/durable.py `Inbox.mark_delivered`)."""
    classifier: IntentClassifier | None = None
    """The shop's name index and order-number shapes, as the handlers use them."""

    async def close(self) -> None:
        if self.dispatcher.busy:  # `csbot run` drained already; anything else ends its handling here
            await self.dispatcher.drain(within=SHUTDOWN_GRACE_SECONDS)
        if self.cache_bus is not None:
            await self.cache_bus.close()
        if self.state_store is not None:
            await self.state_store.close()
        settling = self.canary.arms.settled() if self.canary is not None else None
        if settling is None and self.answerer is not None:
            settling = self.answerer.settled()
        if settling is not None:
            try:  # notes being written on dropped turns: let them land, but never hang a shutdown
                await asyncio.wait_for(settling, SHUTDOWN_GRACE_SECONDS)
            except TimeoutError:
                logger.warning("shutting down with notes on earlier turns unwritten")
        if self.canary is not None:
            await self.canary.arms.close()
        elif self.gateway is not None:
            await self.gateway.close()
        if self.local_server is not None:
            await self.local_server.close()
        await self.inbox.group.drain()  # outcomes still queued for their commit land first
        unwritten = await self.inbox.write_unwritten()
        if unwritten:
            logger.error(
                "shutting down with outcomes neither the database nor the journal took: "
                "their updates are handled again after the restart (a reply may be repeated)",
                extra={"outcomes": unwritten},
            )
        if self.checkpointer is not None:
            await self.checkpointer.close()
        if self.marks_engine is not None:
            await self.inbox.close_marks()
            await self.marks_engine.dispose()
        await self.engine.dispose()


async def build_app(settings: Settings, *, upgrade: bool = True, seed: bool = False) -> App:
    journal = Journal(Path(settings.journal_path))  # checked before anything starts
    try:
        journal.require_writable()
    except OSError as error:
        raise ConfigError(
            f"CSBOT_JOURNAL_PATH: cannot write {settings.journal_path} ({error.strerror or error}); "
            "updates wait there while the database is down"
        ) from None
    engine = create_engine(
        settings.database_url,
        lock_timeout_ms=settings.db_lock_timeout_ms,
        statement_timeout_ms=settings.db_statement_timeout_ms,
        pool_size=settings.db_pool_size,
        background_checkpoints=True,
    )
    await check_connection(engine)
    if upgrade:
        await migrate.upgrade(engine)
    session_factory = create_session_factory(engine)
    if seed:
        async with session_factory() as session:
            await seed_demo(session, demo_telegram_user_id=settings.local_chat_user_id)
    classifier, lookup = await load_answerers(session_factory, settings)
    roles, local_server = settings.llm, None
    if not roles.target and settings.local_model:
        local_server = await LocalServer.start(settings.local_model)
        update: dict[str, object] = {"target": [local_server.endpoint]}
        if "retrieval_check" not in roles.model_fields_set:
            update["retrieval_check"] = LocalServer.retrieval_check
        roles = roles.model_copy(update=update)
    elif not roles.target:
        available, why = local_generation_available()
        logger.info(
            "no target model configured: FAQ answers are the shop's own FAQ text",
            extra={
                "local_generation": "available (CSBOT_LOCAL_MODEL=bundled)" if available else f"off: {why}"
            },
        )
    arms = ArmSet.build(roles, lookup, temperature=settings.llm_temperature)
    for built in arms.gateways.values():  # what each endpoint can do, before any customer's call
        await built.probe()
    gateway, answerer = arms.gateways.get(roles.baseline), arms.baseline
    canary = Canary(arms, session_factory, exclude_users=settings.team_ids)
    await canary.start()
    state_store = await open_state_store(
        settings.redis_url,
        prefix=settings.redis_prefix,
        operation_timeout=settings.redis_timeout,
        handling_timeout=settings.update_timeout,
    )
    # Delivery marks get a connection of their own: written while the handler's session holds
    # one of the pool's, they would otherwise wait for the pool the handlers exhaust under load.
    marks_engine = create_engine(
        settings.database_url,
        lock_timeout_ms=settings.db_lock_timeout_ms,
        statement_timeout_ms=settings.db_statement_timeout_ms,
        pool_size=1,
        overflow=0,
        background_checkpoints=True,
    )
    redis = getattr(state_store.storage, "redis", None)
    inbox = Inbox(
        session_factory,
        journal,
        InboxPolicy(
            # Handling ends within update_timeout (plus the outcome's write): twice that is safe.
            lease=timedelta(seconds=2 * settings.update_timeout + 5),
            max_attempts=settings.max_attempts,
            # Webhook instances may be several on one database, each with its own journal.
            replay_settle=timedelta(seconds=5 if settings.webhook_url else 0),
        ),
        marks=create_session_factory(marks_engine),
        peers=RedisJournalPeers(
            redis, prefix=settings.redis_prefix, journal=journal.path, timeout=settings.redis_timeout
        )
        if redis is not None and settings.webhook_url
        else None,
    )
    checkpointer = WalCheckpointer(engine, exclusive=inbox.holding_writes)
    metrics = Metrics()
    dispatcher = create_dispatcher(
        inbox=inbox,
        metrics=metrics,
        settings=settings,
        session_factory=session_factory,
        classifier=classifier,
        faq=answerer,
        canary=canary,
        storage=state_store.storage,
        events_isolation=state_store.isolation,
    )
    cache_bus = None
    if redis is not None:  # several processes may share the database: they hear of each other's writes
        cache_bus = CacheBus(
            redis, channel=f"{settings.redis_prefix}:cache", caches=caches_for(engine.sync_engine)
        )
        await cache_bus.start()
    checkpointer.start()
    return App(
        engine,
        session_factory,
        dispatcher,
        inbox,
        metrics,
        gateway,
        local_server,
        state_store,
        answerer,
        canary,
        cache_bus,
        checkpointer,
        marks_engine,
        classifier,
    )
