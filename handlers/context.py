"""Small helpers every customer-facing handler needs."""

from __future__ import annotations

from aiogram.types import Message, ReplyKeyboardRemove, User
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer
from services.inbox import read_cache
from services.text.normalize import detect_language
from services.text.sentences import Language
from services.understanding.reply_language import has_words, reply_language


def language_of(user: User | None, text: str = "") -> Language:
    """The language of what the customer wrote, else their Telegram app's language: an order number
    or a 👍 has none ("answer later" notes to such a message came in English in a Korean app).
    services.understanding.reply_language also looks back at the conversation, at the cost of a read."""
    if has_words(text):
        return detect_language(text)
    return Language.of(user.language_code if user else None)


async def conversation_language(session: AsyncSession, message: Message) -> Language:
    """The language of the message, else of the customer's last words in this chat, else of their
    app: for replies to commands and wordless messages, which say nothing of it themselves."""
    user = message.from_user
    return await reply_language(
        session,
        message.text or message.caption or "",
        user_id=user.id if user else None,
        chat_id=message.chat.id,
        app_language=language_of(user),
    )


def button_language(code: str | None) -> Language | None:
    """The reply language a button's callback data carries, when it is one the bot speaks."""
    return Language.known(code)


async def linked_customer(session: AsyncSession, user: User | None) -> Customer | None:
    if user is None:
        return None
    return await read_cache.linked_customer(session, user.id)


async def release_connection(session: AsyncSession) -> None:
    """End the read transaction so its pooled connection is free while a slow step runs.

    A commit (not a close) keeps the session usable: a later query opens a new
    transaction, and a pending write, should there be one, is not thrown away.
    """
    await session.commit()


async def say(message: Message, text: str, **kwargs: object) -> None:
    """Answer as plain text: customer-supplied words never become markup."""
    await message.answer(text, parse_mode=None, **kwargs)  # type: ignore[arg-type]


REMOVE_KEYBOARD = ReplyKeyboardRemove()
