"""A local append-only journal for when the database does not answer.

One record a line: `<crc32 of the JSON, 8 hex digits> <JSON>` (plain JSON lines, as
older versions wrote them, are read too). The inbox replays the journal into the
database when the database answers again; replay is idempotent (the inbox
de-duplicates by bot and update id), so a crash between replay and `discard`
repeats nothing.

What an append promises:

- It returns only once the whole record is on disk: every byte written (a short
  write is continued), the file fsync'd, and its directory fsync'd when the file was
  created. Otherwise it raises `JournalWriteError` and the file is cut back to its
  size before the append, so no torn bytes of a refused record remain.
- Every record starts on a fresh line (after a file that does not end in a newline
  a newline comes first), so a record torn by a crash damages only itself: its
  checksum or its JSON fails, and `read` returns it as unreadable, with the reason.

Several processes may share one journal file (two instances started in one
directory): append, read, discard and quarantine take an OS lock (`flock` on
`<journal>.lock`, a separate file, because `discard` replaces the journal) besides
this process's asyncio lock. `discard` drops exactly the bytes `read` returned, and
nothing when another process discarded in between (those records are read and
replayed again: harmless, replay is idempotent).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import json
import logging
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

_GENERATION_WIDTH = 20
"""The lock file holds the discard generation, zero-padded: rewritten in place, never longer."""


class JournalWriteError(OSError):
    """An append (or a quarantine) did not reach the disk whole: the disk is full, the file too
    large, the device failing. Nothing of the record is left in the file."""


@dataclass(frozen=True)
class Entry:
    """One line of the journal as `read` found it."""

    record: dict[str, Any] | None
    """The record; None when the line is unreadable (see `problem`)."""
    line: bytes
    """The line as stored, without its newline."""
    end: int
    """The byte offset just past the line: `discard(batch, through=entry.end)` drops it and all before."""
    problem: str | None = None
    """Why the line is unreadable: a checksum mismatch (a torn or damaged record), unparseable JSON."""


@dataclass(frozen=True)
class Batch:
    """What one `read` returned: the entries, oldest first, and where they end."""

    entries: list[Entry]
    end: int
    generation: int
    """The discard generation at the read: a discard by anyone since means the head moved."""


def encode(record: dict[str, Any]) -> bytes:
    """A record as the journal stores it: checksum, space, ASCII JSON, newline."""
    body = json.dumps(record, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return b"%08x %s\n" % (zlib.crc32(body), body)


def decode(line: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """The record of a line (without its newline), or None and why it is unreadable."""
    body = line
    if not line.startswith(b"{"):  # plain JSON lines are what older versions wrote
        checksum, space, body = line.partition(b" ")
        if not space or len(checksum) != 8:
            return None, "no checksum: a torn or damaged record"
        try:
            expected = int(checksum, 16)
        except ValueError:
            return None, "no checksum: a torn or damaged record"
        if zlib.crc32(body) != expected:
            return None, "checksum mismatch: a torn or damaged record"
    try:
        record = json.loads(body)
    except ValueError:
        return None, "unparseable JSON: a torn or damaged record"
    if not isinstance(record, dict):
        return None, "not a JSON object"
    return record, None


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock_path = path.with_name(path.name + ".lock")
        self.quarantine_path = path.with_name(path.name + ".quarantine")
        """Records replay could not write for a data reason: one JSON line each, with the reason."""
        self._lock = asyncio.Lock()
        self.refusal: str | None = None
        """Why the last append failed, until an append (or `check`) succeeds again."""

    # --- appending --------------------------------------------------------------------------

    async def append(self, record: dict[str, Any]) -> None:
        """Append one record, on disk when this returns; `JournalWriteError` when it is not."""
        data = encode(record)
        async with self._lock:
            try:
                await asyncio.to_thread(self._locked, _append_whole, self.path, data)
            except OSError as error:  # the lock's own failures too: whatever it is, a refusal
                self.refusal = error.strerror or str(error)
                if isinstance(error, JournalWriteError):
                    raise
                raise JournalWriteError(error.errno, self.refusal) from error
            self.refusal = None

    async def check(self) -> str | None:
        """After a refused append: whether the journal's disk takes writes again (a small probe
        file, written, fsync'd and removed). Clears `refusal` when it does; the refusal otherwise."""
        if self.refusal is None:
            return None
        probe = self.path.with_name(self.path.name + ".probe")
        try:
            await asyncio.to_thread(_probe, probe)
        except OSError as error:
            self.refusal = error.strerror or str(error)
            return self.refusal
        self.refusal = None
        return None

    def require_writable(self) -> None:
        """At start: the journal's folder takes a write (a probe file, removed), so a path that
        matters only once the database is down is not found unwritable then. OSError otherwise."""
        _probe(self.path.with_name(self.path.name + ".probe"))

    def pending(self) -> bool:
        try:
            return self.path.stat().st_size > 0
        except FileNotFoundError:
            return False

    # --- reading and discarding -------------------------------------------------------------

    async def read(self) -> Batch:
        """Every line, oldest first, each readable or with the reason it is not (a torn or
        damaged record); `discard` drops them once replayed."""
        async with self._lock:
            return await asyncio.to_thread(self._locked, self._read)

    def _read(self, lock: int) -> Batch:
        generation = _generation(lock)
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return Batch([], 0, generation)
        entries = []
        start = 0
        while start < len(data):
            newline = data.find(b"\n", start)
            end = len(data) if newline < 0 else newline + 1
            line = data[start:end].rstrip(b"\n")
            start = end
            if not line.strip():
                continue
            record, problem = decode(line)
            if record is not None and newline < 0:
                # Whole (the checksum says so) but for its newline: kept; the next append adds one.
                logger.warning("journal: the last record has no newline", extra={"path": str(self.path)})
            entries.append(Entry(record, line, end, problem))
        return Batch(entries, len(data), generation)

    async def discard(self, batch: Batch, *, through: int | None = None) -> bool:
        """Drop what `batch` read, up to the byte offset `through` (an entry's `end`; all of it by
        default). Records appended since stay, in order. False when another process discarded
        since the read: nothing is dropped then (what it did not take is read again)."""
        end = batch.end if through is None else through
        if end <= 0:
            return True
        async with self._lock:
            return await asyncio.to_thread(self._locked, self._drop_head, batch.generation, end)

    def _drop_head(self, lock: int, generation: int, end: int) -> bool:
        if _generation(lock) != generation:
            logger.info("journal: discarded by another process meanwhile", extra={"path": str(self.path)})
            return False
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return False
        rest = data[end:]
        if not rest:
            # Nothing after: cut in place (no space needed, which matters on a full disk).
            with _opened(self.path, os.O_WRONLY) as descriptor:
                os.ftruncate(descriptor, 0)
                os.fsync(descriptor)
        else:
            temporary = self.path.with_name(self.path.name + ".tmp")
            try:
                with _opened(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC) as descriptor:
                    _write_all(descriptor, rest)
                    os.fsync(descriptor)
                os.replace(temporary, self.path)
            except OSError:
                with contextlib.suppress(OSError):
                    temporary.unlink()
                raise
            _fsync_directory(self.path.parent)
        os.pwrite(lock, b"%0*d" % (_GENERATION_WIDTH, generation + 1), 0)
        return True

    async def quarantine(self, entry: Entry, reason: str) -> None:
        """Keep a record replay cannot write (for a data reason) in `<journal>.quarantine`, one
        JSON line with the reason and the original line; on disk when this returns. The caller
        then discards it from the journal (a crash, or another process's discard, in between
        means it is quarantined again on the next replay: a second line for one record)."""
        line = json.dumps(
            {
                "quarantined_at": datetime.now(UTC).isoformat(),
                "reason": reason,
                "line": entry.line.decode("ascii", "backslashreplace"),
            },
            ensure_ascii=True,
        )
        async with self._lock:
            await asyncio.to_thread(
                self._locked, _append_whole, self.quarantine_path, (line + "\n").encode("ascii")
            )

    # --- the OS lock ------------------------------------------------------------------------

    def _locked(self, work: Any, *args: Any) -> Any:
        """`work(lock, *args)` holding the OS lock that every process on this journal takes;
        `lock` is the lock file's descriptor (the file holds the discard generation)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise JournalWriteError(error.errno, f"cannot open {self.lock_path}: {error.strerror}") from error
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            return work(descriptor, *args)
        finally:
            os.close(descriptor)  # releases the lock


def _generation(lock: int) -> int:
    text = os.pread(lock, _GENERATION_WIDTH, 0)
    return int(text) if text.strip() else 0


def _append_whole(_lock: int, path: Path, data: bytes) -> None:
    """Append `data` whole and fsync'd, or raise `JournalWriteError` with the file cut back."""
    created = not path.exists()
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError as error:
        raise JournalWriteError(error.errno, f"cannot open {path}: {error.strerror}") from error
    try:
        size = os.fstat(descriptor).st_size
        try:
            if size and os.pread(descriptor, 1, size - 1) != b"\n":
                data = b"\n" + data  # a torn line before: this record starts on its own line
            _write_all(descriptor, data)
            os.fsync(descriptor)
            if created:
                _fsync_directory(path.parent)
        except OSError as error:
            _cut_back(descriptor, size, path)
            raise JournalWriteError(
                error.errno, f"{error.strerror or error} (nothing of the record was kept)"
            ) from error
    except OSError as error:
        if isinstance(error, JournalWriteError):
            raise
        raise JournalWriteError(error.errno, f"{path}: {error.strerror or error}") from error
    finally:
        os.close(descriptor)


def _write_all(descriptor: int, data: bytes) -> None:
    """Every byte, or an OSError: `os.write` may write part (a nearly full disk, a file size limit)."""
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def _cut_back(descriptor: int, size: int, path: Path) -> None:
    try:
        os.ftruncate(descriptor, size)
        os.fsync(descriptor)
    except OSError as error:  # the checksum still marks whatever is left as torn
        logger.error(
            "journal: a failed append could not be cut back; its torn bytes are refused on replay",
            extra={"path": str(path), "error": f"{error}"},
        )


def _fsync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def _opened(path: Path, flags: int) -> Iterator[int]:
    descriptor = os.open(path, flags, 0o600)
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def _probe(path: Path) -> None:
    try:
        with _opened(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC) as descriptor:
            _write_all(descriptor, b"\n" * 4096)
            os.fsync(descriptor)
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
