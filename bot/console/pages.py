"""What every console page shares: its dependencies, its templates, and the answers it gives."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import Any

import jinja2
from aiogram import Bot
from aiohttp import web
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.console.presses import pressed, pressed_language
from bot.console.security import ADMIN_KEY
from services.console.privacy import mask_phones
from services.console.resend import Send, why_resend_fails
from services.handoff.figures import duration
from services.rollout.canary import Canary
from services.settings import Settings
from services.shop.local_time import local_second

ROOT = "/admin"
HERE = Path(__file__).parent
PERIODS = ("1h", "24h", "7d", "30d")
LANGUAGES = ("ko", "en", "ja")

RefreshFaq = Callable[[AsyncSession], Awaitable[None]]


@dataclass
class ConsoleDeps:
    settings: Settings
    sessions: async_sessionmaker[AsyncSession]
    send: Send | None = None
    """Sends a resent reply; None where no bot token is configured (resend is then unavailable)."""
    refresh_faq: RefreshFaq | None = None
    """Rebuilds the running bot's FAQ index at once (in-process); other bots notice within seconds."""
    bot: Bot | None = None
    """Sends staff's replies and the rating question; None where no bot token is configured."""
    live_interval: float = 0.5
    """Seconds between the inbox's checks for changes (its live updates)."""
    canary: Canary | None = None
    """The running bot's canary routing; None where the console is served alone (its page then
    shows the stored weights and says where to change them)."""


DEPS_KEY = web.AppKey("console_deps", ConsoleDeps)
TEMPLATES_KEY = web.AppKey("console_templates", jinja2.Environment)


def environment(zone: tzinfo) -> jinja2.Environment:
    """`zone`: the shop's; every time on a page is shown in it, with its name."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["when"] = lambda moment: local_second(moment, zone) if moment else ""
    environment.filters["resend_fails"] = why_resend_fails
    environment.filters["pressed"] = pressed
    environment.filters["pressed_language"] = pressed_language
    environment.filters["readable"] = lambda value: json.dumps(value, ensure_ascii=False, sort_keys=True)
    environment.filters["ms"] = lambda value: "-" if value is None else f"{value:,.0f} ms"
    environment.filters["usd"] = lambda value: "-" if value is None else f"${value:.5f}"
    environment.filters["pct"] = lambda value: "-" if value is None else f"{value:.0%}"
    environment.filters["num"] = lambda value: "-" if value is None else f"{value:.2f}"
    environment.filters["masked"] = mask_phones
    environment.filters["duration"] = duration
    return environment


def render(request: web.Request, template: str, status: int = 200, **context: Any) -> web.Response:
    environment = request.app[TEMPLATES_KEY]
    admin = request.get(ADMIN_KEY)  # set by the gate on signed-in requests
    html = environment.get_template(template).render(
        root=ROOT, admin=admin, csrf=admin.csrf_token if admin else "", request=request, **context
    )
    return web.Response(text=html, content_type="text/html", status=status)


async def denied(request: web.Request) -> web.StreamResponse:
    return render(request, "denied.html", status=403)


def bad(request: web.Request, message: str) -> web.Response:
    return render(request, "error.html", status=400, message=message)


def see_other(location: str) -> web.Response:
    """A redirect answered (not raised), so the gate adds the security headers to it too."""
    return web.Response(status=303, headers={"Location": location})


def int_value(value: str | None) -> int | None:
    """An id or page cursor from the address; ValueError for anything but a plain number."""
    if value is None or value == "":
        return None
    if not value.isdigit() or len(value) > 19:
        raise ValueError(value)
    return int(value)
