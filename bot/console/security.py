"""The console's gate: every page needs a live session of someone on the team, every form its
CSRF token, and the pages that change what the bot says an admin's.

Refusals all look alike (403, the same page): a visitor learns nothing about which
ids are admins, which links existed or why theirs did not work. Headers keep the
pages out of caches and frames and the login token out of Referer headers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from services.console.auth import SignedIn, csrf_matches, signed_in

COOKIE = "csbot_console"
ADMIN_KEY = web.RequestKey("admin", SignedIn)
PUBLIC_PATHS = ("/login/", "/static/", "/signed-out")
ADMIN_PATHS = ("/faq", "/audit", "/replies", "/canary")
"""What staff may not open: the FAQ, saved replies (they use them, admins write them), the audit."""

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def is_https(request: web.Request, base_url: str) -> bool:
    """Whether the browser talks TLS to us (directly, through a proxy, or by configuration)."""
    return (
        request.secure
        or request.headers.get("X-Forwarded-Proto", "").lower() == "https"
        or base_url.startswith("https://")
    )


def admin_of(request: web.Request) -> SignedIn:
    return request[ADMIN_KEY]


def gate(
    *,
    root: str,
    admin_ids: Callable[[], frozenset[int]],
    staff_ids: Callable[[], frozenset[int]] = frozenset,
    sessions: async_sessionmaker[AsyncSession],
    deny: Handler,
    admins_only: Handler | None = None,
) -> Any:
    """The console app's middleware: public paths pass; everything else needs a session of
    someone on the team, a POST also its session's CSRF token, and the pages that change what
    the bot says (`ADMIN_PATHS`) an admin's."""
    public = tuple(root + path for path in PUBLIC_PATHS)
    for_admins = tuple(root + path for path in ADMIN_PATHS)

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path.startswith(public):
            return secured(await handler(request))
        async with sessions() as session:
            admin = await signed_in(
                session, request.cookies.get(COOKIE), admin_ids=admin_ids(), staff_ids=staff_ids()
            )
        if admin is None:
            return secured(await deny(request))
        if request.method == "POST":
            form = await request.post()
            given = form.get("csrf")
            if not csrf_matches(admin.csrf_token, given if isinstance(given, str) else None):
                return secured(await deny(request))
        request[ADMIN_KEY] = admin
        if request.path.startswith(for_admins) and not admin.is_admin:
            return secured(await (admins_only or deny)(request))
        return secured(await handler(request))

    return middleware


def secured(response: web.StreamResponse) -> web.StreamResponse:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response
