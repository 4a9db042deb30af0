"""FAQ-style replies: the shop's FAQ entry as the draft, verified and streamed by the LLM service."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, tzinfo

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer, InboundMessage
from db.repositories import logs
from services.faq.lookup import FaqAnswer, FaqLookupAnswerer, entries_text
from services.llm.fact_guard import customer_wrote
from services.llm.gateway import Message
from services.llm.speculative import AnswerRequest, FaqReplies
from services.replies import AnswerSource, FollowUp, Reply, ReplyRoute
from services.shop.local_time import local_day
from services.shop.money import money
from services.shop.sources.base import ShopData, ShopDataUnavailable
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
    """This customer's own orders, for the model; nobody else's data ever reaches a prompt.

    Read from wherever the shop's data lives; if that is down, the model gets the name only
    (and the fact guard keeps it from inventing order details). `as_of` leaves out orders
    placed later (an offline replay of an old question).
    """
    if customer is None or customer.id is None:
        return ""
    lines = [f"Customer: {customer_wrote(customer.name)}"]
    try:
        recent = await (shop or LocalShopData(session)).orders_of(customer_id_of(customer))
    except ShopDataUnavailable:
        return lines[0]
    for order in recent:
        if as_of is not None and order.placed_at > as_of:
            continue
        total = "" if order.total is None else f", total {money(order.total, order.currency)}"
        placed = local_day(order.placed_at, zone)
        lines.append(f"Order {order.number}: {order.status}, placed {placed}{total}")
    return "\n".join(lines)


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
