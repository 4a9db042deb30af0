"""Caches for the reads every update repeats: who this Telegram user is, and whether a person
is talking to them.

Every customer message asked the database both questions (the hand-off filter,
then the linked customer), though the answers change only when a customer links
their account or a hand-off opens or closes. Answers are kept per database
engine, and forgotten when those rows change: an ORM hook sees every flush of a
`Customer` or `HandoffSession`, whichever service wrote it, forgets the keys at
the flush and again at the commit, and a read that began before a change never
stores its (older) answer after it (a generation check). Other processes learn of
a change through `publish` (bot/cache_bus.py sends it over Redis); a time to live
bounds what a lost message could leave stale. Cached rows are handed out merged
into the caller's session without a query, so callers use them as loaded rows.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from weakref import WeakKeyDictionary

from sqlalchemy import event, inspect
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, make_transient_to_detached
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer, HandoffSession
from db.repositories import customers as customer_rows
from db.repositories import handoff as handoff_rows

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
M = TypeVar("M", bound=SQLModel)

DEFAULT_TTL_S = 30.0
DEFAULT_MAX_ENTRIES = 50_000
_PENDING = "csbot_cache_invalidations"


class _Missing:
    pass


MISSING = _Missing()


class KeyedCache(Generic[K, V]):
    """A bounded, expiring map whose `put` loses to any invalidation since the read began."""

    def __init__(
        self,
        *,
        ttl: float = DEFAULT_TTL_S,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._ttl = ttl
        self._max_entries = max_entries
        self._clock = clock
        self.generation = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: K) -> V | _Missing:
        entry = self._entries.get(key)
        if entry is None or self._clock() - entry[0] > self._ttl:
            self.misses += 1
            return MISSING
        self.hits += 1
        return entry[1]

    def put(self, key: K, value: V, *, generation: int) -> None:
        if generation != self.generation:
            return  # something changed while this value was read: it may be the old one
        self._entries[key] = (self._clock(), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)

    def invalidate(self, key: K) -> None:
        self.generation += 1
        self._entries.pop(key, None)

    def clear(self) -> None:
        self.generation += 1
        self._entries.clear()


@dataclass
class ReadCaches:
    customers: KeyedCache[int, Customer | None] = field(default_factory=KeyedCache)
    """The customer linked to a Telegram user id."""
    handoffs: KeyedCache[int, HandoffSession | None] = field(default_factory=KeyedCache)
    """The open hand-off of a customer's Telegram user id."""
    publish: Callable[[str, int], None] | None = None
    """Tells the other processes (cache name, key); set when they share the database."""

    def by_name(self, name: str) -> KeyedCache[int, Any] | None:
        caches: dict[str, KeyedCache[int, Any]] = {"customers": self.customers, "handoffs": self.handoffs}
        return caches.get(name)

    def invalidate(self, name: str, key: int, *, announce: bool = True) -> None:
        cache = self.by_name(name)
        if cache is not None:
            cache.invalidate(key)
        if announce and self.publish is not None:
            self.publish(name, key)


_BY_ENGINE: WeakKeyDictionary[Engine, ReadCaches] = WeakKeyDictionary()


def caches_for(engine: Engine) -> ReadCaches:
    caches = _BY_ENGINE.get(engine)
    if caches is None:
        caches = _BY_ENGINE[engine] = ReadCaches()
    return caches


def _caches_of(session: Session) -> ReadCaches | None:
    bind = session.bind
    engine = bind if isinstance(bind, Engine) else getattr(bind, "engine", None)
    return caches_for(engine) if isinstance(engine, Engine) else None


def read_caches(session: AsyncSession) -> ReadCaches | None:
    return _caches_of(session.sync_session)


def _detached_copy(row: M) -> M:
    """A copy no session owns, to hand out by `merge(load=False)` (no query, no shared state)."""
    copy = type(row)(**{attr.key: getattr(row, attr.key) for attr in inspect(type(row)).column_attrs})
    make_transient_to_detached(copy)
    return copy


async def _cached_row(
    session: AsyncSession, cache: KeyedCache[int, M | None], key: int, load: Callable[[], Awaitable[M | None]]
) -> M | None:
    cached = cache.get(key)
    if not isinstance(cached, _Missing):
        return None if cached is None else await session.merge(cached, load=False)
    generation = cache.generation
    row = await load()
    cache.put(key, None if row is None else _detached_copy(row), generation=generation)
    return row


async def linked_customer(session: AsyncSession, telegram_user_id: int) -> Customer | None:
    caches = read_caches(session)
    if caches is None:
        return await customer_rows.by_telegram_user(session, telegram_user_id)
    return await _cached_row(
        session,
        caches.customers,
        telegram_user_id,
        lambda: customer_rows.by_telegram_user(session, telegram_user_id),
    )


async def open_handoff(session: AsyncSession, user_id: int) -> HandoffSession | None:
    caches = read_caches(session)
    if caches is None:
        return await handoff_rows.open_session_for(session, user_id)
    return await _cached_row(
        session, caches.handoffs, user_id, lambda: handoff_rows.open_session_for(session, user_id)
    )


async def has_open_handoff(session: AsyncSession, user_id: int) -> bool:
    """Whether a person is talking to this customer: the question every message asks first,
    answered without handing out (merging) the row when it is cached."""
    caches = read_caches(session)
    cached = caches.handoffs.get(user_id) if caches is not None else MISSING
    if not isinstance(cached, _Missing):
        return cached is not None
    return await open_handoff(session, user_id) is not None


def _changed_keys(session: Session) -> set[tuple[str, int]]:
    keys: set[tuple[str, int]] = set()
    for row in (*session.new, *session.dirty, *session.deleted):
        if isinstance(row, Customer):
            attribute, name = "telegram_user_id", "customers"
        elif isinstance(row, HandoffSession):
            attribute, name = "customer_user_id", "handoffs"
        else:
            continue
        history = inspect(row).attrs[attribute].history
        for value in (*history.added, *history.deleted, *history.unchanged):
            if isinstance(value, int):
                keys.add((name, value))
    return keys


@event.listens_for(Session, "after_flush")
def _forget_at_flush(session: Session, _context: Any) -> None:
    keys = _changed_keys(session)
    if not keys:
        return
    caches = _caches_of(session)
    if caches is None:
        return
    session.info.setdefault(_PENDING, set()).update(keys)
    for name, key in keys:
        caches.invalidate(name, key, announce=False)


@event.listens_for(Session, "after_commit")
def _forget_at_commit(session: Session) -> None:
    """Again once committed: a read between the flush and the commit saw the old row."""
    keys = session.info.pop(_PENDING, None)
    caches = _caches_of(session) if keys else None
    if caches is None or not keys:
        return
    for name, key in keys:
        caches.invalidate(name, key)


@event.listens_for(Session, "after_rollback")
def _nothing_changed(session: Session) -> None:
    session.info.pop(_PENDING, None)
