"""The one dispatcher factory, used by `csbot run`, `csbot chat` and the tests."""

from __future__ import annotations

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.base import BaseSession
from aiogram.fsm.storage.base import BaseEventIsolation, BaseStorage
from aiogram.fsm.storage.memory import MemoryStorage
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.config import Settings
from bot.middlewares.conversation_log import ConversationLogMiddleware
from bot.middlewares.db_session import DbSessionMiddleware
from bot.middlewares.outbound_log import OutboundLogMiddleware
from handlers import create_routers
from handlers.streaming import GenerationRegistry
from services.classifier import IntentClassifier
from services.conversation_log import ConversationLog
from services.llm.speculative import SpeculativeAnswerer


def create_dispatcher(
    *,
    settings: Settings,
    session_factory: async_sessionmaker[AsyncSession],
    classifier: IntentClassifier,
    faq: SpeculativeAnswerer,
    storage: BaseStorage | None = None,
    events_isolation: BaseEventIsolation | None = None,
) -> Dispatcher:
    dispatcher = Dispatcher(
        storage=storage or MemoryStorage(),
        events_isolation=events_isolation,
        settings=settings,
        classifier=classifier,
        faq=faq,
        generations=GenerationRegistry(),
    )
    # Outermost first: the log sees every update, even one whose DB session fails to open.
    dispatcher.update.outer_middleware(ConversationLogMiddleware(ConversationLog(session_factory)))
    dispatcher.update.outer_middleware(DbSessionMiddleware(session_factory))
    dispatcher.include_routers(*create_routers(support_chat_id=settings.support_chat_id))
    return dispatcher


def create_bot(token: str, *, session: BaseSession | None = None) -> Bot:
    """A Bot whose every outgoing message is logged with the update that caused it."""
    bot = Bot(token, session=session, default=DefaultBotProperties(parse_mode=None))
    bot.session.middleware(OutboundLogMiddleware())
    return bot
