"""Undelivered replies: listing them and sending one again, exactly once.

A resend first claims the row with one conditional UPDATE (failed -> resending);
only the request that wins the claim sends, so a double click, two admins or two
console instances send the message once. Telegram refusing again puts the row
back to failed with the new error; a process dying mid-send leaves it
"resending", shown to admins, rather than risk a second copy.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import OutboundMessage, OutboundStatus
from db.repositories import logs
from services.console.auth import audit
from services.console.privacy import mask_phones

PAGE_SIZE = 50
UNDELIVERED = (OutboundStatus.FAILED, OutboundStatus.RESENDING)


@dataclass(frozen=True)
class Undelivered:
    id: int
    created_at: datetime
    chat_id: int | None
    user_id: int | None
    inbound_id: int | None
    text: str
    error: str | None
    status: str


async def undelivered(
    session: AsyncSession, *, before: int | None = None, limit: int = PAGE_SIZE
) -> tuple[list[Undelivered], int | None]:
    """Newest first; the second value is the next page's cursor."""
    rows = await logs.outbound_in_status(session, statuses=UNDELIVERED, before=before, limit=limit + 1)
    more = len(rows) > limit
    listed = [
        Undelivered(
            row.id or 0,
            row.created_at,
            row.chat_id,
            row.telegram_user_id or row.chat_id,
            row.inbound_id,
            mask_phones(row.text),
            row.error,
            row.status,
        )
        for row in rows[:limit]
    ]
    return listed, (listed[-1].id if more and listed else None)


_HOPELESS = (
    (re.compile(r"blocked by the user", re.IGNORECASE), "the customer blocked the bot"),
    (re.compile(r"user is deactivated", re.IGNORECASE), "the customer's Telegram account is deleted"),
    (re.compile(r"chat not found|PEER_ID_INVALID", re.IGNORECASE), "Telegram knows no such chat"),
    (
        re.compile(r"bot was kicked|not enough rights|have no rights", re.IGNORECASE),
        "the bot may not post there",
    ),
    (re.compile(r"message is too long", re.IGNORECASE), "the text is longer than Telegram takes"),
)
"""Refusals a second try gets again: no Resend button for them, and the reason instead."""


def why_resend_fails(error: str | None) -> str | None:
    """Why sending this again would be refused again, in words for the admin; None when a resend
    may go through (a timeout, a flood wait, Telegram's server error)."""
    for pattern, reason in _HOPELESS:
        if error and pattern.search(error):
            return reason
    return None


class ResendResult(StrEnum):
    SENT = "sent"
    ALREADY_HANDLED = "already handled"
    NOT_FOUND = "not found"
    REFUSED = "refused again"
    WOULD_FAIL = "not sent: Telegram would refuse it again"


Send = Callable[[int, str], Awaitable[None]]
"""Sends text to a chat; raises when the message did not go out."""


async def resend(
    session: AsyncSession, outbound_id: int, *, admin_id: int, send: Send, record_copy: bool = True
) -> tuple[ResendResult, str | None]:
    """Send an undelivered reply again unless someone already did; audited either way it went out.

    `record_copy=False` where the sender logs the new message itself (Telegram's `/resend`, whose
    sends the outbound log records under the admin's command). A refusal a retry cannot change
    (a blocked bot, a text too long) is not tried again: `WOULD_FAIL`, with the reason."""
    before = await session.get(OutboundMessage, outbound_id)
    hopeless = why_resend_fails(before.error) if before is not None else None
    if hopeless is not None:
        return ResendResult.WOULD_FAIL, hopeless
    claimed = await logs.claim_for_resend(session, outbound_id=outbound_id)
    await session.commit()
    if not claimed:
        exists = await session.get(OutboundMessage, outbound_id)
        return (ResendResult.ALREADY_HANDLED if exists is not None else ResendResult.NOT_FOUND), None
    row = await session.get(OutboundMessage, outbound_id)
    assert row is not None and row.chat_id is not None
    try:
        await send(row.chat_id, row.text)
    except Exception as error:  # whatever the transport raised, the message did not go out
        reason = f"{type(error).__name__}: {error}"[:1000]
        row.status = OutboundStatus.FAILED
        row.error = reason
        session.add(row)
        await audit(session, admin_id, "resend_refused", f"outbound:{outbound_id}", {"error": reason})
        await session.commit()
        return ResendResult.REFUSED, reason
    row.status = OutboundStatus.RESENT
    session.add(row)
    detail: dict[str, object] = {"chat_id": row.chat_id}
    if record_copy:
        copy = OutboundMessage(
            inbound_id=row.inbound_id,
            chat_id=row.chat_id,
            telegram_user_id=row.telegram_user_id,
            method=row.method,
            text=row.text,
            status=OutboundStatus.SENT,
        )
        session.add(copy)
        await session.flush()
        detail["new_outbound"] = copy.id
    await audit(session, admin_id, "resend", f"outbound:{outbound_id}", detail)
    await session.commit()
    return ResendResult.SENT, None
