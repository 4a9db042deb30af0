""" "Can I cancel order X?": answered from the order's status and the shop's cancellation policy.

csbot never cancels anything itself (it only reads the shop's data); it tells the customer
whether the order can still be cancelled under the shop's rules and how, or why not.
"""

from __future__ import annotations

import re

from services.orders.shipping import needs_contact
from services.replies import AnswerSource, FollowUp, Reply, ReplyRoute
from services.shop.policy import ShopPolicy
from services.shop.sources.base import ShopData
from services.text.normalize import normalize
from services.text.sentences import Language, order_like, t
from services.understanding.entities import Entities

_WANTS_CANCEL = re.compile(r"\bcancel|취소|キャンセル|取り消")
_ABOUT_A_RETURN = re.compile(r"\b(return|exchange|refund)|반품|교환|환불|返品|交換|返金")


def asks_to_cancel(text: str, entities: Entities) -> bool:
    """Only about a named order: the general "how do I cancel?" is the FAQ's."""
    clean = normalize(text)
    if not entities.order_numbers or _ABOUT_A_RETURN.search(clean):  # cancelling a return is not this
        return False
    return _WANTS_CANCEL.search(clean) is not None


async def answer_cancellation(
    shop: ShopData,
    customer_id: str | None,
    entities: Entities,
    language: Language,
    policy: ShopPolicy,
    *,
    order_example: str | None = None,
) -> Reply:
    """`order_example`: a made-up number of the shop's shape, for "not found (it looks like ...)"."""
    if customer_id is None:
        return needs_contact(language, ReplyRoute.CANCEL)
    reference = entities.order_numbers[0]
    order = await shop.order_of(customer_id, reference)
    if order is None:  # someone else's reads exactly like a missing one
        return Reply(
            t("order_not_found", language, reference=reference, like=order_like(order_example, language)),
            AnswerSource.TEMPLATE,
            route=ReplyRoute.CANCEL,
        )
    status = t(f"status_{order.status}", language)
    if order.status == "cancelled":
        return Reply(
            t("cancel_already", language, number=order.number), AnswerSource.DATABASE, route=ReplyRoute.CANCEL
        )
    if order.status in policy.cancellable_statuses:
        text = t("cancel_possible", language, number=order.number, status=status)
        return Reply(text, AnswerSource.DATABASE, FollowUp.OFFER_HAND_OFF, ReplyRoute.CANCEL)
    follow_up = (
        FollowUp.OFFER_RETURN if order.status in policy.returnable_statuses else FollowUp.OFFER_HAND_OFF
    )
    text = t("cancel_not_possible", language, number=order.number, status=status)
    return Reply(text, AnswerSource.DATABASE, follow_up, ReplyRoute.CANCEL)
