"""Returns and exchanges: policy answers, request status, and filing a request once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, tzinfo

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Customer, Order, ReturnKind, ReturnRequest
from db.repositories import orders
from db.repositories import returns as return_requests
from db.repositories.returns import Filed as Filed  # the outcome `file_return` reports
from services.faq.entry import FaqDocument
from services.faq.replies import faq_reply
from services.llm.speculative import FaqReplies
from services.orders.shipping import needs_contact
from services.replies import AnswerSource, FollowUp, Reply, ReplyRoute, no_answer
from services.shop.local_time import local_day
from services.shop.policy import ShopPolicy
from services.shop.sources.base import ShopData, says_delivered
from services.text.normalize import normalize
from services.text.sentences import Language, t
from services.understanding.entities import Entities
from services.understanding.understand import ASKS_RETURN_STATUS, WANTS_TO_FILE_RETURN

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
    language: Language,
    faq: FaqReplies,
    user_id: int | None = None,
    *,
    shop: ShopData | None = None,
    zone: tzinfo,
    choices: tuple[FaqDocument, ...] = (),
    damaged: bool = False,
) -> Reply:
    """`choices`: FAQ entries to offer when no policy entry answers outright (services.faq.choices).
    `damaged`: the customer reports an item that arrived damaged or wrong
    (services.understanding.complaints)."""
    clean = normalize(text)
    asks_status = bool(ASKS_RETURN_STATUS.search(clean))
    if entities.rma_numbers or (asks_status and customer is not None):
        return await _status(session, customer, entities.rma_numbers, language, zone)
    if WANTS_TO_FILE_RETURN.search(clean):
        if customer is None:
            return needs_contact(language, ReplyRoute.RETURNS)
        return Reply(
            t("return_choose_order", language),
            AnswerSource.TEMPLATE,
            FollowUp.START_RETURN,
            ReplyRoute.RETURNS,
        )
    if damaged:  # a report, not a question: the policy entry would answer what was not asked
        return Reply(
            t("damaged_item", language),
            AnswerSource.TEMPLATE,
            FollowUp.OFFER_RETURN,
            ReplyRoute.RETURNS,
            choices=choices,
        )
    policy = await faq_reply(
        session,
        text,
        language,
        faq,
        customer=customer,
        user_id=user_id,
        route=ReplyRoute.RETURNS,
        shop=shop,
        zone=zone,
        follow_up=FollowUp.OFFER_RETURN,
    )
    if policy is not None:  # a model's answer: should nothing verified come of it, the entries
        return replace(policy, choices=choices)
    if asks_status:
        # "where is my refund?" from a customer not yet linked, and no entry answers it: who they
        # are is what would answer it ("I don't have a reliable answer" sent them nowhere).
        return needs_contact(language, ReplyRoute.RETURNS)
    return no_answer(language, choices, route=ReplyRoute.RETURNS, follow_up=FollowUp.OFFER_RETURN)


async def _status(
    session: AsyncSession,
    customer: Customer | None,
    rma_numbers: Sequence[str],
    language: Language,
    zone: tzinfo,
) -> Reply:
    if customer is None:
        return needs_contact(language, ReplyRoute.RETURNS)
    assert customer.id is not None
    lookups = [*rma_numbers, *(_compact_rma(number) for number in rma_numbers)]
    requests = await return_requests.for_customer(session, customer.id, rma_numbers=lookups)
    if not requests:
        if rma_numbers:
            text = t("rma_not_found", language, rma=", ".join(rma_numbers))
        else:  # no request yet is not "nothing can be returned": that is the flow's to say
            text = t("return_none_yet", language)
        return Reply(text, AnswerSource.TEMPLATE, route=ReplyRoute.RETURNS)
    lines = "\n".join(
        t(
            "return_status_line",
            language,
            rma=r.rma_number,
            status=t(f"return_status_{r.status}", language),
            kind=t(f"kind_{r.kind}", language),
            date=local_day(r.created_at, zone),
        )
        for r in requests
    )
    return Reply(t("return_status", language, lines=lines), AnswerSource.DATABASE, route=ReplyRoute.RETURNS)


def _compact_rma(number: str) -> str:
    """The spelling csbot files (`RMA-` and digits): "RMA-20261201-553745" typed with a dash
    inside still finds RMA-20261201553745."""
    return "RMA-" + number.removeprefix("RMA-").replace("-", "")


async def returnable_orders(session: AsyncSession, customer_id: int, policy: ShopPolicy) -> Sequence[Order]:
    """Orders in a returnable status, including ones past the window: the customer picks
    the order they mean and hears why it can't be returned, instead of not finding it."""
    return await orders.recent_orders(session, customer_id, limit=8, statuses=policy.returnable_statuses)


async def returnable_order(
    session: AsyncSession, customer_id: int, order_id: int, policy: ShopPolicy
) -> Order | None:
    """The order only if this customer owns it and its status can be returned (callback data is untrusted)."""
    order = await session.get(Order, order_id)
    if order is None or order.customer_id != customer_id or order.status not in policy.returnable_statuses:
        return None
    return order


@dataclass(frozen=True)
class Refusal:
    """Why this order cannot be returned, in words for the customer (who is offered a person)."""

    key: str
    number: str
    status: str
    values: dict[str, object] = field(default_factory=dict)

    def text(self, language: Language) -> str:
        status = t(f"status_{self.status}", language)
        return t(self.key, language, number=self.number, status=status, **self.values)


async def return_refusal(
    session: AsyncSession, order: Order, policy: ShopPolicy, now: datetime
) -> Refusal | None:
    """None when the shop's policy lets this order be returned now."""
    assert order.id is not None
    if order.status not in policy.returnable_statuses:
        cancellable = order.status in policy.cancellable_statuses
        key = "return_cancel_instead" if cancellable else "return_status_refused"
        return Refusal(key, order.number, order.status)
    _, events = await orders.shipment_with_events(session, order.id)
    delivered_at = max((e.at for e in events if says_delivered(e.status)), default=None)
    if policy.within_return_window(delivered_at, now):
        return None
    assert delivered_at is not None
    last_day = policy.return_deadline(delivered_at) - timedelta(days=1)
    return Refusal(
        "return_window_closed",
        order.number,
        order.status,
        {
            "delivered": local_day(delivered_at, policy.timezone),
            "days": policy.return_window_days,
            "last_day": f"{last_day:%Y-%m-%d}",
        },
    )


async def file_return(session: AsyncSession, draft: ReturnDraft) -> tuple[ReturnRequest, Filed]:
    """File the request once: a second call with the same key returns the first request, and an
    item whose earlier request is still open gets that request (its RMA number), not a second."""
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


async def open_return_for_item(session: AsyncSession, order_item_id: int) -> ReturnRequest | None:
    """Asked at the item step, so the customer hears about the open request before answering the
    rest; `file_return` decides again when it files."""
    return await return_requests.open_for_item(session, order_item_id)


async def already_filed(session: AsyncSession, idempotency_key: str) -> ReturnRequest | None:
    return await return_requests.by_idempotency_key(session, idempotency_key)
