"""The durable inbox: every update is stored before it is handled, and nothing stored is forgotten.

`receive` stores an update (or, when the database does not answer, journals it
to a local file; when the journal refuses it too, it raises `NotStored`: the
update is not ours yet, Telegram keeps it); `due` hands back updates that were
stored but never answered (a crash, a shutdown past its deadline, a fault worth
another try) so they are handled again from their raw JSON; `close` records how
handling ended, through the journal when the database is down at that moment.
Claims are leases in the database, so several processes on one database never
handle one update twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Any, Protocol

from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, SQLAlchemyError, StatementError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from db.core_rows import column_values
from db.group_commit import GroupCommit
from db.journal import Entry, Journal, JournalWriteError
from db.models import InboundMessage, InboundStatus, OutboundMessage
from db.repositories import inbox as rows
from db.types import utcnow
from db.writer_turns import WriterTurns
from services.admin.conversation_log import (
    Interaction,
    Outcome,
    SentMessage,
    delivery_mark,
    outcome_record,
    write_outcome,
)
from services.llm.speculative import ReplyReport
from services.text.sanitize import storable

logger = logging.getLogger(__name__)

DEFER_SECONDS = 0.5
MARK_WAIT_S = 0.25
"""A delivery mark that cannot start this fast (other marks, SQLite's writer ahead of it) goes to
the journal instead (a local append): the window in which a crash repeats a delivered reply stays
short however busy the database is."""
REPLAY_RETRY_S = 1.0
"""While the journal holds records the database did not take yet, a new update tries to replay it
first at most this often; in between it is journaled behind them."""

SERVER_WRITERS = 4
"""Inbox transactions at once on a server database (SQLite takes one writer at a time): several
connections overlap their round trips, which one writer at a time cannot on a remote server."""
STORAGE_ERRORS: tuple[type[BaseException], ...] = (SQLAlchemyError, OSError, TimeoutError)
"""What a database that is down, locked or slow raises through SQLAlchemy and its drivers."""
DATA_SQLSTATE_CLASSES = ("22", "23")
"""PostgreSQL's sqlstate classes of a statement's data at fault: data exception, integrity violation."""


class NotStored(Exception):
    """Neither the database nor the local journal took the update: it is not ours yet. The
    webhook answers 5xx and polling does not confirm it, so Telegram delivers it again."""


class Receipt(Enum):
    DUPLICATE = "duplicate"
    """This bot stored this update id before: Telegram delivered it again."""
    JOURNALED = "journaled"
    """The database did not answer: the update is in the local journal, to be handled on replay."""
    WAITING = "waiting"
    """Stored, not handled now: another process of this bot still holds journaled updates, which
    may include this chat's earlier messages. The inbox worker takes it once they are replayed."""


@dataclass(frozen=True)
class Arrival:
    """What the inbox keeps of an update; built by the Telegram layer."""

    bot_id: int
    update_id: int
    user_id: int | None
    chat_id: int | None
    kind: str
    text: str
    raw: str
    """The update as ASCII-escaped JSON: lossless, and storable on every backend."""

    def values(self, *, lease_until: datetime | None, attempts: int) -> dict[str, Any]:
        """The row's column values (the model's defaults included), for a Core insert."""
        return column_values(
            InboundMessage,
            {
                "bot_id": self.bot_id,
                "update_id": self.update_id,
                "telegram_user_id": self.user_id,
                "chat_id": self.chat_id,
                "kind": self.kind,
                "text": storable(self.text),
                "raw_update": self.raw,
                "status": InboundStatus.RECEIVED,
                "lease_until": lease_until,
                "attempts": attempts,
            },
        )

    def row(self, *, lease_until: datetime | None, attempts: int) -> InboundMessage:
        return InboundMessage(**self.values(lease_until=lease_until, attempts=attempts))


class JournalPeers(Protocol):
    """What a bot's processes tell each other about their journals (through a store they share):
    a process holding journaled updates may hold a chat's earlier messages, which must reach the
    inbox before a later one stored directly elsewhere is answered. Every method answers within
    a short bound and never raises: when the shared store is down, `others_holding` is False."""

    async def holding(self) -> None:
        """This process holds journaled updates (called again while they wait, to stay current)."""
        ...

    async def released(self) -> None:
        """This process's journal is replayed."""
        ...

    async def others_holding(self) -> bool:
        """Whether another process of this bot holds journaled updates right now."""
        ...


class NoPeers:
    """One process (polling, or a lone webhook): no other journal to wait for."""

    async def holding(self) -> None:
        return None

    async def released(self) -> None:
        return None

    async def others_holding(self) -> bool:
        return False


@dataclass(frozen=True)
class Stored:
    """What storing an update gave: the row (or why there is none) and, when `checked`, the
    earliest unanswered earlier update of its chat, read in the same round trip."""

    receipt: InboundMessage | Receipt
    earlier: int | None = None
    checked: bool = False


@dataclass(frozen=True)
class InboxPolicy:
    lease: timedelta = timedelta(seconds=90)
    """Longer than handling may take (the per-update timeout plus a margin)."""
    max_attempts: int = 5
    max_age: timedelta = timedelta(hours=24)
    """Older unanswered updates are abandoned for an admin: an answer a day late helps nobody."""
    redelivery: timedelta = timedelta(hours=24)
    """Telegram re-delivers an unconfirmed update for up to a day: an update id stored longer ago
    than this is a new update that reuses the id (Telegram picks ids anew after a week without
    updates), not a re-delivery."""
    replay_settle: timedelta = timedelta(0)
    """How long an update replayed from the journal waits before it is handled: longer than an
    inbox worker's pass where several processes share the database (each replays its own
    journal), so a chat's updates from two journals are taken in Telegram's order."""
    retry_base: float = 2.0
    """After a transient fault the next try waits retry_base * 2**(attempt - 1) seconds (at most 60)."""

    def retry_delay(self, attempt: int) -> float:
        return min(60.0, self.retry_base * 2.0 ** max(0, attempt - 1))


class Inbox:
    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        journal: Journal,
        policy: InboxPolicy | None = None,
        *,
        marks: async_sessionmaker[AsyncSession] | None = None,
        peers: JournalPeers | None = None,
    ) -> None:
        self._session_factory = session_factory
        self.peers: JournalPeers = peers or NoPeers()
        self._marks = marks or session_factory
        """Sessions for delivery marks: a connection of their own in a serving process, so a mark
        never waits for the pool that every handler's session draws from."""
        self._marking = asyncio.Lock()
        self._marks_closed = False
        self.unrecorded: dict[int, float] = {}
        """Updates whose reply this process delivered while its mark is not in the database yet
        (in the journal, or nowhere): a re-run here does not send it again (monotonic time noted)."""
        self._unwritten: dict[int, tuple[dict[str, Any], ReplyReport | None]] = {}
        """Outcomes neither the database nor the journal took: written by `write_unwritten` as
        soon as one of them does, so a restart does not forget a delivered reply."""
        self.journal = journal
        self.policy = policy or InboxPolicy()
        self.database_refused: str | None = None
        """Why the database refused the last new update (None once it takes one again)."""
        bind = session_factory.kw.get("bind")
        self._writes = WriterTurns() if bind is not None and bind.dialect.name == "sqlite" else None
        """SQLite takes one writer at a time, and a second one waits in SQLite's busy handler,
        which sleeps 1, 2, 5 ... 100 ms between tries: at 50 updates in flight that, not the
        work, was the p99 (1.8 s). This process's inbox writes queue here instead, in order.
        Every inbox write takes it (claims, deferrals and releases too): a writer left to the
        busy handler loses every race to the queued ones and, under load, ran out of SQLite's
        busy timeout ("database is locked" in the fault bench)."""
        self.group = GroupCommit(
            session_factory, self.holding_writes, writers=1 if self._writes is not None else SERVER_WRITERS
        )
        """New updates and outcomes: under load, those that queue behind the writers are committed
        together."""
        self._replaying = asyncio.Lock()
        """One replay at a time in this process (the worker's, or one before a new update)."""
        self._replay_again_at = 0.0

    async def receive(self, arrival: Arrival, *, claim: bool = True) -> InboundMessage | Receipt:
        """Store a new update; journal it when the database is down."""
        return (await self.receive_checked(arrival, claim=claim)).receipt

    async def receive_checked(self, arrival: Arrival, *, claim: bool = True) -> Stored:
        """Store a new update, and learn in the same round trip whether an earlier update of
        its chat is still unanswered (see `earlier_in_flight`); journal it when the database
        is down. `NotStored` when the journal refuses it too (a full disk): never a receipt
        for an update that is nowhere.

        `claim`: the caller handles it now (the row is leased to it). Unclaimed, it waits in
        the inbox for whichever process's worker is free first.
        """
        values = (
            arrival.values(lease_until=utcnow() + self.policy.lease, attempts=1)
            if claim
            else arrival.values(lease_until=None, attempts=0)
        )
        since = utcnow() - self.policy.max_age
        if self.journal.pending() and not await self._replayed_first():
            # Earlier updates are still in the journal: this one goes behind them, so the order
            # they reach the inbox in (their ids) is the order they came in.
            return await self._journaled(arrival, "earlier updates are still in the journal")
        waiting = bool(self.policy.replay_settle) and await self.peers.others_holding()
        if waiting:
            # Another process's journal may hold this chat's earlier messages: this one waits in
            # the inbox until they are replayed (they settle as long), then goes in its turn.
            values = arrival.values(lease_until=utcnow() + self.policy.replay_settle, attempts=0)
        try:
            try:
                inbound_id, earlier = await self.group.write(
                    lambda session: rows.insert_checked(session, values, since=since)
                )
            except IntegrityError:  # this bot stored this update id before
                if not await self._reused_id(arrival):
                    return Stored(Receipt.DUPLICATE)
                inbound_id, earlier = await self.group.write(
                    lambda session: rows.insert_checked(session, values, since=since)
                )
        except IntegrityError:
            return Stored(Receipt.DUPLICATE)
        except STORAGE_ERRORS as error:
            self.database_refused = _short(error)
            return await self._journaled(arrival, _short(error))
        self.database_refused = None
        # A snapshot of the row as stored, for reading (id, attempts, chat): attached to no
        # session and built without the ORM's instrumentation (170 us an update otherwise).
        if waiting:
            logger.info(
                "update stored; it waits for another process's journal to be replayed",
                extra={"update_id": arrival.update_id, "bot_id": arrival.bot_id},
            )
            return Stored(Receipt.WAITING)
        receipt = InboundMessage.model_construct(**values, id=inbound_id)
        return Stored(receipt, earlier, checked=True)

    async def _journaled(self, arrival: Arrival, why: str) -> Stored:
        try:
            await self.journal.append({"type": "update", "arrival": _arrival_record(arrival)})
        except JournalWriteError as refused:  # the caller logs it, with what it does next
            raise NotStored(f"database: {why}; journal: {_short(refused)}") from refused
        await self.peers.holding()  # before Telegram hears it is received: its next update may go elsewhere
        logger.error(
            "database unavailable: update journaled, it will be handled when the database answers",
            extra={"update_id": arrival.update_id, "bot_id": arrival.bot_id, "error": why},
        )
        return Stored(Receipt.JOURNALED)

    async def _replayed_first(self) -> bool:
        """Replay the journal before storing a new update; False while it still holds records
        (the database still down: tried again at most once a second, not once per update)."""
        if time.monotonic() < self._replay_again_at:
            return False
        with contextlib.suppress(*STORAGE_ERRORS):
            await self.replay_journal()
        if self.journal.pending():
            self._replay_again_at = time.monotonic() + REPLAY_RETRY_S
            return False
        return True

    async def _reused_id(self, arrival: Arrival) -> bool:
        """True when the stored update with this id is older than Telegram's re-delivery window:
        its id is freed for the new update (a re-delivery of a recent one stays a duplicate)."""
        async with self.holding_writes(), self._session_factory() as session:
            reused = await rows.retire_stale_update_id(
                session, arrival.bot_id, arrival.update_id, stored_before=utcnow() - self.policy.redelivery
            )
        if reused:
            logger.info(
                "update id seen before, longer ago than Telegram re-delivers: stored as a new update",
                extra={"update_id": arrival.update_id, "bot_id": arrival.bot_id},
            )
        return reused

    async def mark_delivered(self, inbound_id: int, user_id: int | None, sent: SentMessage) -> None:
        """Write the outbound row of a message the customer received, at once and on its own
        (not in a group commit behind other writes; on a connection of its own): a crash from
        here on repeats nothing, since a re-run finds it (`delivered_before`). When the database
        does not take it within `MARK_WAIT_S` (or fails), it goes to the journal, which is
        replayed before any stored update is handled again. Until it is in the database, this
        process remembers the delivery too. `JournalWriteError` when neither took it."""
        self.unrecorded[inbound_id] = time.monotonic()
        if self._marks_closed:
            raise RuntimeError("the inbox is closing: the outcome records this message")
        mark = delivery_mark(inbound_id, user_id, sent)
        try:
            await self._mark_in_database(mark)
        except STORAGE_ERRORS as error:
            await self.journal.append({"type": "mark", "row": mark})
            sent.logged = True  # in the journal: the outcome leaves it out
            logger.warning(
                "delivery mark journaled: the database did not take it at once",
                extra={"inbound_id": inbound_id, "error": _short(error)},
            )
            return
        sent.logged = True
        self.unrecorded.pop(inbound_id, None)

    async def _mark_in_database(self, mark: dict[str, Any]) -> None:
        async with contextlib.AsyncExitStack() as turn:
            # Only the wait for a turn is bounded here: a statement under way is never cancelled
            # (the database's own timeouts bound it), so its connection is never left half-used.
            async with asyncio.timeout(MARK_WAIT_S):
                await turn.enter_async_context(self._marking)
                await turn.enter_async_context(self.holding_writes(urgent=True))
            async with self._marks() as session:
                await rows.add_outbound(session, [mark])
                await session.commit()

    async def close_marks(self) -> None:
        """No delivery mark starts from now on, and the one under way ends (within a bound) before
        the marks' connection is closed."""
        self._marks_closed = True
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(MARK_WAIT_S * 8), self._marking:
                pass

    async def delivered_before(self, row: InboundMessage) -> bool:
        """Whether an earlier run of this update already delivered something to its chat."""
        if row.id is None:
            return False
        if row.id in self.unrecorded:
            return True
        async with self._session_factory() as session:
            return await rows.delivered_to(session, row.id, row.chat_id)

    async def owed(self, row: InboundMessage) -> list[OutboundMessage]:
        """What an earlier run of this update owes the customer (refused for now), oldest first."""
        if row.id is None:
            return []
        async with self._session_factory() as session:
            return await rows.owed_to(session, row.id, row.chat_id)

    async def superseded(self, outbound_id: int) -> None:
        """An owed message was sent again (its new try is logged on its own)."""
        async with self.holding_writes(), self._session_factory() as session:
            await rows.supersede(session, outbound_id)

    def session(self) -> AsyncSession:
        """A session on the inbox's database, for a caller that writes the outcome in its own."""
        return self._session_factory()

    async def close(
        self,
        interaction: Interaction,
        outcome: Outcome,
        llm: ReplyReport | None = None,
        *,
        session: AsyncSession | None = None,
    ) -> None:
        """Record how handling ended: one transaction, in `session` when the caller passes the
        one handling used (its pending work is rolled back first: handlers commit what they
        mean to keep), else in a new one; under load, in the group commit of the outcomes and
        updates that queued meanwhile. Journaled when the database does not answer.

        When the journal refuses it too (a full disk), an error is logged and handling goes on:
        the row stays `received` in the database, leased to this process, so the update is
        handled again once the lease runs out."""
        record = outcome_record(interaction, outcome)
        try:
            if session is not None and session.in_transaction():
                await session.rollback()
            await self._write(session, record, llm)
            self._recorded(interaction.inbound_id)
        except STORAGE_ERRORS as error:
            try:
                await self.journal.append(record)
            except JournalWriteError as refused:
                self._unwritten[interaction.inbound_id] = (record, llm)
                logger.error(
                    "outcome not recorded: the database is unavailable and the journal refused it; "
                    "it is written as soon as one of them takes it",
                    extra={"inbound_id": interaction.inbound_id, "error": _short(refused)},
                )
                return
            self._recorded(interaction.inbound_id)
            logger.error(
                "database unavailable: outcome journaled",
                extra={"inbound_id": interaction.inbound_id, "error": _short(error)},
            )

    def _recorded(self, inbound_id: int) -> None:
        self.unrecorded.pop(inbound_id, None)
        self._unwritten.pop(inbound_id, None)

    async def write_unwritten(self) -> int:
        """Write the outcomes that neither the database nor the journal took when handling ended
        (oldest first; the database, else the journal); how many are still unwritten. The inbox
        worker calls it on each pass, the shutdown once more."""
        for inbound_id, (record, llm) in list(self._unwritten.items()):
            try:
                await self._write(None, record, llm)
            except STORAGE_ERRORS:
                try:
                    await self.journal.append(record)
                except JournalWriteError:
                    break  # still nowhere to write: the next pass tries again, in order
            self._recorded(inbound_id)
            logger.info("an outcome recorded late is written", extra={"inbound_id": inbound_id})
        return len(self._unwritten)

    async def _write(
        self, session: AsyncSession | None, record: dict[str, Any], llm: ReplyReport | None
    ) -> None:
        await self.group.write(lambda batch: write_outcome(batch, record, llm), session=session)

    def holding_writes(self, *, urgent: bool = False) -> AbstractAsyncContextManager[object]:
        """This process's inbox writes wait while it is held (on SQLite; on a server database
        nothing waits): every inbox write takes it, and so does work that must not have a writer
        beside it, such as a checkpoint that has to finish. `urgent` (a delivery mark) goes
        ahead of the writes waiting for their turn."""
        if self._writes is None:
            return contextlib.nullcontext()
        return self._writes.urgent() if urgent else self._writes

    async def replay_journal(self) -> int:
        """Write journaled updates and outcomes into the database, in order, one record at a time;
        how many were replayed.

        A record the database rejects for a data reason (a value out of range, a record that is
        not whole: see `replay_fault`) is moved to the quarantine file beside the journal with an
        error log line, and replay goes on with the next. A transient storage error pauses it:
        what was replayed (or quarantined) before is discarded from the journal, the rest stays,
        in order, for the next pass.
        """
        async with self._replaying:
            return await self._replay_journal()

    async def _replay_journal(self) -> int:
        batch = await self.journal.read()
        if not batch.entries:
            if batch.end:
                await self.journal.discard(batch)  # blank lines only
                await self.peers.released()
            return 0
        done = quarantined = 0
        through = 0
        try:
            async with self._session_factory() as session:
                for entry in batch.entries:
                    reason = entry.problem or await self._replay_entry(session, entry)
                    if reason is not None:
                        await self._quarantine(entry, reason)
                        quarantined += 1
                    else:
                        done += 1
                    through = entry.end
        except STORAGE_ERRORS as error:
            logger.warning(
                "journal replay paused: storage unavailable, the rest is replayed later",
                extra={"error": _short(error), "replayed": done, "quarantined": quarantined},
            )
            await self.journal.discard(batch, through=through)
            await self.peers.holding()
            return done
        await self.journal.discard(batch)
        if not self.journal.pending():
            await self.peers.released()
        logger.info("journal replayed", extra={"records": done, "quarantined": quarantined})
        return done

    async def _replay_entry(self, session: AsyncSession, entry: Entry) -> str | None:
        """Replay one record: None when it is in the database, else why it never will be (a
        transient storage error is raised instead). The session is rolled back after a failure,
        so the next record starts clean."""
        assert entry.record is not None
        try:
            async with self.holding_writes():  # per record: new updates are stored meanwhile
                await self._replay(session, entry.record)
        except Exception as error:
            await session.rollback()
            if not replay_fault(error):
                raise
            return _short(error)
        return None

    async def _quarantine(self, entry: Entry, reason: str) -> None:
        await self.journal.quarantine(entry, reason)
        logger.error(
            "journal record quarantined: the database cannot take it",
            extra={"reason": reason, "quarantine": str(self.journal.quarantine_path)},
        )

    async def _replay(self, session: AsyncSession, record: dict[str, Any]) -> None:
        if record.get("type") == "outcome":
            await write_outcome(session, record)
            await session.commit()
            return
        if record.get("type") == "mark":
            await rows.add_outbound_once(session, record["row"])
            await session.commit()
            return
        arrival = Arrival(**record["arrival"])
        # With several processes on the database, not handled at once: the other processes'
        # journals get their turn to replay first, so a chat's updates go in Telegram's order.
        settle = utcnow() + self.policy.replay_settle if self.policy.replay_settle else None
        await rows.store(session, arrival.row(lease_until=settle, attempts=0))

    async def due(self, bot_id: int, *, limit: int = 100) -> list[InboundMessage]:
        """Stored updates nobody is handling; those past the policy's limits are abandoned instead."""
        now = utcnow()
        ready = []
        async with self.holding_writes(), self._session_factory() as session:  # it may abandon rows
            for row in await rows.due(session, bot_id, now=now, limit=limit):
                assert row.id is not None
                reason = self._give_up_reason(row, now)
                if reason is None:
                    ready.append(row)
                    continue
                await rows.abandon(session, row.id, reason=reason)
                logger.error(
                    "update abandoned: an admin should answer it",
                    extra={"inbound_id": row.id, "update_id": row.update_id, "reason": reason},
                )
        return ready

    def _give_up_reason(self, row: InboundMessage, now: datetime) -> str | None:
        if row.attempts >= self.policy.max_attempts:
            return f"gave up after {row.attempts} attempts: {row.status_reason or row.error or 'unknown'}"
        if row.created_at < now - self.policy.max_age:
            return f"older than {self.policy.max_age}: not answered automatically"
        return None

    async def claim(self, inbound_id: int) -> InboundMessage | None:
        now = utcnow()
        async with self.holding_writes(), self._session_factory() as session:
            return await rows.claim(session, inbound_id, now=now, until=now + self.policy.lease)

    async def earlier_in_flight(self, row: InboundMessage) -> int | None:
        """An earlier update of this chat still unanswered, if there is one, whatever it waits for
        (handled by another process, a lease after a crash, a retry after a fault, a flood wait):
        answering this one first would reorder the conversation. An update stops holding its
        chat when it is answered, failed or abandoned (`max_attempts` tries, or `max_age`)."""
        if row.chat_id is None or row.bot_id is None or row.update_id is None:
            return None
        async with self._session_factory() as session:
            return await rows.earlier_in_flight(
                session, row.bot_id, row.chat_id, row.update_id, since=utcnow() - self.policy.max_age
            )

    async def defer(self, row: InboundMessage) -> None:
        """Give the row back for the inbox worker, which takes a chat's updates in order."""
        assert row.id is not None
        async with self.holding_writes(), self._session_factory() as session:
            await rows.defer(session, row.id, until=utcnow() + timedelta(seconds=DEFER_SECONDS))

    async def release(self, inbound_ids: list[int], *, reason: str) -> None:
        async with self.holding_writes(), self._session_factory() as session:
            await rows.release(session, inbound_ids, reason=reason)


def replay_fault(error: BaseException) -> bool:
    """Whether a journal record, not the database, made its replay fail: another try would fail
    the same way. A storage error is the record's fault only when the database says the data is
    (sqlstate class 22 or 23, SQLAlchemy's DataError or IntegrityError) or a value could not even
    be bound; a connection lost, a lock or a timeout is transient. Anything else (a ValueError,
    KeyError, TypeError, OverflowError from the record's values) is the record's fault."""
    if isinstance(error, JournalWriteError | OSError | TimeoutError):
        return False
    if isinstance(error, DBAPIError):
        if error.connection_invalidated:
            return False
        state = str(getattr(error.orig, "sqlstate", "") or getattr(error.orig, "pgcode", "") or "")
        if state:
            return state.startswith(DATA_SQLSTATE_CLASSES)
        return isinstance(error, DataError | IntegrityError)
    if isinstance(error, StatementError):  # raised while binding the record's values
        return not isinstance(error.orig, OSError | TimeoutError)
    return not isinstance(error, SQLAlchemyError)


def _arrival_record(arrival: Arrival) -> dict[str, Any]:
    return {name: getattr(arrival, name) for name in Arrival.__dataclass_fields__}


def _short(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:300]
