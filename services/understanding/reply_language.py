"""Which language to answer a message in.

A message's own script decides (services.text.normalize.detect_language), but a
message with no words in it, an order number sent after "which order do you
mean?", a "2", a 👍, has no script: it was answered in English even in a Korean
conversation. Such a message is answered in the language of the customer's last
message that had words, else in their Telegram app's language. Only wordless
messages pay for the one extra read.
"""

from __future__ import annotations

import re

from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import logs
from services.text.normalize import detect_language
from services.text.sentences import Language

_KNOWN_IDS = re.compile(r"(?<![^\W\d_])(sku|rma)[\s_-]?\d[A-Za-z0-9_-]*", re.IGNORECASE)
_CODES = re.compile(
    r"(?<![^\W\d_])[A-Z]{1,5}[_-]?\d[A-Za-z0-9_-]*"
    r"|(?<![^\W\d_])[A-Z0-9]+(?:-[A-Z0-9]+)+(?![A-Za-z0-9])"
)
"""SKU-7890, rma 20240001, A1234, STR-ROAD-M: ids that carry letters but no language ("order 12" has
words; a product code in capitals sent in a Korean chat was answered in English). A code is Latin
letters and digits only: "SKU-7890の在庫はありますか" keeps its Japanese words."""
_COMMAND = re.compile(r"^\s*/\w+(@\w+)?(\s.*)?$", re.DOTALL)
"""A command ("/return", "/help@csbot", "/canary candidate 100") says nothing of the customer's
language: in an English conversation "/return" was answered in Korean, the app's language. Its
arguments do not count either, so an admin command sent by a customer gets the unknown-command
reply in the very language "/no_such_command" would get (its existence is not revealed)."""
LOOK_BACK = 5
"""Messages looked at for one with words: a customer sending several numbers in a row is rare."""


def has_words(text: str) -> bool:
    text = _COMMAND.sub(" ", text)
    return any(character.isalpha() for character in _CODES.sub(" ", _KNOWN_IDS.sub(" ", text)))


async def reply_language(
    session: AsyncSession, text: str, *, user_id: int | None, chat_id: int, app_language: Language
) -> Language:
    """`app_language`: the customer's Telegram app's, for a wordless first message."""
    if has_words(text):
        return detect_language(text)
    if user_id is not None:
        for earlier in await logs.recent_texts_from(session, user_id, chat_id, limit=LOOK_BACK):
            if has_words(earlier):
                return detect_language(earlier)
    return app_language
