"""`/canary`: admins see and change canary weights. For anyone else it falls through."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from handlers.filters import IsAdmin
from services.admin.conversation_log import Interaction
from services.replies import AnswerSource, ReplyRoute
from services.rollout.canary import Canary, CanaryError, admin_actor, percent_of

USAGE = (
    "Usage: /canary shows the arms; /canary <arm> <percent> sets a canary's share, e.g. /canary candidate 5"
)


def create_router() -> Router:
    router = Router(name="canary")
    router.message.filter(IsAdmin())

    @router.message(Command("canary"))
    async def on_canary(
        message: Message, command: CommandObject, canary: Canary | None, interaction: Interaction
    ) -> None:
        interaction.routed(ReplyRoute.ADMIN, AnswerSource.DATABASE)
        if canary is None:
            await message.answer("Canary routing is not available in this process.", parse_mode=None)
            return
        args = (command.args or "").split()
        if not args:
            await message.answer(await canary.describe(), parse_mode=None)
            return
        if len(args) != 2:
            await message.answer(USAGE, parse_mode=None)
            return
        arm, share = args
        percent = percent_of(share)
        if percent is None:
            await message.answer(USAGE, parse_mode=None)
            return
        actor = admin_actor(message.from_user.id) if message.from_user else "admin"
        try:
            done = await canary.set_weight(arm, percent, actor=actor)
        except CanaryError as error:
            await message.answer(str(error), parse_mode=None)
            return
        await message.answer(done, parse_mode=None)

    return router
