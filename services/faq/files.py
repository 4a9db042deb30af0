"""The FAQ file format shops import and export: UTF-8 CSV, one row per entry and language.

Header `slug,language,question,answer,tags,examples`; `tags` and `examples` are
`|`-separated and may be empty. The whole file is checked before anything is
written, so a mistake on line 40 leaves the shop's FAQ as it was, and the error
names the line and the field.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping

from services.faq.entry import FaqDocument
from services.text.sentences import LANGUAGES, Language

COLUMNS = ("slug", "language", "question", "answer", "tags", "examples")
REQUIRED = ("slug", "language", "question", "answer")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,99}$")
MAX_QUESTION = 500
MAX_ANSWER = 4000


class FaqFileError(ValueError):
    """One clear line per problem for the shop: where, which field, what is wrong."""

    def __init__(self, *lines: str) -> None:
        self.lines = lines
        super().__init__("\n".join(lines))


MAX_REPORTED = 20
"""A file broken on every line says so in 20 lines (the shop files' limit)."""
_LANGUAGE_MISTAKES = {"kr": "ko", "kor": "ko", "jp": "ja", "jpn": "ja", "eng": "en", "us": "en", "uk": "en"}


def parse_faq_csv(data: bytes, *, source: str = "FAQ file") -> list[FaqDocument]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise FaqFileError(f"{source}: line {line}: not UTF-8 text (save the file as UTF-8 CSV)") from error
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise FaqFileError(f"{source}: the file is empty; expected the header {','.join(COLUMNS)}") from None
    header = [name.strip().lower() for name in header]
    missing = [name for name in REQUIRED if name not in header]
    unknown = [name for name in header if name not in COLUMNS]
    if missing or unknown or len(set(header)) != len(header):
        raise FaqFileError(
            f"{source}: line 1: the header must be {','.join(COLUMNS)}"
            + (f" (missing: {', '.join(missing)})" if missing else "")
            + (f" (unknown: {', '.join(unknown)})" if unknown else "")
        )
    rows: list[FaqDocument] = []
    problems: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    line = reader.line_num + 1
    try:
        for record in reader:
            start, line = line, reader.line_num + 1
            if not any(field.strip() for field in record):
                continue
            try:
                rows.append(_row(record, header, start, source, seen))
            except FaqFileError as error:
                problems.extend(error.lines)
    except csv.Error as error:
        problems.append(f"{source}: line {line}: {error}")
    if problems:
        more = len(problems) - MAX_REPORTED
        raise FaqFileError(
            *problems[:MAX_REPORTED], *([f"{source}: ... and {more} more problems"] if more > 0 else [])
        )
    if not rows:
        raise FaqFileError(f"{source}: no FAQ entries after the header")
    return rows


def _row(
    record: list[str], header: list[str], line: int, source: str, seen: dict[tuple[str, str], int]
) -> FaqDocument:
    where = f"{source}: line {line}"
    if len(record) != len(header):
        raise FaqFileError(
            f"{where}: expected {len(header)} fields ({','.join(header)}), found {len(record)} "
            "(quote fields that contain commas)"
        )
    values = {name: value.strip() for name, value in zip(header, record, strict=True)}
    row = check_faq_values(values, where=where)
    if (row.slug, row.language) in seen:
        raise FaqFileError(
            f"{where}: slug {row.slug!r} in language {row.language!r} "
            f"already on line {seen[row.slug, row.language]}"
        )
    seen[row.slug, row.language] = line
    return row


def check_faq_values(values: Mapping[str, str], *, where: str) -> FaqDocument:
    """One entry's fields checked as the import checks them (the console's form uses it too).

    `tags` and `examples` are `|`-separated as in the file; FaqFileError names the field."""
    values = {name: (values.get(name) or "").strip() for name in COLUMNS}
    for name in REQUIRED:
        if not values[name]:
            raise FaqFileError(f"{where}: field '{name}' is empty")
    slug, language = values["slug"], values["language"].lower()
    if not _SLUG.match(slug):
        raise FaqFileError(
            f"{where}: field 'slug' {slug!r} must be lower-case letters, digits, '-', '_' or '.'"
        )
    if Language.known(language) is None:
        suggestion = _LANGUAGE_MISTAKES.get(language)
        raise FaqFileError(
            f"{where}: field 'language' {values['language']!r} "
            + (
                f"is not a language code; use {suggestion!r}"
                if suggestion
                else f"must be one of {', '.join(LANGUAGES)}"
            )
        )
    if len(values["question"]) > MAX_QUESTION:
        raise FaqFileError(f"{where}: field 'question' is longer than {MAX_QUESTION} characters")
    if len(values["answer"]) > MAX_ANSWER:
        raise FaqFileError(f"{where}: field 'answer' is longer than {MAX_ANSWER} characters")
    return FaqDocument(
        slug=slug,
        language=language,
        question=values["question"],
        answer=values["answer"],
        tags=_split(values["tags"]),
        examples=_split(values["examples"]),
    )


def _split(value: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(part.strip() for part in value.split("|") if part.strip()))


def format_faq_csv(rows: Iterable[FaqDocument]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(
            [row.slug, row.language, row.question, row.answer, "|".join(row.tags), "|".join(row.examples)]
        )
    return out.getvalue()
