"""What the console's conversation pages show: a searchable list and one chat transcript.

The list is of customer messages, newest first, with keyset pagination on the
primary key (`id < cursor ORDER BY id DESC LIMIT n`): each page costs the same on
the ten-millionth row as on the first, where OFFSET would read every row it skips.
A transcript puts both directions of one customer's chat in order, and attaches to
every bot message why it was said: the understanding logged with the customer's
message and the LLM reply behind it, with each API call.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, LLMCall, LLMReply, OutboundMessage
from db.repositories import conversations, customers, orders
from db.repositories.conversations import ListedField
from db.repositories.logs import NOT_ANSWERED, with_a_person
from services.console.privacy import mask_phone, mask_phones
from services.llm.reply import ReplyMode, Step
from services.replies import ReplyRoute
from services.shop.phone import DEFAULT_COUNTRY_CODE, normalize_phone, plausible_phone
from services.text.normalize import detect_language

PAGE_SIZE = 50
TRANSCRIPT_LIMIT = 500
MAX_QUERY = 200
MAX_USER_ID = 2**63 - 1
FILTER_CHOICES_FROM = 20_000
"""The filters offer the values found among this many newest messages."""


@dataclass(frozen=True)
class ConversationFilters:
    query: str = ""
    """Free text, a Telegram user id or an order number."""
    intent: str | None = None
    route: str | None = None
    source: str | None = None
    language: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    handoff: bool = False
    failed: bool = False


@dataclass(frozen=True)
class ListedMessage:
    id: int
    created_at: datetime
    user_id: int | None
    kind: str
    text: str
    intent: str | None
    confidence: float | None
    route: str | None
    source: str | None
    language: str
    status: str
    failed: bool
    handoff: bool


@dataclass(frozen=True)
class MessagePage:
    rows: list[ListedMessage]
    next_before: int | None
    """The cursor of the next (older) page; None on the last one."""


def _language_of(row: InboundMessage) -> str:
    stored = row.entities.get("language") if isinstance(row.entities, dict) else None
    return stored if isinstance(stored, str) else detect_language(row.text)


async def _customers_behind(session: AsyncSession, query: str, country_code: str) -> list[int]:
    """The Telegram user ids a query names: itself as a user id, the owner of an order number, the
    customer with that phone (any way it is written), a customer's name or part of it, the customer
    of a return request's RMA number."""
    users = []
    if query.isdigit() and int(query) <= MAX_USER_ID:
        users.append(int(query))
    owner = await conversations.order_owner(session, number=query)
    if owner is not None:
        users.append(owner)
    phone = normalize_phone(query, country_code)
    rma = query.strip().upper()
    users += await conversations.customer_users(
        session,
        phone=phone if plausible_phone(phone) else None,
        name=query.strip() if len(query.strip()) >= 2 and not any(c.isdigit() for c in query) else None,
        rma_number=rma if rma.startswith("RMA") else None,
    )
    return list(dict.fromkeys(users))


async def list_messages(
    session: AsyncSession,
    filters: ConversationFilters,
    *,
    before: int | None = None,
    limit: int = PAGE_SIZE,
    exclude_users: Sequence[int] = (),
    country_code: str = DEFAULT_COUNTRY_CODE,
) -> MessagePage:
    """Customer messages matching every filter, newest first, `limit` per page.

    The query is text anywhere in the message, or the customer behind a user id, an order number,
    a phone (`country_code` completes a domestic one), a name or an RMA number."""
    search = filters.query.strip()[:MAX_QUERY] or None
    rows = await conversations.customer_messages_page(
        session,
        search=search,
        search_users=await _customers_behind(session, search, country_code) if search is not None else (),
        exclude_users=exclude_users,
        intent=filters.intent,
        route=filters.route,
        source=filters.source,
        language=filters.language,
        since=filters.since,
        until=filters.until,
        with_a_person=filters.handoff,
        failed=filters.failed,
        before=before,
        limit=limit + 1,
    )
    more = len(rows) > limit
    rows = rows[:limit]
    refused = await conversations.with_refused_replies(
        session, inbound_ids=[row.id for row in rows if row.id is not None]
    )
    listed = [
        ListedMessage(
            id=row.id or 0,
            created_at=row.created_at,
            user_id=row.telegram_user_id,
            kind=row.kind,
            text=mask_phones(row.text),
            intent=row.intent,
            confidence=row.confidence,
            route=row.route,
            source=row.answer_source,
            language=_language_of(row),
            status=row.status,
            failed=row.status in NOT_ANSWERED or row.id in refused,
            handoff=with_a_person(row.route, row.answer_source),
        )
        for row in rows
    ]
    return MessagePage(listed, listed[-1].id if more and listed else None)


async def filter_choices(session: AsyncSession) -> dict[str, list[str]]:
    """The values the filters offer: those present in recent traffic (distinct on indexed columns)."""
    choices: dict[str, list[str]] = {}
    fields: tuple[tuple[str, ListedField], ...] = (
        ("intent", "intent"),
        ("route", "route"),
        ("source", "answer_source"),
    )
    for name, listed in fields:
        values = await conversations.recent_values(session, field=listed, within=FILTER_CHOICES_FROM)
        choices[name] = sorted(value for value in values if value)
    return choices


# One conversation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CallLine:
    role: str
    endpoint: str
    model: str
    kind: str
    prompt_tokens: int
    completion_tokens: int
    ttft_ms: float | None
    total_ms: float
    retries: int
    cost_usd: float
    error: str | None


@dataclass(frozen=True)
class Reasoning:
    """Why a bot message was said: the customer message's understanding and the LLM reply."""

    inbound_id: int
    intent: str | None
    confidence: float | None
    entities: dict[str, Any]
    route: str | None
    understanding_route: str | None
    source: str | None
    faq: dict[str, Any] | None
    latency_ms: float | None
    status: str
    error: str | None
    llm: LLMReply | None = None
    calls: list[CallLine] = field(default_factory=list)

    @property
    def acceptance(self) -> float | None:
        if self.llm is None or not self.llm.draft_tokens:
            return None
        return self.llm.accepted_tokens / self.llm.draft_tokens


@dataclass(frozen=True)
class Bubble:
    side: str
    """"customer", "bot" or "staff" (a person's reply relayed to the customer)."""
    created_at: datetime
    text: str
    kind: str
    anchor: str
    outbound_id: int | None = None
    status: str | None = None
    error: str | None = None
    reasoning: Reasoning | None = None
    language: str | None = None
    buttons: tuple[str, ...] = ()
    """The labels of the buttons the message offered."""

    @property
    def arm(self) -> str | None:
        """The configuration (canary arm) whose model wrote or checked the reply; None where no
        model took part (the FAQ's text with no model configured)."""
        llm = self.reasoning.llm if self.reasoning is not None else None
        if llm is None or ReplyMode.from_label(llm.mode).step is Step.RETRIEVAL:
            return None
        return llm.arm


@dataclass(frozen=True)
class Customer360:
    name: str
    phone: str
    language: str
    orders: list[str]


@dataclass(frozen=True)
class Transcript:
    user_id: int
    customer: Customer360 | None
    bubbles: list[Bubble]
    earlier_before: int | None
    """Cursor for the older part when the conversation is longer than one page."""
    revealed: bool


def _entities(row: InboundMessage) -> dict[str, Any]:
    return dict(row.entities) if isinstance(row.entities, dict) else {}


def _reasoning(row: InboundMessage, llm: LLMReply | None, calls: list[LLMCall]) -> Reasoning:
    entities = _entities(row)
    faq = entities.pop("faq", None)
    understanding_route = entities.pop("route", None)
    entities.pop("language", None)
    return Reasoning(
        inbound_id=row.id or 0,
        intent=row.intent,
        confidence=row.confidence,
        entities=entities,
        route=row.route,
        understanding_route=understanding_route if isinstance(understanding_route, str) else None,
        source=row.answer_source,
        faq=faq if isinstance(faq, dict) else None,
        latency_ms=row.latency_ms,
        status=row.status,
        error=row.error,
        llm=llm,
        calls=[
            CallLine(
                c.role,
                c.endpoint,
                c.model,
                c.kind,
                c.prompt_tokens,
                c.completion_tokens,
                c.ttft_ms,
                c.total_ms,
                c.retries,
                c.cost_usd,
                c.error,
            )
            for c in calls
        ],
    )


async def _customer(session: AsyncSession, user_id: int, reveal: bool) -> Customer360 | None:
    customer = await customers.by_telegram_user(session, user_id)
    if customer is None:
        return None
    numbers = await orders.recent_order_numbers(session, customer_id=customer.id, limit=10)
    phone = customer.phone if reveal else mask_phone(customer.phone)
    return Customer360(customer.name, phone, customer.language, numbers)


async def load_transcript(
    session: AsyncSession,
    user_id: int,
    *,
    before: int | None = None,
    limit: int = TRANSCRIPT_LIMIT,
    reveal: bool = False,
) -> Transcript:
    """The newest `limit` customer messages (older than `before`) with everything sent around them."""
    received = await conversations.customer_messages_of(
        session, user_id=user_id, before=before, limit=limit + 1
    )
    more = len(received) > limit
    received = received[:limit]
    received.reverse()
    upper = None
    if before is not None:
        cursor = await session.get(InboundMessage, before)
        upper = cursor.created_at if cursor is not None else None
    lower = received[0].created_at if more and received else None
    sent = await _sent_to(
        session, user_id, lower=lower, upper=upper, empty=before is not None and not received
    )
    inbound_ids = {row.id for row in received if row.id is not None}
    inbound_ids |= {row.inbound_id for row in sent if row.inbound_id is not None}
    origins = await _inbound_by_id(session, inbound_ids - {row.id for row in received})
    origins.update({row.id: row for row in received if row.id is not None})
    llm, calls = await _llm_for(session, list(inbound_ids))
    reasons = {
        inbound_id: _reasoning(row, llm.get(inbound_id), calls.get(inbound_id, []))
        for inbound_id, row in origins.items()
        if inbound_id is not None
    }
    show = (lambda text: text) if reveal else mask_phones
    bubbles: list[tuple[tuple[datetime, int, int], Bubble]] = []
    for row in received:
        bubbles.append(
            (
                (row.created_at, 0, row.id or 0),
                Bubble(
                    "customer",
                    row.created_at,
                    show(row.text),
                    row.kind,
                    f"m{row.id}",
                    status=row.status,
                    language=_language_of(row),
                ),
            )
        )
    for out in sent:
        origin = origins.get(out.inbound_id) if out.inbound_id is not None else None
        # A person's words relayed, not the bot's own notice sent when staff close the hand-off.
        staff = out.staff_id is not None or (origin is not None and origin.route == ReplyRoute.STAFF_REPLY)
        bubbles.append(
            (
                (out.created_at, 1, out.id or 0),
                Bubble(
                    "staff" if staff else "bot",
                    out.created_at,
                    show(out.text),
                    out.method,
                    f"o{out.id}",
                    outbound_id=out.id,
                    status=out.status,
                    error=out.error,
                    reasoning=None if staff or out.inbound_id is None else reasons.get(out.inbound_id),
                    buttons=_labels(out.buttons),
                ),
            )
        )
    bubbles.sort(key=lambda pair: pair[0])
    return Transcript(
        user_id,
        await _customer(session, user_id, reveal),
        [bubble for _, bubble in bubbles],
        received[0].id if more and received else None,
        reveal,
    )


def _labels(stored: str | None) -> tuple[str, ...]:
    """The stored button labels (a JSON list); nothing for a message without buttons."""
    if not stored:
        return ()
    labels = json.loads(stored)
    return tuple(str(label) for label in labels) if isinstance(labels, list) else ()


async def _sent_to(
    session: AsyncSession, user_id: int, *, lower: datetime | None, upper: datetime | None, empty: bool
) -> list[OutboundMessage]:
    """What went to the customer's chat in the time the page covers."""
    if empty:
        return []
    return await conversations.sent_to_customer(session, user_id=user_id, since=lower, earlier_than=upper)


async def _inbound_by_id(
    session: AsyncSession, ids: Collection[int | None]
) -> dict[int | None, InboundMessage]:
    rows = await conversations.messages_by_id(session, ids=[i for i in ids if i is not None])
    return {row.id: row for row in rows}


async def _llm_for(
    session: AsyncSession, inbound_ids: list[int | None]
) -> tuple[dict[int, LLMReply], dict[int, list[LLMCall]]]:
    replies = await conversations.llm_replies_to(
        session, inbound_ids=[i for i in inbound_ids if i is not None]
    )
    by_inbound = {reply.inbound_id: reply for reply in replies}
    owner = {reply.id: reply.inbound_id for reply in replies}
    calls: dict[int, list[LLMCall]] = {}
    for call in await conversations.llm_calls_of(
        session, reply_ids=[reply.id for reply in replies if reply.id is not None]
    ):
        calls.setdefault(owner[call.reply_id], []).append(call)
    return by_inbound, calls
