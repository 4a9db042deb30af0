"""Who may use the admin console: one-time login links, browser sessions, CSRF tokens.

The bot sends an admin a link (`/console`). The token in it is signed with a key
only the server knows, expires within minutes, is stored only as a hash (a copy
of the table logs nobody in) and works once. Redeeming it opens a session: the
browser keeps a random id in an HttpOnly cookie, the table keeps its hash and a
CSRF token every form must post back. Every refusal looks the same to the
visitor, so the console says nothing about which ids are admins or which links
existed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import console as repository
from db.types import utcnow


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _sign(key: bytes, payload: str) -> str:
    mac = hmac.new(key, payload.encode(), hashlib.sha256).digest()[:18]
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def _signed_token(key: bytes, expires_at: datetime) -> str:
    payload = f"{int(expires_at.timestamp())}.{secrets.token_urlsafe(24)}"
    return f"{payload}.{_sign(key, payload)}"


def _signature_valid(key: bytes, token: str, now: datetime) -> bool:
    """The cheap checks first: a forged or stale token never reaches the database."""
    payload, _, signature = token.rpartition(".")
    expiry, _, _ = payload.partition(".")
    if not payload or not expiry.isdigit() or len(token) > 200:
        return False
    if not hmac.compare_digest(_sign(key, payload), signature):
        return False
    return int(expiry) > now.timestamp()


async def issue_login_link(
    session: AsyncSession, *, admin_id: int, key: bytes, base_url: str, lifetime: timedelta
) -> str:
    """A single-use sign-in URL for one admin; the caller has checked that they are one."""
    now = utcnow()
    expires_at = now + lifetime
    token = _signed_token(key, expires_at)
    await repository.drop_expired(session, now)
    await repository.add_login_link(session, _digest(token), admin_id, expires_at)
    await repository.add_audit(
        session, admin_id, "login_link_issued", "", {"expires_at": expires_at.isoformat()}
    )
    await session.commit()
    return f"{base_url.rstrip('/')}/login/{token}"


@dataclass(frozen=True)
class NewSession:
    cookie_value: str
    admin_id: int
    csrf_token: str
    expires_at: datetime


async def redeem_login_link(
    session: AsyncSession,
    token: str,
    *,
    key: bytes,
    admin_ids: Collection[int],
    lifetime: timedelta,
    client: str = "",
) -> NewSession | None:
    """A new session for a valid, unused, unexpired link of someone still on the team (`admin_ids`:
    admins and staff); None otherwise.

    A link is spent even when its admin was removed since: it must not work later either. Every
    refused attempt is audited with why (never with the link itself)."""
    now = utcnow()
    if not _signature_valid(key, token, now):
        await _refused(session, None, "bad or expired link", client)
        return None
    admin_id = await repository.use_login_link(session, _digest(token), now)
    if admin_id is None or admin_id not in admin_ids:
        reason = "link already used or unknown" if admin_id is None else "no longer an admin"
        await _refused(session, admin_id, reason, client)
        return None
    cookie_value = secrets.token_urlsafe(32)
    csrf_token = secrets.token_urlsafe(24)
    expires_at = now + lifetime
    await repository.add_session(session, _digest(cookie_value), admin_id, csrf_token, expires_at)
    await repository.add_audit(session, admin_id, "login", "", {"client": client[:200]})
    await session.commit()
    return NewSession(cookie_value, admin_id, csrf_token, expires_at)


async def _refused(session: AsyncSession, admin_id: int | None, reason: str, client: str) -> None:
    await repository.add_audit(
        session, admin_id, "login_refused", "", {"reason": reason, "client": client[:200]}
    )
    await session.commit()


class Role(StrEnum):
    STAFF = "staff"
    """Works hand-offs: the inbox, conversations, failed deliveries, the dashboard."""
    ADMIN = "admin"
    """Also changes what the bot says and does: the FAQ, saved replies, the audit trail."""


def role_of(user_id: int, *, admin_ids: Collection[int], staff_ids: Collection[int]) -> Role | None:
    if user_id in admin_ids:
        return Role.ADMIN
    if user_id in staff_ids:
        return Role.STAFF
    return None


@dataclass(frozen=True)
class SignedIn:
    admin_id: int
    """The signed-in person's Telegram id (an admin's or a staff member's)."""
    csrf_token: str
    role: Role = Role.ADMIN

    @property
    def is_admin(self) -> bool:
        return self.role == Role.ADMIN


async def signed_in(
    session: AsyncSession,
    cookie_value: str | None,
    *,
    admin_ids: Collection[int],
    staff_ids: Collection[int] = (),
) -> SignedIn | None:
    """Who is behind a session cookie, if it is live and they are still on the team; their role
    is read from the settings at each request (removing someone takes effect at once)."""
    if not cookie_value or len(cookie_value) > 200:
        return None
    row = await repository.live_session(session, _digest(cookie_value), utcnow())
    if row is None:
        return None
    role = role_of(row.admin_user_id, admin_ids=admin_ids, staff_ids=staff_ids)
    if role is None:
        return None
    return SignedIn(row.admin_user_id, row.csrf_token, role)


async def sign_out(session: AsyncSession, cookie_value: str, admin_id: int) -> None:
    await repository.drop_session(session, _digest(cookie_value))
    await repository.add_audit(session, admin_id, "logout", "", {})
    await session.commit()


def csrf_matches(expected: str, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())


async def audit(
    session: AsyncSession, admin_id: int, action: str, target: str, detail: dict[str, object] | None = None
) -> None:
    """Record an admin action in the caller's transaction (the caller commits it with the action)."""
    await repository.add_audit(session, admin_id, action, target, dict(detail or {}))
