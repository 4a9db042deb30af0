"""Saved replies: what staff send often, written once per language by an admin."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import SavedReply
from db.repositories import console as console_rows
from db.repositories import handoff as rows
from db.types import utcnow
from services.text.sentences import LANGUAGES

MAX_TITLE_CHARS = 80
MAX_TEXT_CHARS = 4000


class SavedReplyError(ValueError):
    """What is wrong with a saved reply, in words for the admin."""


async def list_replies(session: AsyncSession, language: str | None = None) -> list[SavedReply]:
    return await rows.saved_replies(session, language)


async def save_reply(
    session: AsyncSession, *, title: str, language: str, text: str, staff_id: int
) -> SavedReply:
    """Add a reply, or replace the text of the one with this title in this language (audited)."""
    title = " ".join(title.split())
    text = text.strip()
    if not title:
        raise SavedReplyError("A saved reply needs a title (what staff pick it by).")
    if len(title) > MAX_TITLE_CHARS:
        raise SavedReplyError(f"A title holds at most {MAX_TITLE_CHARS} characters.")
    if language not in LANGUAGES:
        raise SavedReplyError(f"The language is one of {', '.join(LANGUAGES)}.")
    if not text:
        raise SavedReplyError("A saved reply needs its text.")
    if len(text) > MAX_TEXT_CHARS:
        raise SavedReplyError(f"A saved reply holds at most {MAX_TEXT_CHARS} characters.")
    row = await rows.saved_reply_titled(session, title, language)
    before = row.text if row is not None else None
    if row is None:
        row = SavedReply(title=title, language=language, text=text, updated_by=staff_id)
    else:
        row.text, row.updated_by, row.updated_at = text, staff_id, utcnow()
    session.add(row)
    await session.flush()
    await console_rows.add_audit(
        session, staff_id, "saved_reply_saved", f"saved_reply:{row.id}", {"before": before, "after": text}
    )
    await session.commit()
    return row


async def delete_reply(session: AsyncSession, reply_id: int, *, staff_id: int) -> SavedReply | None:
    row = await rows.saved_reply(session, reply_id)
    if row is None:
        return None
    await session.delete(row)
    await console_rows.add_audit(
        session,
        staff_id,
        "saved_reply_deleted",
        f"saved_reply:{reply_id}",
        {"title": row.title, "text": row.text},
    )
    await session.commit()
    return row
