"""FAQ entries edited in the console, checked exactly as `csbot import faq` checks a file."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import FaqEntry
from db.repositories import faq as faq_repository
from services.console.auth import audit
from services.faq.files import FaqFileError, check_faq_values
from services.faq.store import entry_values
from services.text.normalize import detect_language
from services.understanding.reply_language import has_words


@dataclass(frozen=True)
class FaqForm:
    """The form's fields as typed: tags comma-separated, examples one per line."""

    slug: str = ""
    language: str = ""
    question: str = ""
    answer: str = ""
    tags: str = ""
    examples: str = ""

    @classmethod
    def of(cls, entry: FaqEntry) -> FaqForm:
        return cls(entry.slug, entry.language, entry.question, entry.answer, entry.tags, entry.examples)

    @classmethod
    def for_question(cls, question: str) -> FaqForm:
        """A new entry for a question customers asked and the bot could not answer."""
        question = " ".join(question.split())[:500]
        return cls(language=detect_language(question), question=question)


async def list_entries(session: AsyncSession, query: str = "") -> list[FaqEntry]:
    if query.strip():
        return await faq_repository.entries_containing(session, text=query.strip()[:200])
    return list(await faq_repository.all_entries(session))


async def find_entry(session: AsyncSession, entry_id: int) -> FaqEntry | None:
    return await session.get(FaqEntry, entry_id)


class LanguageMismatch(FaqFileError):
    """The answer is written in another language than the entry's: customers asking in the entry's
    language would get it. Saved only when the admin saves again (`keep_language`)."""


async def delete_entry(session: AsyncSession, entry_id: int, *, admin_id: int) -> FaqEntry | None:
    """Delete one language row of an entry, audited with what it said; None if it is gone."""
    existing = await session.get(FaqEntry, entry_id)
    if existing is None:
        return None
    before = asdict(FaqForm.of(existing))
    await faq_repository.delete_entry(session, entry_id=entry_id)
    await audit(
        session, admin_id, "faq_deleted", f"faq:{existing.slug}/{existing.language}", {"before": before}
    )
    await session.commit()
    return existing


async def save_entry(
    session: AsyncSession,
    form: FaqForm,
    *,
    admin_id: int,
    entry_id: int | None = None,
    keep_language: bool = False,
) -> FaqEntry:
    """Add (no `entry_id`) or change one entry; FaqFileError with the import's wording when invalid.

    An edit keeps the entry's slug and language: they are what the bot and other languages' copies
    know it by, so renaming is a new entry."""
    existing = await session.get(FaqEntry, entry_id) if entry_id is not None else None
    if entry_id is not None and existing is None:
        raise FaqFileError(f"FAQ entry #{entry_id} no longer exists")
    if existing is not None:
        form = FaqForm(existing.slug, existing.language, form.question, form.answer, form.tags, form.examples)
    row = check_faq_values(
        {
            "slug": form.slug,
            "language": form.language,
            "question": form.question,
            "answer": form.answer,
            "tags": "|".join(part for part in form.tags.replace("|", ",").split(",")),
            "examples": "|".join(form.examples.replace("|", "\n").splitlines()),
        },
        where="FAQ entry",
    )
    written_in = detect_language(row.answer)
    if written_in != row.language and has_words(row.answer) and not keep_language:
        raise LanguageMismatch(
            f"FAQ entry: the answer reads as {written_in}, but the entry is {row.language}: customers "
            f"asking in {row.language} would get it. Save again to keep it, or fix the language."
        )
    if existing is None:
        taken = await faq_repository.entry_id_by_key(session, slug=row.slug, language=row.language)
        if taken is not None:
            raise FaqFileError(
                f"FAQ entry: slug {row.slug!r} in language {row.language!r} exists already (edit that one)"
            )
    before = asdict(FaqForm.of(existing)) if existing is not None else None
    await faq_repository.upsert_entries(session, [entry_values(row)], replace=False)
    saved = await faq_repository.entry_by_key(session, slug=row.slug, language=row.language)
    await audit(
        session,
        admin_id,
        "faq_edited" if existing is not None else "faq_added",
        f"faq:{row.slug}/{row.language}",
        {"before": before, "after": asdict(FaqForm.of(saved))},
    )
    await session.commit()
    return saved
