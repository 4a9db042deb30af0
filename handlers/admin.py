"""Admin-only commands. For anyone else they fall through to the unknown-command reply."""

from __future__ import annotations

from datetime import timedelta

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import LinkPreviewOptions, Message
from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import logs
from handlers.filters import IsAdmin, IsStaff
from services.admin.conversation_log import Interaction, SentMessage, current_interaction
from services.admin.stats import collect_stats, parse_period
from services.admin.views import render_conversation, render_logs
from services.console.auth import issue_login_link
from services.console.resend import ResendResult, resend
from services.handoff.inbox import remember_staff_name
from services.handoff.sessions import open_handoffs, render_open_handoffs
from services.llm.speculative import FaqReplies
from services.replies import AnswerSource, ReplyRoute
from services.rollout.arm_stats import arm_section
from services.rollout.canary import Canary
from services.settings import Settings
from services.text.split import split_text

DEFAULT_LOG_COUNT = 10
MAX_LOG_COUNT = 100


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
        canary: Canary | None = None,
    ) -> None:
        interaction.routed(ReplyRoute.ADMIN, AnswerSource.DATABASE)
        try:
            period = parse_period(command.args or "24h")
        except ValueError:
            await message.answer("Usage: /stats [period], e.g. /stats 24h, /stats 7d", parse_mode=None)
            return
        stats = await collect_stats(
            session, period=period, exclude_users=settings.team_ids, zone=settings.shop_policy().timezone
        )
        by_arm = await arm_section(
            session,
            since=stats.since,
            exclude_users=settings.team_ids,
            weights=canary.weights() if canary is not None and canary.active else None,
            baseline=canary.baseline if canary is not None else None,
        )
        await _send_long(
            message, stats.render(settings.shop_policy().timezone) + (f"\n\n{by_arm}" if by_arm else "")
        )

    @router.message(Command("logs"))
    async def on_logs(
        message: Message,
        command: CommandObject,
        session: AsyncSession,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        interaction.routed(ReplyRoute.ADMIN, AnswerSource.DATABASE)
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
            exclude_users=settings.team_ids,
            failed=failed,
        )
        replies = await logs.replies_to(session, [row.id for row in rows if row.id is not None])
        await _send_long(message, render_logs(rows, replies))

    @router.message(Command("conversation"))
    async def on_conversation(
        message: Message, command: CommandObject, session: AsyncSession, interaction: Interaction
    ) -> None:
        interaction.routed(ReplyRoute.ADMIN, AnswerSource.DATABASE)
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
        interaction.routed(ReplyRoute.ADMIN, AnswerSource.DATABASE)
        try:
            outbound_id = int((command.args or "").strip().lstrip("#"))
        except ValueError:
            await message.answer("Usage: /resend <number of an undelivered reply, from /logs failed>")
            return
        row = await logs.outbound(session, outbound_id)
        chat_id = row.chat_id if row is not None else None

        async def send(chat: int, text: str) -> None:
            await bot.send_message(chat, text, parse_mode=None)

        # The console's resend: claimed first, so two admins (or a console click) send it once.
        result, error = await resend(
            session,
            outbound_id,
            admin_id=message.from_user.id if message.from_user else 0,
            send=send,
            record_copy=False,
        )
        if result == ResendResult.SENT:
            await message.answer(f"Reply #{outbound_id} sent again to chat {chat_id}.", parse_mode=None)
        elif result == ResendResult.REFUSED:
            await message.answer(f"Telegram refused it again: {error}", parse_mode=None)
        elif result == ResendResult.WOULD_FAIL:
            reason = f"Reply #{outbound_id} not sent: {error}, so Telegram would refuse it again."
            await message.answer(reason, parse_mode=None)
        else:
            await message.answer(f"No undelivered reply #{outbound_id}.", parse_mode=None)

    @router.message(Command("reload"))
    async def on_reload(
        message: Message, session: AsyncSession, faq: FaqReplies, interaction: Interaction
    ) -> None:
        """Rebuild the FAQ index from the database now (it also reloads by itself when the table changes)."""
        interaction.routed(ReplyRoute.ADMIN, AnswerSource.DATABASE)
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


def create_staff_router() -> Router:
    """Commands for everyone on the team (staff and admins): the queue and the console's link."""
    router = Router(name="staff")
    router.message.filter(IsStaff())

    @router.message(Command("handoffs"))
    async def on_handoffs(
        message: Message, session: AsyncSession, settings: Settings, interaction: Interaction
    ) -> None:
        """Who is waiting for a person, and for how long (oldest first)."""
        interaction.routed(ReplyRoute.ADMIN, AnswerSource.DATABASE)
        rows = await open_handoffs(session)
        await _send_long(message, render_open_handoffs(rows, settings.shop_policy().timezone))

    @router.message(Command("console"))
    async def on_console(
        message: Message, session: AsyncSession, settings: Settings, interaction: Interaction
    ) -> None:
        """A one-time sign-in link to the web console, for this staff member only (the filter checked)."""
        interaction.routed(ReplyRoute.ADMIN, AnswerSource.DATABASE)
        if message.from_user is not None:
            await remember_staff_name(session, message.from_user.id, message.from_user.full_name)
        key = settings.console_signing_key()
        if key is None or message.from_user is None:
            await message.answer(
                "The web console needs CSBOT_BOT_TOKEN or CSBOT_CONSOLE_SECRET to sign links.",
                parse_mode=None,
            )
            return
        minutes = settings.console_link_minutes
        url = await issue_login_link(
            session,
            admin_id=message.from_user.id,
            key=key,
            base_url=settings.console_base_url(),
            lifetime=timedelta(minutes=minutes),
        )
        # The link is a credential: the outbound log records a placeholder instead of its text
        # (so nobody reading the logs can sign in with it). No preview: previews fetch links.
        hidden = current_interaction.set(None)
        try:
            await message.answer(
                f"Your console sign-in link (works once, for {minutes:g} minutes; do not forward it):\n{url}",
                parse_mode=None,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
            )
        finally:
            current_interaction.reset(hidden)
        interaction.sent.append(
            SentMessage("sendMessage", message.chat.id, "[console sign-in link, not logged]")
        )

    return router
