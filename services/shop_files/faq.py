"""faq.csv: `question,answer` and optionally `slug,language,tags`.

Entries are keyed by (slug, language): the same slug in Korean and English is one entry
in two languages. Without a slug the entry is keyed by its question, so re-importing the
same file changes nothing, but an edited question becomes a new entry; give slugs to edit
entries in place.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from services.shop_files.problems import ProblemCollector, read_text
from services.text_normalize import detect_language

REQUIRED = ("question", "answer")
OPTIONAL = ("slug", "language", "tags")
COLUMNS = ("slug", "language", "question", "answer", "tags")
LANGUAGES = ("ko", "en", "ja")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True)
class FaqRecord:
    slug: str
    language: str
    question: str
    answer: str
    tags: tuple[str, ...] = ()
    line: int = field(default=0, compare=False)


def _default_slug(question: str) -> str:
    return "q-" + hashlib.sha1(question.encode(), usedforsecurity=False).hexdigest()[:10]


def read_faq(path: str | Path) -> tuple[list[FaqRecord], list[str]]:
    problems = ProblemCollector(path)
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    header = [name.strip().lower() for name in reader.fieldnames or []]
    reader.fieldnames = header
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        problems.add(1, "", f"missing column{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
        problems.raise_if_any()
    ignored = [name for name in header if name and name not in REQUIRED + OPTIONAL]
    records: list[FaqRecord] = []
    seen: dict[tuple[str, str], int] = {}
    for row in reader:
        line = reader.line_num
        if None in row:
            problems.add(line, "", "more values than columns")
            continue

        def value(name: str, row: dict[str, str | None] = row) -> str:
            return (row.get(name) or "").strip()

        before = problems.count
        question, answer = value("question"), value("answer")
        if not question:
            problems.add(line, "question", "empty")
        if not answer:
            problems.add(line, "answer", "empty")
        language = value("language").lower() or detect_language(question)
        if language not in LANGUAGES:
            problems.add(line, "language", f"{value('language')!r} is not one of {', '.join(LANGUAGES)}")
        slug = value("slug").lower() or _default_slug(question)
        if not _SLUG.match(slug):
            problems.add(line, "slug", f"{value('slug')!r}: use lower-case letters, digits, - and _")
        if problems.count > before:
            continue
        if (slug, language) in seen:
            problems.add(line, "slug", f"{slug!r} in {language} already on line {seen[slug, language]}")
            continue
        seen[slug, language] = line
        tags = tuple(tag.strip() for tag in value("tags").split(",") if tag.strip())
        records.append(FaqRecord(slug, language, question, answer, tags, line))
    problems.raise_if_any()
    return records, ignored


def write_faq(records: Iterable[FaqRecord], out: io.TextIOBase | io.StringIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in records:
        writer.writerow([r.slug, r.language, r.question, r.answer, ",".join(r.tags)])
