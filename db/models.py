"""SQLModel tables for the shop and for the conversation logs admins read."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Text, UniqueConstraint, text
from sqlalchemy import false as sa_false
from sqlmodel import Field, SQLModel

from db.types import UTCDateTime, utcnow


def _created_at() -> Any:
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True)


class OrderStatus(StrEnum):
    PENDING = "pending"
    PAID = "paid"
    PREPARING = "preparing"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"


class ReturnKind(StrEnum):
    REFUND = "refund"
    EXCHANGE = "exchange"


class ReturnStatus(StrEnum):
    REQUESTED = "requested"
    APPROVED = "approved"
    RECEIVED = "received"
    REFUNDED = "refunded"
    REJECTED = "rejected"


OPEN_RETURN_STATUSES = (ReturnStatus.REQUESTED, ReturnStatus.APPROVED, ReturnStatus.RECEIVED)
"""Still being handled: an item with one of these gets no second request (refunded or rejected
ends it, and the item may be returned again)."""

_ONE_OPEN_RETURN_PER_ITEM = text(
    # Enum columns store the member names; the literal list must follow OPEN_RETURN_STATUSES.
    "status IN ('REQUESTED', 'APPROVED', 'RECEIVED') AND duplicate_of IS NULL"
)


class Customer(SQLModel, table=True):
    __tablename__ = "customers"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    external_id: str | None = Field(
        default=None, unique=True, description="the shop's own customer id: the import's natural key"
    )
    phone: str = Field(unique=True, description="digits only, country code included")
    email: str = ""
    telegram_user_id: int | None = Field(default=None, unique=True, sa_type=BigInteger)
    language: str = "ko"
    created_at: datetime = _created_at()


class Product(SQLModel, table=True):
    __tablename__ = "products"

    id: int | None = Field(default=None, primary_key=True)
    sku: str = Field(unique=True, index=True)
    name: str
    name_ko: str = ""
    name_en: str = ""
    name_ja: str = ""
    price: int = Field(description="in the currency's minor unit (won have none)")
    currency: str = "KRW"
    stock: int = 0
    restock_date: date | None = None
    options: str = Field(
        default="",
        description="sizes/colours, `|` separated as in the import file, each may be `S:3` (its stock)",
    )
    aliases: str = Field(default="", description="the shop's other words for it, `|` separated, any language")
    category: str = Field(
        default="", description="the kind of thing it is, as customers say it (원두, beans)"
    )


class Order(SQLModel, table=True):
    __tablename__ = "orders"

    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(unique=True, index=True)
    customer_id: int = Field(foreign_key="customers.id", index=True)
    status: OrderStatus = OrderStatus.PAID
    total: int = 0
    currency: str = "KRW"
    placed_at: datetime = _created_at()


class OrderItem(SQLModel, table=True):
    __tablename__ = "order_items"

    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(foreign_key="orders.id", index=True)
    product_id: int = Field(foreign_key="products.id")
    quantity: int = 1
    unit_price: int = 0
    option: str = ""


class Shipment(SQLModel, table=True):
    __tablename__ = "shipments"

    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(foreign_key="orders.id", unique=True)
    carrier: str
    tracking_number: str
    status: str = "in_transit"
    eta: date | None = None


class ShipmentEvent(SQLModel, table=True):
    """One line of a shipment's status history, as the carrier reported it."""

    __tablename__ = "shipment_events"

    id: int | None = Field(default=None, primary_key=True)
    shipment_id: int = Field(foreign_key="shipments.id", index=True)
    at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    status: str
    location: str = ""


class ReturnRequest(SQLModel, table=True):
    __tablename__ = "return_requests"
    __table_args__ = (
        # The rule "one open return per order line" held by the database, so two forms, two
        # instances or any other writer racing on one item cannot both file (migration 0009).
        Index(
            "uq_return_requests_open_item",
            "order_item_id",
            unique=True,
            sqlite_where=_ONE_OPEN_RETURN_PER_ITEM,
            postgresql_where=_ONE_OPEN_RETURN_PER_ITEM,
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    rma_number: str = Field(unique=True, index=True)
    idempotency_key: str = Field(
        unique=True, description="one per guided flow: a second tap finds the first request"
    )
    customer_id: int = Field(foreign_key="customers.id", index=True)
    order_id: int = Field(foreign_key="orders.id")
    order_item_id: int = Field(foreign_key="order_items.id")
    kind: ReturnKind
    reason: str
    status: ReturnStatus = ReturnStatus.REQUESTED
    created_at: datetime = _created_at()
    duplicate_of: int | None = Field(
        default=None,
        foreign_key="return_requests.id",
        description="set only by migration 0009: a second open request for the item, filed before the "
        "rule held, names the first; its number and status stay as the customer was told",
    )


class FaqEntry(SQLModel, table=True):
    __tablename__ = "faq_entries"
    __table_args__ = (UniqueConstraint("slug", "language"),)

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(index=True, description="same slug across languages")
    language: str = "ko"
    question: str
    answer: str = Field(sa_type=Text)
    tags: str = Field(default="", description="comma separated: returns, shipping, payment...")
    examples: str = Field(
        default="", sa_type=Text, description="other phrasings of the question, one per line"
    )


class InboundStatus(StrEnum):
    """Where an update is in its life; admins and the recovery loop read it."""

    RECEIVED = "received"
    """Stored, not answered yet: being handled (lease in the future) or due for another try."""
    ANSWERED = "answered"
    FAILED = "failed"
    """Handling raised an error that another try would not fix; the customer got the apology."""
    ABANDONED = "abandoned"
    """Given up on (too many tries, too old): the reason says why; an admin should look."""


class InboundMessage(SQLModel, table=True):
    """Every update the bot received, with what it made of it.

    Written before anything that can fail or wait runs (FSM storage, per-chat
    locks, handlers), with the raw update, so an update that could not be
    answered yet can be handled again from this row after a fault or a restart.
    Duplicates are per bot: two bots on one database, or Telegram restarting
    its ids, never collide.
    """

    __tablename__ = "inbound_messages"
    __table_args__ = (UniqueConstraint("bot_id", "update_id", name="uq_inbound_messages_bot_update"),)

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int | None = Field(default=None, sa_type=BigInteger)
    update_id: int | None = Field(default=None, sa_type=BigInteger)
    telegram_user_id: int | None = Field(default=None, index=True, sa_type=BigInteger)
    chat_id: int | None = Field(default=None, sa_type=BigInteger)
    kind: str = "text"
    text: str = Field(default="", sa_type=Text)
    raw_update: str | None = Field(default=None, sa_type=Text, description="the update as ASCII JSON")
    status: str = Field(default=InboundStatus.RECEIVED, index=True)
    status_reason: str | None = Field(default=None, sa_type=Text)
    attempts: int = 0
    lease_until: datetime | None = Field(
        default=None, sa_type=UTCDateTime, description="a handler owns the row until then"
    )
    apologized: bool = Field(default=False, description="the customer was told we will answer later")
    intent: str | None = Field(default=None, index=True)
    confidence: float | None = None
    entities: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    route: str | None = None
    answer_source: str | None = None
    latency_ms: float | None = None
    error: str | None = Field(default=None, sa_type=Text)
    dont_know: bool | None = Field(
        default=None,
        description="the answering path said it had no answer (its own 'I don't know', or a model's); "
        "None: recorded before the path said so",
    )
    created_at: datetime = _created_at()


class OutboundStatus(StrEnum):
    SENT = "sent"
    FAILED = "failed"
    """Telegram refused it after every retry; the text is kept so an admin can resend it."""
    RESENT = "resent"
    """Failed, then sent again by an admin (`/resend`); the new message has a row of its own."""
    RESENDING = "resending"
    """Claimed by an admin's resend that has not finished; never sent twice, even on a double click."""


class OutboundMessage(SQLModel, table=True):
    """Every message the bot sent (or edited), tied to the update that caused it."""

    __tablename__ = "outbound_messages"

    id: int | None = Field(default=None, primary_key=True)
    inbound_id: int | None = Field(default=None, foreign_key="inbound_messages.id", index=True)
    chat_id: int | None = Field(default=None, index=True, sa_type=BigInteger)
    telegram_user_id: int | None = Field(default=None, index=True, sa_type=BigInteger)
    method: str = "sendMessage"
    text: str = Field(default="", sa_type=Text)
    status: str = Field(default=OutboundStatus.SENT, index=True)
    error: str | None = Field(default=None, sa_type=Text)
    notice: bool = Field(
        default=False,
        sa_column_kwargs={"server_default": sa_false()},
        description="a note about the bot's own trouble ('we got your message'), not an answer",
    )
    payload: str | None = Field(
        default=None, sa_type=Text, description="a message refused for now: the call as JSON, sent again"
    )
    staff_id: int | None = Field(
        default=None, sa_type=BigInteger, description="written by this staff member in the console"
    )
    buttons: str | None = Field(
        default=None, sa_type=Text, description="the buttons the message offered, as a JSON list of labels"
    )
    created_at: datetime = _created_at()


class HandoffStatus(StrEnum):
    OPEN = "open"
    """Waiting for staff."""
    PENDING = "pending"
    """Staff wait for the customer; a message from them opens it again."""
    RESOLVED = "resolved"
    """Over: the customer is back with the bot (staff closed it, or the customer did)."""


class HandoffSession(SQLModel, table=True):
    """A customer talking to a person; open until the customer or staff ends it."""

    __tablename__ = "handoff_sessions"

    id: int | None = Field(default=None, primary_key=True)
    customer_user_id: int = Field(index=True, sa_type=BigInteger)
    customer_chat_id: int = Field(sa_type=BigInteger)
    language: str = "ko"
    opened_at: datetime = _created_at()
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    status: str = Field(default=HandoffStatus.OPEN, sa_column_kwargs={"server_default": "open"})
    assignee_id: int | None = Field(
        default=None, sa_type=BigInteger, description="the staff member who has it"
    )
    first_response_at: datetime | None = Field(
        default=None, sa_type=UTCDateTime, description="when staff first wrote to the customer"
    )
    resolved_by: int | None = Field(
        default=None, sa_type=BigInteger, description="None: the customer ended it"
    )
    tags: str = Field(default="", sa_column_kwargs={"server_default": ""}, description="`|`-separated")
    rating: int | None = Field(default=None, description="the customer's satisfaction, 1-5; 0: skipped")
    rating_asked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    rated_at: datetime | None = Field(default=None, sa_type=UTCDateTime)

    def tag_list(self) -> list[str]:
        return [tag for tag in self.tags.split("|") if tag]


class HandoffEventKind(StrEnum):
    BRIEF = "brief"
    """What staff were told when the hand-off opened (services/handoff/brief.py)."""
    CUSTOMER = "customer"
    """The customer wrote while a person had the conversation."""
    STAFF = "staff"
    """Staff wrote to the customer (from Telegram's support chat or the console)."""
    NOTE = "note"
    """An internal note: never sent to the customer."""
    CLAIMED = "claimed"
    STATUS = "status"
    TAGS = "tags"


class HandoffVia(StrEnum):
    TELEGRAM = "telegram"
    CONSOLE = "console"


class HandoffEvent(SQLModel, table=True):
    """One line of a hand-off's thread, as staff work it: what was said, noted and decided."""

    __tablename__ = "handoff_events"

    id: int | None = Field(default=None, primary_key=True)
    handoff_id: int = Field(foreign_key="handoff_sessions.id", index=True)
    kind: str
    author_id: int | None = Field(default=None, sa_type=BigInteger, description="None: the customer")
    via: str = HandoffVia.TELEGRAM
    text: str = Field(default="", sa_type=Text)
    created_at: datetime = _created_at()


class StaffMember(SQLModel, table=True):
    """A name for a staff member's Telegram id, as Telegram last showed it. Who may do what comes
    from the settings (CSBOT_ADMIN_IDS, CSBOT_STAFF_IDS), never from this table."""

    __tablename__ = "staff_members"

    user_id: int = Field(primary_key=True, sa_type=BigInteger)
    name: str = ""
    updated_at: datetime = _created_at()


class SavedReply(SQLModel, table=True):
    """A reply staff send often, in one language; picked in the console's reply box."""

    __tablename__ = "saved_replies"
    __table_args__ = (UniqueConstraint("title", "language"),)

    id: int | None = Field(default=None, primary_key=True)
    title: str
    language: str = Field(index=True)
    text: str = Field(sa_type=Text)
    updated_by: int | None = Field(default=None, sa_type=BigInteger)
    updated_at: datetime = _created_at()


class HandoffLink(SQLModel, table=True):
    """Which customer a message in the support chat stands for, so replies find their way back."""

    __tablename__ = "handoff_links"
    __table_args__ = (UniqueConstraint("support_chat_id", "support_message_id"),)

    id: int | None = Field(default=None, primary_key=True)
    support_chat_id: int = Field(sa_type=BigInteger)
    support_message_id: int
    handoff_id: int = Field(foreign_key="handoff_sessions.id")
    created_at: datetime = _created_at()


class LLMReply(SQLModel, table=True):
    """How one FAQ-style answer was made: drafter, verification, latency, tokens, cost."""

    __tablename__ = "llm_replies"

    id: int | None = Field(default=None, primary_key=True)
    inbound_id: int = Field(foreign_key="inbound_messages.id", index=True)
    mode: str
    drafter: str
    draft_tokens: int = 0
    accepted_tokens: int = 0
    verify_calls: int = 0
    ttft_ms: float | None = None
    total_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    dropped_turns: int = 0
    guard: str | None = Field(default=None, sa_type=Text)
    fallback_reason: str | None = Field(default=None, sa_type=Text)
    arm: str | None = Field(default=None, index=True, description="the canary arm that answered")
    created_at: datetime = _created_at()


class LLMCall(SQLModel, table=True):
    """One API call made for a reply, as the bill sees it."""

    __tablename__ = "llm_calls"

    id: int | None = Field(default=None, primary_key=True)
    reply_id: int = Field(foreign_key="llm_replies.id", index=True)
    role: str
    endpoint: str
    model: str
    kind: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ttft_ms: float | None = None
    total_ms: float = 0.0
    retries: int = 0
    cost_usd: float = 0.0
    error: str | None = Field(default=None, sa_type=Text)
    created_at: datetime = _created_at()


class ConsoleLoginLink(SQLModel, table=True):
    """A one-time link the bot sent an admin (`/console`); only its hash is kept.

    Whoever reads the table cannot log in with what is stored; `used_at` makes the
    link single-use even when two requests race (an UPDATE that only one wins).
    """

    __tablename__ = "console_login_links"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(unique=True, description="sha256 hex of the token in the link")
    admin_user_id: int = Field(sa_type=BigInteger)
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    used_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = _created_at()


class ConsoleSession(SQLModel, table=True):
    """A signed-in admin's browser; the cookie holds a random id, the table its hash."""

    __tablename__ = "console_sessions"

    id: int | None = Field(default=None, primary_key=True)
    session_hash: str = Field(unique=True)
    admin_user_id: int = Field(sa_type=BigInteger)
    csrf_token: str = Field(description="random per session; every form posts it back")
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    created_at: datetime = _created_at()


class AdminAudit(SQLModel, table=True):
    """Who did what in the console, and when: logins, resends, FAQ edits, revealed phone numbers."""

    __tablename__ = "admin_audit"

    id: int | None = Field(default=None, primary_key=True)
    admin_user_id: int | None = Field(default=None, index=True, sa_type=BigInteger)
    action: str = Field(index=True)
    target: str = ""
    detail: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = _created_at()


class CanaryArmState(SQLModel, table=True):
    """An arm's weight as it stands now: what admins, rollbacks and the schedule decided.

    `config_weight` is the configured weight this row was last reconciled with: when a
    deploy changes the configuration, the new configuration wins over an older decision.
    """

    __tablename__ = "canary_arms"

    arm: str = Field(primary_key=True)
    weight: float = 0.0
    config_weight: float = 0.0
    status: str = Field(default="active", description="active, rolled_back, manual or done")
    since: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    """Start of the arm's current stint."""
    since_reply: int = Field(
        default=0, description="the rails judge answers logged after this llm_replies id"
    )
    step: int | None = Field(default=None, description="index of the schedule step in force")
    step_since: datetime | None = Field(default=None, sa_type=UTCDateTime)
    step_reply: int = Field(default=0, description="the step's own answers come after this llm_replies id")
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class CanaryEvent(SQLModel, table=True):
    """The audit trail of every weight change: who or what changed it, why, with the numbers."""

    __tablename__ = "canary_events"

    id: int | None = Field(default=None, primary_key=True)
    arm: str = Field(index=True)
    action: str = Field(description="config, set, rollback, advance, complete")
    old_weight: float | None = None
    new_weight: float
    actor: str = Field(description="admin:<telegram id>, guard-rails, schedule or config")
    reason: str = Field(default="", sa_type=Text)
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = _created_at()


class ReplayRun(SQLModel, table=True):
    """One offline replay: its question list is fixed at the start so an interrupted run resumes."""

    __tablename__ = "replay_runs"

    id: int | None = Field(default=None, primary_key=True)
    config_hash: str = Field(index=True, description="sha256 of the candidate configuration")
    since: datetime = Field(sa_type=UTCDateTime, nullable=False)
    question_ids: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = _created_at()


class ReplayItem(SQLModel, table=True):
    """One replayed question's comparison, written as soon as it is done."""

    __tablename__ = "replay_items"
    __table_args__ = (UniqueConstraint("run_id", "inbound_id"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="replay_runs.id", index=True)
    inbound_id: int
    result: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = _created_at()
