"""Which errors another try can fix, across the database, Redis and Telegram.

A transient fault (a database that is down, locked or slow, a frozen Redis, a
Telegram 5xx or 429 or network error, a handler timeout) earns the customer a
"we got your message" and another try later; anything else is a bug or a bad
request, answered with the apology and recorded as failed.
"""

from __future__ import annotations

from aiogram.exceptions import TelegramNetworkError, TelegramRetryAfter, TelegramServerError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import LockError as RedisLockError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

_TRANSIENT_SQLSTATE_PREFIXES = ("08", "53", "57", "55P03", "55000", "40001", "40P01", "3D000")
"""Connection lost, out of resources, canceled (statement_timeout) or shutting down, lock not
available (lock_timeout), database not accepting connections, serialization failure, deadlock,
database gone."""

_TRANSIENT = (
    TimeoutError,
    ConnectionError,
    OSError,
    PoolTimeoutError,
    OperationalError,
    InterfaceError,
    RedisConnectionError,
    RedisTimeoutError,
    RedisLockError,
    TelegramNetworkError,
    TelegramServerError,
    TelegramRetryAfter,
)


def is_transient(error: BaseException) -> bool:
    if isinstance(error, _TRANSIENT):
        return True
    if isinstance(error, DBAPIError):
        if error.connection_invalidated:
            return True
        state = str(getattr(error.orig, "sqlstate", "") or getattr(error.orig, "pgcode", "") or "")
        return state.startswith(_TRANSIENT_SQLSTATE_PREFIXES)
    return False
