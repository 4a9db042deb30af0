"""Admin-only commands. For anyone else they fall through to the unknown-command reply."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject, Filter
from aiogram.types import Message
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.config import Settings
from db.models import OutboundStatus
from db.repositories import logs
from services.admin_views import render_conversation, render_logs
from services.conversation_log import Interaction
from services.handoff import open_handoffs, render_open_handoffs
from services.llm.speculative import FaqReplies
from services.stats import collect_stats, parse_period
from services.text_split import split_text

DEFAULT_LOG_COUNT = 10
MAX_LOG_COUNT = 100


class IsAdmin(Filter):
    async def __call__(self, message: Message, settings: Settings) -> bool:
        return message.from_user is not None and message.from_user.id in settings.admin_ids


async def _send_long(message: Message, text: str) -> None:
    for part in split_text(text):
        await message.answer(part, parse_mode=None)


def create_router() -> Router:
    router = Router(name="admin")
    router.message.filter(IsAdmin())

    @router.message(Command("stats"))
    async def on_stats(
        message: Message,
        command: CommandObject,
        session: AsyncSession,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        interaction.routed("admin", "database")
        try:
            period = parse_period(command.args or "24h")
        except ValueError:
            await message.answer("Usage: /stats [period], e.g. /stats 24h, /stats 7d", parse_mode=None)
            return
        stats = await collect_stats(session, period=period, exclude_users=settings.admin_ids)
        await message.answer(stats.render(), parse_mode=None)

    @router.message(Command("logs"))
    async def on_logs(
        message: Message,
        command: CommandObject,
        session: AsyncSession,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        interaction.routed("admin", "database")
        user_id, count = None, DEFAULT_LOG_COUNT
        args = (command.args or "").split()
        failed = bool(args) and args[0] == "failed"
        if failed:
            args = args[1:]
        try:
            if len(args) >= 2:
                user_id, count = int(args[0]), int(args[1])
            elif len(args) == 1:
                value = int(args[0])
                # A lone small number is a count; Telegram user ids are far larger.
                user_id, count = (None, value) if value <= MAX_LOG_COUNT else (value, DEFAULT_LOG_COUNT)
        except ValueError:
            await message.answer("Usage: /logs [failed] [user_id] [n]", parse_mode=None)
            return
        rows = await logs.inbound(
            session,
            user_id=user_id,
            limit=max(1, min(count, MAX_LOG_COUNT)),
            exclude_users=settings.admin_ids,
            failed=failed,
        )
        replies = await logs.replies_to(session, [row.id for row in rows if row.id is not None])
        await _send_long(message, render_logs(rows, replies))

    @router.message(Command("conversation"))
    async def on_conversation(
        message: Message, command: CommandObject, session: AsyncSession, interaction: Interaction
    ) -> None:
        interaction.routed("admin", "database")
        try:
            user_id = int((command.args or "").strip())
        except ValueError:
            await message.answer("Usage: /conversation <user_id>", parse_mode=None)
            return
        await _send_long(message, render_conversation(await logs.conversation(session, user_id)))

    @router.message(Command("resend"))
    async def on_resend(
        message: Message, command: CommandObject, bot: Bot, session: AsyncSession, interaction: Interaction
    ) -> None:
        """Send a reply Telegram refused (the number `/logs failed` shows) to its chat again."""
        interaction.routed("admin", "database")
        try:
            outbound_id = int((command.args or "").strip().lstrip("#"))
        except ValueError:
            await message.answer("Usage: /resend <number of an undelivered reply, from /logs failed>")
            return
        row = await logs.outbound(session, outbound_id)
        if row is None or row.status != OutboundStatus.FAILED or row.chat_id is None:
            await message.answer(f"No undelivered reply #{outbound_id}.", parse_mode=None)
            return
        try:
            await bot.send_message(row.chat_id, row.text, parse_mode=None)
        except TelegramAPIError as error:
            await message.answer(f"Telegram refused it again: {error}", parse_mode=None)
            return
        await logs.mark_resent(session, row)
        await message.answer(f"Reply #{outbound_id} sent again to chat {row.chat_id}.", parse_mode=None)

    @router.message(Command("handoffs"))
    async def on_handoffs(message: Message, session: AsyncSession, interaction: Interaction) -> None:
        """Who is waiting for a person, and for how long (oldest first)."""
        interaction.routed("admin", "database")
        await _send_long(message, render_open_handoffs(await open_handoffs(session)))

    @router.message(Command("reload"))
    async def on_reload(
        message: Message, session: AsyncSession, faq: FaqReplies, interaction: Interaction
    ) -> None:
        """Rebuild the FAQ index from the database now (it also reloads by itself when the table changes)."""
        interaction.routed("admin", "database")
        refresher = faq.lookup.refresher
        if refresher is None:
            await message.answer("This bot's FAQ does not come from the database.", parse_mode=None)
            return
        await refresher.refresh(session, force=True)
        matcher = faq.lookup.matcher
        await message.answer(
            f"FAQ reloaded: {len(matcher.slugs)} entries, {len(matcher.documents)} rows.", parse_mode=None
        )

    return router
