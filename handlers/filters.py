"""Filters more than one router puts on its commands."""

from __future__ import annotations

from aiogram.filters import Filter
from aiogram.types import Message

from services.settings import Settings


class IsAdmin(Filter):
    """Staff commands answer only the configured admins (`CSBOT_ADMIN_IDS`); for anyone else
    they fall through to the unknown-command reply."""

    async def __call__(self, message: Message, settings: Settings) -> bool:
        return message.from_user is not None and message.from_user.id in settings.admin_ids


class IsStaff(Filter):
    """Commands for the whole support team: staff (`CSBOT_STAFF_IDS`) and admins."""

    async def __call__(self, message: Message, settings: Settings) -> bool:
        return message.from_user is not None and message.from_user.id in settings.team_ids
