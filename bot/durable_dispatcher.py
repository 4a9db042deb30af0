"""The dispatcher every update enters through: stored first, then handled, never lost.

`feed_update` is the one entry of polling, webhooks, `csbot chat` and the tests,
and it runs before aiogram's own outer middlewares (FSM storage, per-chat event
isolation), so an update is in the inbox (or the local journal) before anything
that can fail or wait touches it. Handling errors end here: a transient fault
gets "we got your message" and another try later; any other error gets the
apology and is recorded as failed. In-flight handling is tracked so a shutdown
can drain it and give back what it had to interrupt.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, NamedTuple

from aiogram import Bot, Dispatcher
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods import SendMessage
from aiogram.types import Update

from bot.chat_scheduler import ChatScheduler
from bot.faults import is_transient
from bot.metrics import Metrics
from bot.middlewares.outbound_log import SEND_IN_FLIGHT_GRACE_S
from bot.stop_signal import finish_even_if_cancelled
from db.models import InboundMessage, InboundStatus
from handlers.context import language_of
from services.admin.conversation_log import (
    ANSWERED,
    Interaction,
    Outcome,
    SentMessage,
    as_notice,
    current_interaction,
)
from services.inbox.durable import Arrival, Inbox, Receipt
from services.inbox.update_context import UpdateContext, current_update
from services.text.sanitize import needs_cleaning, storable_tree
from services.text.sentences import Language, t

logger = logging.getLogger(__name__)

SHUTDOWN_REASON = "interrupted by shutdown: handled again after restart"
FLOOD_JITTER = 0.1
"""A flood wait's next try starts up to this share of the wait later (plus up to a second)."""


@dataclass(frozen=True)
class UpdateSummary:
    user_id: int | None
    chat_id: int | None
    kind: str
    text: str
    language: Language


def summarize(update: Update) -> UpdateSummary:
    if update.message is not None:
        message = update.message
        text = message.text or message.caption or ""
        language = language_of(message.from_user, text)
        if message.contact is not None:
            text = "[contact shared]"  # the phone number is personal data; the link is logged
        return UpdateSummary(
            message.from_user.id if message.from_user else None,
            message.chat.id,
            str(getattr(message.content_type, "value", message.content_type)),  # "text", not the enum
            text,
            language,
        )
    if update.callback_query is not None:
        query = update.callback_query
        chat_id = query.message.chat.id if query.message else None
        return UpdateSummary(
            query.from_user.id, chat_id, "callback", query.data or "", language_of(query.from_user)
        )
    return UpdateSummary(None, None, update.event_type, "", Language.EN)


def storable_update(update: Update, bot: Bot) -> tuple[Update, str]:
    """The update with every string storable on every database, and its raw JSON (lossless)."""
    data = update.model_dump(mode="json", exclude_unset=True)
    raw = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    readable = json.dumps(data, ensure_ascii=False)  # JSON escapes NUL as \u0000; surrogates stay
    if "\\u0000" not in readable and not needs_cleaning(readable):
        return update, raw
    return Update.model_validate(storable_tree(data), context={"bot": bot}), raw


def chat_key(summary: UpdateSummary) -> Hashable:
    """What is handled one at a time: a user's updates in one chat (aiogram's FSM isolation key).
    An update without a chat or user (a poll answer, a channel post) waits for nobody."""
    if summary.chat_id is None and summary.user_id is None:
        return object()
    return (summary.chat_id, summary.user_id)


class Admission(NamedTuple):
    update: Update
    summary: UpdateSummary
    receipt: InboundMessage | Receipt
    """The stored row (claimed by whoever admitted it), or why there is none."""
    earlier: int | None = None
    """When `checked`: an earlier unanswered update of the chat, learnt while storing this one."""
    checked: bool = False


class DurableDispatcher(Dispatcher):
    def __init__(
        self,
        *,
        inbox: Inbox,
        update_timeout: float,
        metrics: Metrics | None = None,
        concurrency: int = 16,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.inbox = inbox
        self.scheduler = ChatScheduler(concurrency)
        """Handling slots for polling and the webhook: one per chat at most, round robin."""
        self._update_timeout = update_timeout
        self._metrics = metrics
        self._background: set[asyncio.Task[Any]] = set()
        self._in_flight: dict[asyncio.Task[Any], int | None] = {}
        """Handling tasks, with the inbound row each one holds (None while storing)."""
        self._chat_turns: dict[Hashable, asyncio.Future[None]] = {}
        """The last message of each chat in this process's line: the next one waits for it."""

    async def feed_update(self, bot: Bot, update: Update, **kwargs: Any) -> Any:
        """Store (unless `admission` says it is stored already), then handle."""
        task = asyncio.current_task()
        if task is not None:
            self._in_flight[task] = None
        summary = summarize(update)
        token = current_update.set(UpdateContext(bot.id, update.update_id, summary.user_id, summary.chat_id))
        try:
            admission: Admission = kwargs.pop("admission", None) or await self.admit(bot, update)
            return await self._handle_admitted(bot, admission, kwargs)
        finally:
            current_update.reset(token)
            if task is not None:
                self._in_flight.pop(task, None)

    async def dispatch(self, bot: Bot, update: Update, *, queue: bool = True) -> Admission:
        """Store the update, then handle it when its chat's turn and a slot come (in the background).

        Returns once it is stored (the poller confirms it to Telegram then, the webhook answers
        200). An update that starts at once is stored claimed; one that waits behind its chat's
        earlier update (or for a slot) is stored unclaimed and claimed when its turn comes, so
        no lease runs out while it waits. `queue=False` (the webhook): when this process has
        no free slot and nothing of this chat, the update is left stored for any instance's worker.
        """
        ticket = self.scheduler.reserve(chat_key(summarize(update)), queue=queue)
        try:
            admission = await self.admit(bot, update, claim=ticket is not None and ticket.starts_now)
        except BaseException:
            if ticket is not None:
                ticket.drop()
            raise
        if ticket is None:
            if isinstance(admission.receipt, Receipt):  # nothing stored to leave: tell or skip now
                task = asyncio.create_task(self.feed_update(bot, admission.update, admission=admission))
                self._background.add(task)
                task.add_done_callback(self._background.discard)
            return admission
        receipt = admission.receipt
        if ticket.starts_now or isinstance(receipt, Receipt):
            ticket.run(lambda: self.feed_update(bot, admission.update, admission=admission))
        else:
            ticket.run(lambda: self.handle_stored(bot, receipt))
        return admission

    async def admit(self, bot: Bot, update: Update, *, claim: bool = True) -> Admission:
        """Store a new update in the inbox (or the journal). The poller calls this before it
        confirms the update to Telegram, the webhook before it answers 200, so a crash right
        after loses nothing. Unclaimed (`claim=False`) it waits for the inbox worker."""
        update, raw = storable_update(update, bot)
        summary = summarize(update)
        stored = await self.inbox.receive_checked(
            Arrival(
                bot.id, update.update_id, summary.user_id, summary.chat_id, summary.kind, summary.text, raw
            ),
            claim=claim,
        )
        if self._metrics is not None:
            self._metrics.record_arrival(summary.kind, stored.receipt)
        return Admission(update, summary, stored.receipt, stored.earlier, stored.checked)

    @property
    def busy(self) -> int:
        """Updates being stored or handled by this process right now."""
        return len(self._in_flight)

    async def handle_stored(self, bot: Bot, row: InboundMessage) -> bool:
        """Handle an update from its stored row (after a restart, a fault or a journal replay).

        False when another process holds it (or answered it meanwhile): the caller stops
        there for this chat, so a chat's updates are never taken out of order. An update whose
        reply an earlier run delivered (the outbound log shows it) is not handled again: it is
        recorded as answered, so neither the reply nor its side effects (a staff forward, a
        filed return) are repeated.
        """
        claimed = await self.inbox.claim(row.id) if row.id is not None else None
        if claimed is None or claimed.raw_update is None:
            return False
        update = Update.model_validate(json.loads(claimed.raw_update), context={"bot": bot})
        update, _ = storable_update(update, bot)
        summary = summarize(update)
        if claimed.attempts > 1 and await self.inbox.delivered_before(claimed):
            await self._finish_delivered(bot, claimed, summary)
            return True
        logger.info(
            "handling a stored update again",
            extra={"update_id": update.update_id, "inbound_id": claimed.id, "attempt": claimed.attempts},
        )
        await self.feed_update(bot, update, admission=Admission(update, summary, claimed))
        return True

    async def _handle_admitted(self, bot: Bot, admission: Admission, kwargs: dict[str, Any]) -> Any:
        update, summary, receipt = admission.update, admission.summary, admission.receipt
        if receipt is Receipt.DUPLICATE:
            logger.info("duplicate update skipped", extra={"update_id": update.update_id, "bot_id": bot.id})
            return None
        if receipt is Receipt.JOURNALED:
            await self._tell(bot, summary, "received_later")
            return None
        if receipt is Receipt.WAITING:
            return None  # the inbox worker takes it in its turn, seconds from now
        assert receipt.id is not None
        task = asyncio.current_task()
        if task is not None:
            self._in_flight[task] = receipt.id  # before the check: a later message here sees this one
        interaction = Interaction(
            inbound_id=receipt.id,
            user_id=summary.user_id,
            chat_id=summary.chat_id,
            attempt=receipt.attempts,
            apologized=receipt.apologized,
            on_delivered=self._marker(receipt.id, summary.user_id),
        )
        key = chat_key(summary)
        ahead = self._chat_turns.get(key)
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._chat_turns[key] = turn  # this process's place in the chat's line, taken at once
        try:
            if ahead is not None:
                await asyncio.wait({ahead})  # the chat's messages here go one at a time, in order
            try:
                earlier = (
                    admission.earlier
                    if admission.checked and ahead is None
                    else await self.inbox.earlier_in_flight(receipt)
                )
            except Exception as error:  # the database (or its pool) failed before handling began
                interaction.failed(error)
                logger.warning(
                    "could not check the chat's earlier messages; the update is handled again shortly",
                    extra={
                        "update_id": update.update_id,
                        "inbound_id": receipt.id,
                        "error": interaction.error,
                    },
                )
                await finish_even_if_cancelled(
                    self.inbox.close(
                        interaction,
                        Outcome.retry_in(
                            self.inbox.policy.retry_delay(interaction.attempt),
                            "could not check the chat's earlier messages",
                            refund_attempt=True,
                        ),
                    )
                )
                return None
            if earlier is not None:
                # An earlier message of this chat is still unanswered (another process has it, it
                # waits for a retry or a flood wait, or this process's worker took it up later):
                # answering this one now would reorder the conversation. It goes back to the inbox,
                # whose worker takes the chat's messages oldest first.
                logger.info(
                    "an earlier message of this chat is not answered yet: this one waits its turn",
                    extra={"update_id": update.update_id, "inbound_id": receipt.id, "earlier": earlier},
                )
                await self.inbox.defer(receipt)
                return None
            return await self._handle(bot, update, summary, interaction, kwargs)
        finally:
            turn.set_result(None)
            if self._chat_turns.get(key) is turn:
                del self._chat_turns[key]

    async def _finish_delivered(self, bot: Bot, row: InboundMessage, summary: UpdateSummary) -> None:
        """An earlier run delivered (part of) the reply: the handlers are not run again, so neither
        the reply nor its side effects (a staff forward, a filed return) are repeated. What that run
        owed the customer (a message Telegram refused in a way a later try can fix) is sent now, as
        it was stored."""
        assert row.id is not None
        interaction = Interaction(
            row.id,
            summary.user_id,
            summary.chat_id,
            row.attempts,
            apologized=row.apologized,
            on_delivered=self._marker(row.id, summary.user_id),
        )
        outcome = DELIVERED_BEFORE
        token = current_interaction.set(interaction)
        try:
            try:
                owed = await self.inbox.owed(row)
                logger.info(
                    "the reply was delivered before: not handled again",
                    extra={"inbound_id": row.id, "owed_messages": len(owed)},
                )
                for message in owed:
                    try:
                        await bot(SendMessage.model_validate_json(message.payload or "{}"))
                    finally:
                        assert message.id is not None
                        await finish_even_if_cancelled(self.inbox.superseded(message.id))
                after = self._after_handling(interaction)
                outcome = DELIVERED_BEFORE if after is ANSWERED else after
            except Exception as error:
                outcome = await self._outcome_of_error(bot, summary, interaction, error)
        except asyncio.CancelledError:
            outcome = _interrupted(interaction)
            raise
        finally:
            current_interaction.reset(token)
            await finish_even_if_cancelled(self.inbox.close(interaction, outcome))

    def _marker(self, inbound_id: int, user_id: int | None) -> Callable[[SentMessage], Awaitable[None]]:
        async def mark(sent: SentMessage) -> None:
            try:
                await self.inbox.mark_delivered(inbound_id, user_id, sent)
            except Exception as error:  # the outcome's write carries the message instead
                logger.warning(
                    "delivery mark not written; the outcome will record the message",
                    extra={"inbound_id": inbound_id, "error": f"{type(error).__name__}: {error}"[:300]},
                )

        return mark

    async def _handle(
        self,
        bot: Bot,
        update: Update,
        summary: UpdateSummary,
        interaction: Interaction,
        kwargs: dict[str, Any],
    ) -> Any:
        """Run the handlers, then record how it ended (the inbound row's state machine,
        docs/guarantees.md): `answered` only when handling finished and nothing meant for the
        customer is still owed; every other way out (an error from any middleware, handler or
        the apology itself, a timeout, a cancellation) leaves the row `received` with the time
        of its next try, `failed` only for an error another try would not fix."""
        token = current_interaction.set(interaction)
        outcome: Outcome = self._retry_later(interaction, "handling did not finish")
        # One session for the update: the handlers' reads and the outcome's write. After an
        # error or a cancellation the outcome goes through a fresh one (this one's connection
        # may be what failed).
        session = self.inbox.session()
        healthy = False
        try:
            try:
                async with asyncio.timeout(self._update_timeout):
                    response = await super().feed_update(
                        bot, update, interaction=interaction, session=session, **kwargs
                    )
                outcome = self._after_handling(interaction)
                healthy = True
                return response
            except Exception as error:
                outcome = await self._outcome_of_error(bot, summary, interaction, error)
                return None
        except asyncio.CancelledError:  # also one landing in the error path (the apology)
            outcome = _interrupted(interaction)
            raise
        finally:
            current_interaction.reset(token)
            if self._metrics is not None:
                self._metrics.record_outcome(interaction, outcome, time.perf_counter() - interaction.started)
            try:
                if not healthy:
                    # Its uncommitted writes would hold SQLite's lock against the outcome's own
                    # session (and the inbox's write lock with it) for the whole busy timeout.
                    await session.close()
                outcome_session = session if healthy else None
                await finish_even_if_cancelled(
                    self.inbox.close(interaction, outcome, interaction.llm, session=outcome_session)
                )
            finally:
                await session.close()

    def _after_handling(self, interaction: Interaction) -> Outcome:
        """Handling returned: answered, unless Telegram refused every message to the customer in
        a way a later try can fix (then the next try waits out Telegram's flood wait, if it gave one)."""
        if interaction.owes():
            flood = interaction.flood_wait()
            if flood is not None and not interaction.delivered():
                return self._after_flood_wait(interaction, flood)
            if interaction.delivered():  # the rest is sent as stored on the next try
                return self._retry_later(interaction, f"part of the reply is owed: {OWED}")
            return self._retry_later(interaction, "telegram refused every reply")
        return ANSWERED

    async def _outcome_of_error(
        self, bot: Bot, summary: UpdateSummary, interaction: Interaction, error: Exception
    ) -> Outcome:
        """`_after_error`; when the error path fails too (the apology's send, say), the row waits
        for its next try. A cancellation goes through to the caller."""
        interaction.failed(error)
        try:
            return await self._after_error(bot, summary, interaction, error)
        except Exception as second:
            logger.exception(
                "update handling failed, and so did telling the customer; it will be handled again",
                extra={"inbound_id": interaction.inbound_id, "error": f"{type(second).__name__}"},
            )
            return self._retry_later(interaction, interaction.error or "handling failed")

    async def _after_error(
        self, bot: Bot, summary: UpdateSummary, interaction: Interaction, error: Exception
    ) -> Outcome:
        extra = {"user_id": summary.user_id, "inbound_id": interaction.inbound_id}
        if interaction.delivered() and is_transient(error):
            # The reply is out: another run would send it twice. What it still owes the customer
            # (a message refused for now) is sent on the next try, as stored.
            logger.warning(
                "transient fault after the reply was delivered", extra={**extra, "error": interaction.error}
            )
            if interaction.owes():
                return self._retry_later(interaction, f"part of the reply is owed: {OWED}")
            return Outcome(
                InboundStatus.ANSWERED, f"fault after the reply was delivered: {interaction.error}"
            )
        flood = (
            float(error.retry_after) if isinstance(error, TelegramRetryAfter) else interaction.flood_wait()
        )
        if flood is not None and not interaction.delivered():
            # No apology: a message to a chat in a flood wait is refused too, and Telegram
            # lengthens the wait of a bot that keeps calling.
            return self._after_flood_wait(interaction, flood)
        if is_transient(error) and interaction.attempt < self.inbox.policy.max_attempts:
            logger.warning(
                "update handling hit a transient fault; it will be handled again",
                extra={**extra, "error": interaction.error, "attempt": interaction.attempt},
            )
            if not interaction.apologized:
                interaction.apologized = await self._tell(bot, summary, "received_later")
            return self._retry_later(interaction, interaction.error or "transient fault")
        logger.error("update handling failed", extra=extra, exc_info=error)
        await self._tell(bot, summary, "internal_error")
        return Outcome(InboundStatus.FAILED, interaction.error)

    def _after_flood_wait(self, interaction: Interaction, seconds: float) -> Outcome:
        """Telegram asked for a pause longer than a call may wait: the next try starts after it
        (with jitter, so a bot-wide wait does not end in a burst), and this try is not counted."""
        delay = seconds + random.uniform(0.5, 1.0 + seconds * FLOOD_JITTER)
        logger.warning(
            "telegram flood wait: the update is handled again after it",
            extra={
                "inbound_id": interaction.inbound_id,
                "retry_after_s": seconds,
                "next_try_s": round(delay, 1),
            },
        )
        return Outcome.retry_in(delay, f"telegram flood wait of {seconds:g} s", refund_attempt=True)

    def _retry_later(self, interaction: Interaction, reason: str) -> Outcome:
        return Outcome.retry_in(self.inbox.policy.retry_delay(interaction.attempt), reason)

    async def _tell(self, bot: Bot, summary: UpdateSummary, key: str) -> bool:
        """Best effort: a message about the bot's own trouble; True when Telegram took it. Any
        failure (Telegram, the limiter's store, the network) is logged and swallowed: the
        update's own outcome decides what happens next."""
        if summary.chat_id is None:
            return False
        try:
            with as_notice():
                await bot.send_message(summary.chat_id, t(key, summary.language))
        except Exception as error:
            logger.warning(
                "could not tell the customer",
                extra={
                    "chat_id": summary.chat_id,
                    "text": key,
                    "error": f"{type(error).__name__}: {error}"[:200],
                },
            )
            return False
        return True

    async def drain(self, *, within: float) -> list[int]:
        """Let in-flight handling finish within `within` seconds; cancel the rest, return their rows.
        Updates still waiting for their turn are not started: they stay stored for the next start."""
        started = time.monotonic()
        self.scheduler.stop()
        pending = set(self._in_flight)
        if pending:
            logger.info("draining in-flight updates", extra={"count": len(pending), "timeout_s": within})
            _, pending = await asyncio.wait(pending, timeout=within)
        interrupted = [row_id for task, row_id in self._in_flight.items() if task in pending and row_id]
        for task in pending:
            task.cancel()
        if pending:
            # A message on its way to Telegram is let finish (bot/middlewares/outbound_log.py), so
            # its outcome says truly whether the customer has it.
            await asyncio.wait(pending, timeout=SEND_IN_FLIGHT_GRACE_S + 1)
            await self.inbox.release(interrupted, reason=SHUTDOWN_REASON)
        logger.info(
            "drained", extra={"seconds": round(time.monotonic() - started, 2), "interrupted": interrupted}
        )
        return interrupted


OWED = "a message refused for now, sent again as stored"
DELIVERED_BEFORE = Outcome(InboundStatus.ANSWERED, "delivered before an interruption: not handled again")


def _interrupted(interaction: Interaction) -> Outcome:
    """Cancelled (a shutdown past its deadline): handled again after the restart, unless the reply
    is already out, which another run would repeat."""
    if interaction.delivered() and not interaction.owes():
        return Outcome(InboundStatus.ANSWERED, "interrupted by shutdown after the reply was delivered")
    return Outcome(InboundStatus.RECEIVED, SHUTDOWN_REASON)
