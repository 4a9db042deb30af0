"""A malformed file is reported by line and field, and nothing of it is imported."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_REPORTED = 20
"""A file broken on every line says so in 20 lines, not 100,000."""


@dataclass(frozen=True)
class RowProblem:
    line: int
    field: str
    message: str

    def render(self, path: str | Path) -> str:
        where = f"{path}:{self.line}" if self.line else str(path)
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class FileProblems(Exception):
    """Every problem found in one file (up to MAX_REPORTED), in line order."""

    def __init__(self, path: str | Path, problems: list[RowProblem], more: int = 0) -> None:
        self.path = path
        self.problems = problems
        self.more = more
        super().__init__(self.render())

    def render(self) -> str:
        lines = [problem.render(self.path) for problem in sorted(self.problems, key=lambda p: p.line)]
        if self.more:
            lines.append(f"{self.path}: ... and {self.more} more problems")
        return "\n".join(lines)


class ProblemCollector:
    """Collects problems while a whole file is read, so the owner fixes them in one go.

    A `whole` collector is shared by the reading of a file and its comparison with the database
    (`csbot import`): each step goes on past its problems and the caller raises once at the end,
    so a file's row problems and its conflicts with stored data are reported together."""

    def __init__(self, path: str | Path, *, whole: bool = False) -> None:
        self.path = path
        self.problems: list[RowProblem] = []
        self.count = 0
        self.whole = whole

    def add(self, line: int, field: str, message: str) -> None:
        self.count += 1
        if len(self.problems) < MAX_REPORTED:
            self.problems.append(RowProblem(line, field, message))

    def raise_if_any(self) -> None:
        """At the end of one step: raises unless the caller collects the whole file's problems."""
        if not self.whole:
            self.finish()

    def finish(self) -> None:
        """Raises FileProblems with everything collected, if anything was."""
        if self.count:
            raise FileProblems(self.path, self.problems, self.count - len(self.problems))


def read_text(path: str | Path) -> str:
    """UTF-8 (a BOM from Excel is fine); anything else is named with the line it breaks on."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise FileProblems(path, [RowProblem(line, "", "not UTF-8 text (save the file as UTF-8)")]) from None


@dataclass(frozen=True)
class CsvTable:
    """A CSV file's rows with lower-cased column names, once its required columns are there."""

    rows: csv.DictReader[str]
    ignored: list[str]
    """Columns csbot does not use (reported, not an error)."""
    given: frozenset[str]
    """Optional columns the file has: those it lacks leave stored values alone."""


_DELIMITERS = {";": "semicolons", "\t": "tabs", "|": "'|'"}
"""What a spreadsheet saved in another locale separates columns with (Excel in much of Europe
writes `;`); a file whose header splits into the columns at one of them is read with it."""


def _delimiter(text: str, required: Sequence[str]) -> str:
    first = text.split("\n", 1)[0]
    for delimiter in _DELIMITERS:
        names = {name.strip().lower() for name in first.split(delimiter)}
        if delimiter in first and all(name in names for name in required):
            return delimiter
    return ","


def open_csv(
    path: str | Path, required: Sequence[str], optional: Sequence[str], problems: ProblemCollector
) -> CsvTable:
    text = read_text(path)
    delimiter = _delimiter(text, required)
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = [name.strip().lower() for name in reader.fieldnames or []]
    reader.fieldnames = header
    missing = [name for name in required if name not in header]
    if missing:
        first = text.split("\n", 1)[0]
        named = [(mark, name) for mark, name in _DELIMITERS.items() if mark in first and "," not in first]
        if named:
            header = [name.strip().lower() for name in first.split(named[0][0])]
            missing = [name for name in required if name not in header]
        problems.add(
            1,
            "",
            f"missing column{'s' if len(missing) > 1 else ''}: {', '.join(missing)}"
            + (f" (the header is separated by {named[0][1]}; csbot reads commas)" if named else ""),
        )
        problems.finish()
    known = (*required, *optional)
    return CsvTable(
        reader,
        [name for name in header if name and name not in known],
        frozenset(name for name in optional if name in header),
    )
