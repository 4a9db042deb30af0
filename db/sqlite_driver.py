"""SQLAlchemy's aiosqlite adapter with one thread hop per statement instead of three or four.

aiosqlite runs every call on the connection's own thread, and SQLAlchemy's adapter
makes one call per DBAPI step: open a cursor, execute, fetch, close. Each call is a
round trip to that thread (a queue put, a wake-up, a `call_soon_threadsafe` back),
and on these machines the hops, not SQLite, were most of what storing an update
cost (22 hops per update, about 20 us each before any contention). Here a statement
runs, fetches and closes its cursor in one call on the same thread. Commit and
rollback skip the hop when SQLite has no transaction open (Python's sqlite3 makes
them no-ops then anyway): the pool's rollback after every commit, and the rollback
of a session that only read, cost nothing.

With `inline_commits` (serving processes, whose commits never checkpoint: see
`db.wal_checkpoint`), a commit or rollback with nothing queued on the connection's thread
runs on the caller's thread instead, with no trip at all: in WAL mode at
`synchronous=NORMAL` a commit appends the transaction's pages to the log and releases
the write lock the transaction already holds. It never waits for a lock and never
fsyncs, so it takes microseconds, less than the trip (a queue put that wakes the thread,
14 us a call under cProfile in `bench.bot_overhead --profile`, and the loop's wake-up when
it is done). For the same reason a statement runs inline once its transaction holds the
write lock (an earlier write of the transaction took it, on the thread): in WAL mode
nothing it does can wait for another connection (the outcome of an update is an UPDATE
on the thread, then its outbound rows and the commit inline). The first write of a
transaction, and every read, still goes to the thread: taking the write lock may wait
for another writer, and a read may scan a table, and the event loop would wait with them.
A group commit's batch keeps its trips (`statements_on_the_thread`).

Same connection, same statements: only the number of trips changes.
Used by `db.engine.create_engine` for every `sqlite+aiosqlite` URL.
"""

from __future__ import annotations

import collections
import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.util import EMPTY_DICT
from sqlalchemy.util.concurrency import await_

_Outcome = tuple[Any, int, int | None, Sequence[Any]]
"""description, rowcount, lastrowid, rows."""

_statements_inline: ContextVar[bool] = ContextVar("statements_inline", default=True)


@contextlib.contextmanager
def statements_on_the_thread() -> Iterator[None]:
    """Within it, every statement goes to the connection's thread, even in a transaction that holds
    the write lock. For a group commit's batch: running a crowd's writes inline stored all 500
    updates of `bench.streaming_load` before the loop served their handlers, and every answer came
    0.8 s later (p95 17.1 -> 17.9 s, bound 17.46 s); the trips let the handlers run in between."""
    token = _statements_inline.set(False)
    try:
        yield
    finally:
        _statements_inline.reset(token)


def _run(
    driver: sqlite3.Connection,
    operation: str,
    parameters: Any,
    many: bool,
    running: set[object],
    token: object,
) -> _Outcome:
    """On the connection's thread (or inline, see above): execute, fetch everything, close the
    cursor; then take `token` off `running` (the call may outlive a cancelled caller)."""
    cursor = driver.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else ()
        return description, cursor.rowcount, cursor.lastrowid, rows
    finally:
        cursor.close()
        running.discard(token)


class OneHopCursor(AsyncAdapt_aiosqlite_cursor):
    """A buffered cursor: no driver cursor lives between calls, results are kept here."""

    __slots__ = ("_arraysize", "_description", "_lastrowid", "_rowcount")

    def __init__(self, adapt_connection: AsyncAdapt_aiosqlite_connection) -> None:
        # Not super().__init__: that opens a driver cursor (a hop) this class never uses.
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._soft_closed_memoized = EMPTY_DICT
        self._rows = collections.deque()
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None
        self._arraysize = 1

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> int:
        return self._lastrowid  # type: ignore[return-value]

    @property
    def arraysize(self) -> int:
        return self._arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._arraysize = value

    def setinputsizes(self, *inputsizes: Any) -> None:
        return None  # SQLite takes none

    def nextset(self) -> None:
        return None  # one statement, one result set

    async def _async_soft_close(self) -> None:
        return None  # the driver cursor was closed in the call that used it

    def close(self) -> None:
        self._rows.clear()

    async def _execute_async(self, operation: Any, parameters: Any) -> Any:
        return await self._one_hop(operation, parameters, many=False)

    async def _executemany_async(self, operation: Any, seq_of_parameters: Any) -> Any:
        return await self._one_hop(operation, seq_of_parameters, many=True)

    async def _one_hop(self, operation: str, parameters: Any, *, many: bool) -> None:
        adapted: OneHopConnection = self._adapt_connection  # type: ignore[assignment]
        writing = adapted._writing_driver() if _statements_inline.get() else None
        token = object()
        adapted._running.add(token)  # before the call is queued: see OneHopConnection._running
        if writing is not None:
            outcome: _Outcome = _run(writing, operation, parameters, many, adapted._running, token)
        else:
            async with adapted._execute_mutex:
                outcome = await self._connection._execute(
                    _run, self._connection._conn, operation, parameters, many, adapted._running, token
                )
            driver = self._connection._connection
            # In_transaction after a statement that succeeded: it was a write (Python's sqlite3
            # opens a transaction before a write only), which took the write lock for good.
            adapted._holds_write_lock = (
                adapted._inline_commits and driver is not None and driver.in_transaction
            )
        self._description, self._rowcount, self._lastrowid, rows = outcome
        self._rows = collections.deque(rows)


class OneHopConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ("_holds_write_lock", "_inline_commits", "_running")
    _cursor_cls = OneHopCursor  # type: ignore[assignment]

    def __init__(self, dbapi: Any, connection: Any, *, inline_commits: bool = False) -> None:
        super().__init__(dbapi, connection)
        self._inline_commits = inline_commits
        self._running: set[object] = set()
        """A statement queued or running on the connection's thread. A cancelled caller
        (a timeout, a shutdown) stops waiting, but its statement still runs there and may
        open a transaction after `in_transaction` was read: a rollback skipped then would
        leave that write open on a pooled connection. The thread takes each one off when it
        ends (a set: a cancelled one may still be queued when the next is added)."""
        self._holds_write_lock = False
        """A write of the open transaction succeeded (serving engines only): until the commit or
        rollback, its statements run inline."""

    def _quiet(self) -> sqlite3.Connection | None:
        """The driver connection when nothing is queued or running on its thread, else None."""
        driver: sqlite3.Connection | None = self._connection._connection
        if driver is None or self._running or self._execute_mutex.locked():
            return None
        return driver

    def _writing_driver(self) -> sqlite3.Connection | None:
        """The driver connection when a statement may run inline (see the module's docstring)."""
        if not self._holds_write_lock:
            return None
        driver = self._quiet()
        return driver if driver is not None and driver.in_transaction else None

    def rollback(self) -> None:
        self._holds_write_lock = False
        driver = self._quiet()
        if driver is None:
            super().rollback()
        elif driver.in_transaction:  # else a no-op on the thread: skipped
            if self._inline_commits:
                driver.rollback()
            else:
                super().rollback()

    def commit(self) -> None:
        self._holds_write_lock = False
        driver = self._quiet()
        if driver is None:
            super().commit()
        elif driver.in_transaction:  # else a no-op on the thread: skipped
            if self._inline_commits:
                driver.commit()
            else:
                super().commit()


class OneHopDBAPI(AsyncAdapt_aiosqlite_dbapi):
    def __init__(self, *, inline_commits: bool) -> None:
        super().__init__(aiosqlite, sqlite3)
        self.inline_commits = inline_commits

    def connect(self, *arg: Any, **kw: Any) -> OneHopConnection:
        creator_fn = kw.pop("async_creator_fn", None)
        if not creator_fn:
            kw["check_same_thread"] = False  # commits may run on the caller's thread (above)
        connection = creator_fn(*arg, **kw) if creator_fn else self.aiosqlite.connect(*arg, **kw)
        if not creator_fn:
            connection._thread.daemon = True  # as SQLAlchemy's adapter does: never blocks exit
        return OneHopConnection(self, await_(connection), inline_commits=self.inline_commits)


def one_hop_dbapi(*, inline_commits: bool = False) -> OneHopDBAPI:
    """The `module=` for `create_async_engine` on a `sqlite+aiosqlite` URL; `inline_commits`
    only where no commit checkpoints (`PRAGMA wal_autocheckpoint=0`)."""
    return OneHopDBAPI(inline_commits=inline_commits)
