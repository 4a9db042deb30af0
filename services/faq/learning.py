"""Learning from the shop's customers: a confirmed pairing of a question with an entry becomes one
of the entry's examples.

A customer who was offered entries beside an unsure "I'm not sure" and tapped one has said which
entry answers their question; their question is filed under it (`learn_from_choice`), on the
entry's row in the question's language. The FAQ's digest changes, every instance's index reloads
(services/faq/store.py `FaqRefresher`), and the next customer asking it that way meets one of the
entry's own phrasings: the exact words are answered outright (`FaqMatcher`'s own phrasings), close
paraphrases of a short one move the calibration's similarity and the second look's paraphrase evidence
(a long message counts as words and as its own words only: `services.faq.entry.meaning_phrasings`).
`csbot eval --learn 0.5` measures what filing a shop's questions gives back
(services/faq/evaluation.py `learning_curve`); `csbot export faq` shows what was learnt in the
`examples` column, where the shop can remove a pairing it disagrees with.
"""

from __future__ import annotations

import logging
import re

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import faq as faq_repository
from db.repositories import logs as log_repository
from services.faq.entry import FaqDocument, with_example
from services.faq.store import documents
from services.text.normalize import detect_language
from services.understanding.understand import Route

logger = logging.getLogger(__name__)

PERSONAL = re.compile(r"\d[\d\s-]{4,}\d|[^\s@]+@[^\s@]+\.\w+")
"""An order or phone number, or an e-mail address: a question carrying one is not filed (the FAQ is
the shop's text, shown to staff and exported; a customer's personal data stays in their log)."""


async def learn_from_choice(session: AsyncSession, *, user_id: int, chat_id: int, slug: str) -> str | None:
    """File the question the customer was offered `slug` for as one of its examples; the question
    filed, or None when there is none to file (no such question among their last messages, it
    carries personal data or asked for a person, the entry is gone, or it already has that
    phrasing)."""
    try:
        asked = await log_repository.question_offered(session, user_id=user_id, chat_id=chat_id, slug=slug)
        if asked is None or not asked.text.strip() or PERSONAL.search(asked.text):
            return None
        if (asked.entities or {}).get("route") == Route.HANDOFF.value:
            # Offered while waiting for a person: filed, the request itself would be answered with
            # the entry next time instead of reaching anyone.
            return None
        return await file_example(session, slug=slug, text=asked.text)
    except SQLAlchemyError as error:  # the customer has their answer; learning waits for the next tap
        await session.rollback()
        logger.warning("FAQ example not learnt", extra={"slug": slug, "error": type(error).__name__})
        return None


async def file_example(session: AsyncSession, *, slug: str, text: str) -> str | None:
    """`text` as one more example of the entry `slug`, committed; None when nothing changed."""
    rows = await faq_repository.entries_of(session, slug=slug)
    if not rows:
        return None
    before: list[FaqDocument] = documents(rows)
    after = with_example(before, slug, text, detect_language(text))
    changed = [(row, new) for row, old, new in zip(rows, before, after, strict=True) if new != old]
    if not changed:
        return None
    for stored, new in changed:
        stored.examples = new.stored_examples
        session.add(stored)
    await session.commit()
    learnt = changed[0][1]
    logger.info("FAQ example learnt", extra={"slug": slug, "language": learnt.language})
    return learnt.examples[-1]
