"""Which update the running task is handling, for every log line and message written meanwhile.

Set once where an update enters (bot/durable_dispatcher.py); asyncio copies it
into every task the handling starts, so a log line deep in a service still says
which customer and update it is about without being handed them.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class UpdateContext:
    bot_id: int
    update_id: int
    user_id: int | None = None
    chat_id: int | None = None


current_update: ContextVar[UpdateContext | None] = ContextVar("current_update", default=None)
