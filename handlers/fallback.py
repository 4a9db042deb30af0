"""Whatever no other handler took: unknown commands and content we cannot read.

Admin commands sent by non-admins land here too and get exactly the
unknown-command reply, so their existence is not revealed.
"""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import CallbackQuery, Message
from sqlmodel.ext.asyncio.session import AsyncSession

from handlers.context import conversation_language, language_of, say
from services.admin.conversation_log import Interaction
from services.replies import AnswerSource, ReplyRoute
from services.text.sentences import t


def create_router() -> Router:
    router = Router(name="fallback")

    @router.message(F.text.startswith("/"))
    async def on_unknown_command(message: Message, session: AsyncSession, interaction: Interaction) -> None:
        interaction.routed(ReplyRoute.UNKNOWN_COMMAND, AnswerSource.TEMPLATE)
        await say(message, t("unknown_command", await conversation_language(session, message)))

    @router.message()
    async def on_unsupported(message: Message, session: AsyncSession, interaction: Interaction) -> None:
        interaction.routed(ReplyRoute.UNSUPPORTED_CONTENT, AnswerSource.TEMPLATE)
        await say(message, t("unsupported_content", await conversation_language(session, message)))

    @router.callback_query()
    async def on_unknown_button(query: CallbackQuery, interaction: Interaction) -> None:
        interaction.routed(ReplyRoute.UNKNOWN_BUTTON, AnswerSource.TEMPLATE)
        await query.answer(t("return_expired", language_of(query.from_user)))

    return router
