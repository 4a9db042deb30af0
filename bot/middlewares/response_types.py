"""Keeps aiogram's parsed-response classes alive, so they are built once per process, not per call.

aiogram parses every Bot API answer with `Response[method.__returning__]`, and
pydantic caches parametrised generic classes in a weak-valued dictionary: once
the garbage collector has run, the next call builds the class again (schema
generation, about 5 ms). Measured in bench/bot_overhead.py that was the largest
single cost of a reply. Holding one strong reference per return type ends it.
"""

from __future__ import annotations

from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.methods import Response, TelegramMethod
from aiogram.methods.base import TelegramType

_PINNED: dict[Any, type[Any]] = {}


def pin_response_type(method: TelegramMethod[Any]) -> None:
    returning = method.__returning__
    if returning not in _PINNED:
        _PINNED[returning] = Response[returning]  # type: ignore[valid-type]


class PinResponseTypes(BaseRequestMiddleware):
    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Any:
        pin_response_type(method)
        return await make_request(bot, method)
