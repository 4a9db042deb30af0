"""The console's dependencies taken from a running csbot (`csbot run` or `csbot admin`)."""

from __future__ import annotations

from aiogram import Bot
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.console.pages import ConsoleDeps, RefreshFaq
from services.console.resend import Send
from services.llm.speculative import SpeculativeAnswerer
from services.rollout.canary import Canary
from services.settings import Settings


def bot_sender(bot: Bot) -> Send:
    async def send(chat_id: int, text: str) -> None:
        await bot.send_message(chat_id, text, parse_mode=None)  # as logged: the customer's plain text

    return send


def faq_refresher(answerer: SpeculativeAnswerer | None) -> RefreshFaq | None:
    refresher = answerer.lookup.refresher if answerer is not None else None
    if refresher is None:
        return None

    async def refresh(session: AsyncSession) -> None:
        await refresher.refresh(session, force=True)

    return refresh


def console_deps(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    *,
    bot: Bot | None,
    answerer: SpeculativeAnswerer | None = None,
    canary: Canary | None = None,
) -> ConsoleDeps:
    return ConsoleDeps(
        settings=settings,
        sessions=sessions,
        send=bot_sender(bot) if bot is not None else None,
        refresh_faq=faq_refresher(answerer),
        bot=bot,
        canary=canary,
    )
