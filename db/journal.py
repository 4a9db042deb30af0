"""A local append-only journal for when the database does not answer.

One JSON object per line, fsync'd before `append` returns, so a record survives
a crash of the process or the machine. The inbox replays it into the database
when the database answers again; replay is idempotent (the inbox de-duplicates
by bot and update id), so a crash between replay and `discard` repeats nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = asyncio.Lock()
        self._end_torn_line()

    def _end_torn_line(self) -> None:
        """A crash mid-write leaves a line without its newline: end it, so the next record stays whole."""
        try:
            with self.path.open("rb") as journal:
                journal.seek(-1, os.SEEK_END)
                torn = journal.read(1) != b"\n"
        except (FileNotFoundError, OSError):
            return
        if torn:
            self._write(b"\n")

    async def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n"
        async with self._lock:
            await asyncio.to_thread(self._write, line.encode("ascii"))

    def _write(self, data: bytes) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)

    def pending(self) -> bool:
        try:
            return self.path.stat().st_size > 0
        except FileNotFoundError:
            return False

    async def read(self) -> tuple[list[dict[str, Any]], int]:
        """Every readable record, oldest first, and how many lines they came from (for `discard`).

        A torn line (a crash mid-write) is skipped with a log line.
        """
        async with self._lock:
            try:
                lines = (await asyncio.to_thread(self.path.read_bytes)).splitlines()
            except FileNotFoundError:
                return [], 0
        records = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except ValueError:
                logger.error(
                    "journal line unreadable, skipped", extra={"path": str(self.path), "line": number}
                )
        return records, len(lines)

    async def discard(self, count: int) -> None:
        """Drop the first `count` lines (replayed); records appended meanwhile stay."""
        async with self._lock:
            await asyncio.to_thread(self._drop_head, count)

    def _drop_head(self, count: int) -> None:
        try:
            lines = self.path.read_bytes().splitlines(keepends=True)
        except FileNotFoundError:
            return
        rest = b"".join(lines[count:])
        temporary = self.path.with_suffix(self.path.suffix + ".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(descriptor, rest)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, self.path)
