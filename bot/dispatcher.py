"""The one dispatcher factory, used by `csbot run`, `csbot chat` and the tests."""

from __future__ import annotations

from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.session.base import BaseSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.durable_dispatcher import DurableDispatcher
from bot.fsm_memory import BoundedMemoryStorage
from bot.inline_filters import inline_cheap_filters
from bot.metrics import Metrics, TelegramErrorCounter
from bot.middlewares.canary_routing import CanaryRoutingMiddleware
from bot.middlewares.db_session import DbSessionMiddleware
from bot.middlewares.outbound_log import FinishSendsInFlight, OutboundLogMiddleware
from bot.middlewares.response_types import PinResponseTypes
from bot.middlewares.telegram_limits import OutgoingLimiter, TelegramLimits
from bot.middlewares.telegram_retry import TelegramRetryMiddleware
from handlers import create_routers
from handlers.streaming import GenerationRegistry
from services.inbox.durable import Inbox
from services.llm.speculative import SpeculativeAnswerer
from services.rollout.canary import Canary
from services.settings import Settings
from services.understanding.classifier import IntentClassifier


def create_dispatcher(
    *,
    settings: Settings,
    session_factory: async_sessionmaker[AsyncSession],
    classifier: IntentClassifier,
    faq: SpeculativeAnswerer,
    inbox: Inbox,
    metrics: Metrics | None = None,
    storage: BaseStorage | None = None,
    events_isolation: BaseEventIsolation | None = None,
    canary: Canary | None = None,
) -> DurableDispatcher:
    """The inbox stores each update in `feed_update`, before aiogram's FSM middleware runs."""
    dispatcher = DurableDispatcher(
        inbox=inbox,
        update_timeout=settings.update_timeout,
        metrics=metrics,
        concurrency=settings.max_concurrent_updates,
        storage=storage or BoundedMemoryStorage(),
        events_isolation=events_isolation,
        settings=settings,
        classifier=classifier,
        faq=faq,
        generations=GenerationRegistry(preview_crowd=TelegramLimits().overall.limit // 2),
        canary=canary,
    )
    dispatcher.update.outer_middleware(DbSessionMiddleware(session_factory))
    if canary is not None and canary.active:  # one chain: nothing to route, nothing to judge
        dispatcher.update.outer_middleware(CanaryRoutingMiddleware(canary, settings.admin_ids))
    dispatcher.include_routers(*create_routers(support_chat_id=settings.support_chat_id))
    inline_cheap_filters(dispatcher)
    return dispatcher


def create_bot(
    token: str,
    *,
    session: BaseSession | None = None,
    retry: TelegramRetryMiddleware | None = None,
    api_url: str | None = None,
    metrics: Metrics | None = None,
    limiter: OutgoingLimiter | None = None,
) -> Bot:
    """A Bot whose every call is retried by one policy and every message logged with its outcome.

    `api_url` points every Bot API call (file downloads too) at another Bot API server.
    `limiter` keeps Telegram's message limits for every call, each retry included (innermost);
    a serving process has one, a local chat or a test needs none.
    """
    if session is None and api_url is not None:
        session = AiohttpSession(api=TelegramAPIServer.from_base(api_url))
    bot = Bot(token, session=session, default=DefaultBotProperties(parse_mode=None))
    bot.session.middleware(PinResponseTypes())
    if metrics is not None:
        bot.session.middleware(TelegramErrorCounter(metrics))  # outermost: counts each final failure once
    bot.session.middleware(OutboundLogMiddleware())  # sees each message once, with its final outcome
    bot.session.middleware(retry or TelegramRetryMiddleware())
    if limiter is not None:
        bot.session.middleware(limiter)
    bot.session.middleware(FinishSendsInFlight())  # innermost: around the HTTP call itself
    return bot
