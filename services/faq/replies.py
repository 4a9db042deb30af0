"""FAQ-style replies: the shop's FAQ entry as the draft, verified and streamed by the LLM service."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer, InboundMessage
from db.repositories import logs
from services.faq.lookup import FaqAnswer, FaqLookupAnswerer, entries_text
from services.llm.fact_guard import customer_wrote
from services.llm.gateway import Message
from services.llm.speculative import AnswerRequest, FaqReplies
from services.replies import AnswerSource, FollowUp, Reply, ReplyRoute
from services.shop.local_time import in_zone, local_day
from services.shop.money import money
from services.shop.sources.base import ShopData, ShopDataUnavailable, ShopOrder
from services.shop.sources.local import LocalShopData, customer_id_of
from services.text.sentences import Language


async def faq_reply(
    session: AsyncSession,
    question: str,
    language: Language,
    answerer: FaqReplies,
    *,
    customer: Customer | None,
    user_id: int | None,
    tags: tuple[str, ...] = (),
    route: ReplyRoute = ReplyRoute.FAQ,
    follow_up: FollowUp = FollowUp.NONE,
    require_entry: bool = False,
    shop: ShopData | None = None,
    zone: tzinfo,
) -> Reply | None:
    """A streaming reply, or None when nothing can answer (no FAQ entry and no model).

    `require_entry` keeps the model out of questions the database should answer
    when no policy entry fits (shipping: then it is about the customer's order).
    """
    found = await answerer.lookup.answer(question, language=language, tags=tags)
    if found is None and (require_entry or not answerer.generates):
        return None
    facts, history = "", []
    if answerer.generates:  # the FAQ text alone needs neither
        facts = await customer_facts(session, customer, shop, zone=zone)
        history = await recent_turns(session, user_id)
    request = answer_request(question, language, found, answerer.lookup, facts=facts, history=history)
    source = AnswerSource.LLM if answerer.generates else AnswerSource.FAQ
    return Reply("", source, follow_up, route, stream=answerer.stream(request))


def answer_request(
    question: str,
    language: Language,
    found: FaqAnswer | None,
    lookup: FaqLookupAnswerer,
    *,
    facts: str,
    history: Sequence[Message],
) -> AnswerRequest:
    """What the model is asked with: the matched entry alone as context when there is one (every
    verification call pays for the prompt), else the closest entries; the closest entries but the
    matched one are the candidates a `shop_text` target may confirm instead."""
    related = lookup.related(question, language=language)
    return AnswerRequest(
        question=question,
        language=language,
        faq=found,
        faq_context=found.text if found else entries_text(related),
        facts=facts,
        history=history,
        candidates=tuple(d.answer for d in related if found is None or d.answer != found.text),
    )


async def customer_facts(
    session: AsyncSession,
    customer: Customer | None,
    shop: ShopData | None = None,
    *,
    zone: tzinfo,
    as_of: datetime | None = None,
) -> str:
    """Today's date and this customer's own orders, for the model; nobody else's data ever
    reaches a prompt.

    Read from wherever the shop's data lives; if that is down, the model gets the date and the
    name only (and the fact guard keeps it from inventing order details). `as_of` is the moment
    asked about: an offline replay of an old question gets that day, and no order placed later.
    """
    moment = as_of if as_of is not None else datetime.now(UTC)
    lines = [today_fact(moment, zone)]
    if customer is None or customer.id is None:
        return lines[0]
    lines.append(f"Customer: {customer_wrote(customer.name)}")
    try:
        recent = await (shop or LocalShopData(session)).orders_of(customer_id_of(customer))
    except ShopDataUnavailable:
        return "\n".join(lines)
    if as_of is not None:  # stored times may be naive (UTC, as SQLite returns them)
        recent = [order for order in recent if in_zone(order.placed_at, UTC) <= in_zone(as_of, UTC)]
    lines.extend(order_fact(order, zone) for order in recent)
    return "\n".join(lines)


WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def today_fact(moment: datetime, zone: tzinfo) -> str:
    """`Today: 2026-12-02 (Wednesday)`, the shop's calendar day: whether a return window is still
    open, or whether today's order makes a weekday's dispatch, is worked out from it."""
    local = in_zone(moment, zone)
    return f"Today: {local:%Y-%m-%d} ({WEEKDAYS[local.weekday()]})"


def order_fact(order: ShopOrder, zone: tzinfo) -> str:
    """One order as the model reads it: `Order 20261128-000451: delivered, placed 2026-11-28,
    total ₩89,000, cast-iron pot 24 cm x1, shipped 2026-11-29, delivered 2026-11-30, tracking
    6012-3456-7890 (CJ대한통운)`. Shipped is the carrier's first event; an order still on its way
    has its expected day instead of a delivered one."""
    said = [order.status, f"placed {local_day(order.placed_at, zone)}"]
    if order.total is not None:
        said.append(f"total {money(order.total, order.currency)}")
    said.extend(
        f"{line.name}{f' ({line.option})' if line.option else ''} x{line.quantity}" for line in order.items
    )
    shipment = order.shipment
    if shipment is not None:
        if shipment.events:
            said.append(f"shipped {local_day(min(event.at for event in shipment.events), zone)}")
        delivered = order.delivered_at
        if delivered is not None:
            said.append(f"delivered {local_day(delivered, zone)}")
        elif shipment.eta is not None:
            said.append(f"expected {shipment.eta:%Y-%m-%d}")
        said.append(f"tracking {shipment.tracking_number} ({shipment.carrier})")
    return f"Order {order.number}: " + ", ".join(said)


async def recent_turns(
    session: AsyncSession, user_id: int | None, *, limit: int = 20, until: datetime | None = None
) -> list[Message]:
    """The conversation so far, from the log, as chat turns (the trimmer fits it to the window).

    The message being answered is already logged; it is dropped here because
    the question is added to the prompt on its own.
    """
    if user_id is None:
        return []
    rows = await logs.conversation(session, user_id, limit=limit + 1, delivered_only=True, until=until)
    if rows and isinstance(rows[-1], InboundMessage):
        rows = rows[:-1]
    turns: list[Message] = []
    for row in rows:
        role = "user" if isinstance(row, InboundMessage) else "assistant"
        if not row.text.strip() or (isinstance(row, InboundMessage) and row.kind != "text"):
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += "\n" + row.text
        else:
            turns.append({"role": role, "content": row.text})
    while turns and turns[0]["role"] != "user":
        turns.pop(0)
    return turns
