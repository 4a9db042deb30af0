"""The customer's stop button on a streamed answer cancels the generation behind it."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import MessageGenerationStopped

from handlers.streaming import GenerationRegistry
from services.admin.conversation_log import Interaction
from services.replies import ReplyRoute


def create_router() -> Router:
    router = Router(name="generation")

    @router.stopped_message_generation()
    async def on_stop(
        event: MessageGenerationStopped, generations: GenerationRegistry, interaction: Interaction
    ) -> None:
        stopped = generations.stop(event.chat.id, event.draft_id)
        interaction.routed(ReplyRoute.STOP_GENERATION, "cancelled" if stopped else "already-finished")

    return router
