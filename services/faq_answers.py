"""FAQ-style replies: the shop's FAQ entry as the draft, verified and streamed by the LLM service."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer
from db.repositories import orders
from services.llm.speculative import AnswerRequest, SpeculativeAnswerer
from services.replies import AnswerSource, FollowUp, Reply
from services.texts import money


async def faq_reply(
    question: str,
    language: str,
    answerer: SpeculativeAnswerer,
    *,
    tags: tuple[str, ...] = (),
    route: str = "faq",
    follow_up: FollowUp = FollowUp.NONE,
    facts: str = "",
    require_entry: bool = False,
) -> Reply | None:
    """A streaming reply, or None when nothing can answer (no FAQ entry and no model).

    `require_entry` keeps the model out of questions the database should answer
    when no policy entry fits (shipping: then it is about the customer's order).
    """
    found = await answerer.lookup.answer(question, language=language, tags=tags)
    if found is None and (require_entry or not answerer.generates):
        return None
    request = AnswerRequest(
        question=question,
        language=language,
        faq=found,
        # The matched entry alone when there is one: every verification call pays for the prompt.
        faq_context=found.text if found else answerer.lookup.context(question, language=language),
        facts=facts,
    )
    source = AnswerSource.LLM if answerer.generates else AnswerSource.FAQ
    return Reply("", source, follow_up, route, stream=answerer.stream(request))


async def customer_facts(session: AsyncSession, customer: Customer | None) -> str:
    """This customer's own orders, for the model; nobody else's data ever reaches a prompt."""
    if customer is None or customer.id is None:
        return ""
    lines = [f"Customer: {customer.name}"]
    for order in await orders.recent_orders(session, customer.id):
        lines.append(
            f"Order {order.number}: {order.status}, placed {order.placed_at:%Y-%m-%d}, "
            f"total {money(order.total, order.currency)}"
        )
    return "\n".join(lines)
