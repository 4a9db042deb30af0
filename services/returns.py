"""Returns and exchanges: policy answers, request status, and filing a request once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer, Order, OrderStatus, ReturnKind, ReturnRequest
from db.repositories import orders
from db.repositories import returns as return_requests
from services.entities import Entities
from services.faq_answers import faq_reply
from services.llm.speculative import SpeculativeAnswerer
from services.replies import AnswerSource, FollowUp, Reply
from services.shipping import needs_contact
from services.text_normalize import normalize
from services.texts import t
from services.understanding import ASKS_RETURN_STATUS, WANTS_TO_FILE_RETURN

RETURNABLE_STATUSES = (OrderStatus.SHIPPED, OrderStatus.DELIVERED)
REASON_KEYS = ("damaged", "wrong_item", "size", "changed_mind")
MAX_REASON_CHARS = 500


@dataclass(frozen=True)
class ReturnDraft:
    """What the guided flow collected, ready to be filed."""

    idempotency_key: str
    customer_id: int
    order_id: int
    order_item_id: int
    reason: str
    kind: ReturnKind


async def answer_returns(
    session: AsyncSession,
    customer: Customer | None,
    text: str,
    entities: Entities,
    language: str,
    faq: SpeculativeAnswerer,
    user_id: int | None = None,
) -> Reply:
    clean = normalize(text)
    if entities.rma_numbers or (ASKS_RETURN_STATUS.search(clean) and customer is not None):
        return await _status(session, customer, entities.rma_numbers, language)
    if WANTS_TO_FILE_RETURN.search(clean):
        if customer is None:
            return needs_contact(language, "returns")
        return Reply(
            t("return_choose_order", language), AnswerSource.TEMPLATE, FollowUp.START_RETURN, "returns"
        )
    policy = await faq_reply(
        session,
        text,
        language,
        faq,
        customer=customer,
        user_id=user_id,
        route="returns",
        follow_up=FollowUp.OFFER_RETURN,
    )
    return policy or Reply(
        t("faq_no_match", language), AnswerSource.TEMPLATE, FollowUp.OFFER_RETURN, "returns"
    )


async def _status(
    session: AsyncSession, customer: Customer | None, rma_numbers: Sequence[str], language: str
) -> Reply:
    if customer is None:
        return needs_contact(language, "returns")
    assert customer.id is not None
    requests = await return_requests.for_customer(session, customer.id, rma_numbers=rma_numbers)
    if not requests:
        if rma_numbers:
            text = t("rma_not_found", language, rma=", ".join(rma_numbers))
        else:
            text = t("return_no_eligible", language)
        return Reply(text, AnswerSource.TEMPLATE, route="returns")
    lines = "\n".join(
        t(
            "return_status_line",
            language,
            rma=r.rma_number,
            status=t(f"return_status_{r.status}", language),
            kind=t(f"kind_{r.kind}", language),
            date=f"{r.created_at:%Y-%m-%d}",
        )
        for r in requests
    )
    return Reply(t("return_status", language, lines=lines), AnswerSource.DATABASE, route="returns")


async def returnable_orders(session: AsyncSession, customer_id: int) -> Sequence[Order]:
    return await orders.recent_orders(session, customer_id, limit=8, statuses=RETURNABLE_STATUSES)


async def returnable_order(session: AsyncSession, customer_id: int, order_id: int) -> Order | None:
    """The order only if this customer owns it and it can be returned (callback data is untrusted)."""
    order = await session.get(Order, order_id)
    if order is None or order.customer_id != customer_id or order.status not in RETURNABLE_STATUSES:
        return None
    return order


async def file_return(session: AsyncSession, draft: ReturnDraft) -> tuple[ReturnRequest, bool]:
    """File the request; a second call with the same key returns the first request."""
    lines = await orders.order_lines(session, draft.order_id)
    if not any(line.item.id == draft.order_item_id for line in lines):
        raise ValueError("order item does not belong to the order")
    request = ReturnRequest(
        rma_number=return_requests.new_rma_number(),
        idempotency_key=draft.idempotency_key,
        customer_id=draft.customer_id,
        order_id=draft.order_id,
        order_item_id=draft.order_item_id,
        kind=draft.kind,
        reason=draft.reason[:MAX_REASON_CHARS],
    )
    return await return_requests.create_once(session, request)


async def already_filed(session: AsyncSession, idempotency_key: str) -> ReturnRequest | None:
    return await return_requests.by_idempotency_key(session, idempotency_key)
