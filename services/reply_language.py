"""Which language to answer a message in.

A message's own script decides (services.text_normalize.detect_language), but a
message with no words in it, an order number sent after "which order do you
mean?", a "2", a 👍, has no script: it was answered in English even in a Korean
conversation. Such a message is answered in the language of the customer's last
message that had words. Only wordless messages pay for the one extra read.
"""

from __future__ import annotations

import re

from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import logs
from services.text_normalize import detect_language

_CODES = re.compile(r"(?<![^\W\d_])[a-z]{1,5}[\s_-]?\d[\w-]*", re.IGNORECASE)
"""SKU-7890, RMA-20240001, A1234: ids that carry letters but no language."""
LOOK_BACK = 5
"""Messages looked at for one with words: a customer sending several numbers in a row is rare."""


def has_words(text: str) -> bool:
    return any(character.isalpha() for character in _CODES.sub(" ", text))


async def reply_language(session: AsyncSession, text: str, *, user_id: int | None, chat_id: int) -> str:
    if has_words(text) or user_id is None:
        return detect_language(text)
    for earlier in await logs.recent_texts_from(session, user_id, chat_id, limit=LOOK_BACK):
        if has_words(earlier):
            return detect_language(earlier)
    return detect_language(text)
