"""Order and shipment answers for the customer who owns the order, and nobody else."""

from __future__ import annotations

import re
from dataclasses import replace

from services.orders.tracking import tracking_url
from services.replies import AnswerSource, FollowUp, Reply, ReplyRoute
from services.shop.local_time import local_minute
from services.shop.policy import ShopPolicy
from services.shop.sources.base import ShopData, ShopOrder
from services.text.sentences import Language, carrier_status, order_like, t
from services.understanding.entities import Entities

_SOMEONE_ELSE = re.compile(
    r"\b(user|customer|account|member)\s*(id\s*)?(no\.?\s*)?#?\s*\d{3,}|\b(someone|somebody) else"
    r"|\b(other|another) (people|person|customers?|users?|members?)\b"
    r"|다른\s?(사람|고객|회원|분)|남의|他の(人|方|お客|ユーザー|会員)"
    # A relative's or friend's order, or one they placed: "my friend's order", "엄마가 주문한",
    # "友達の注文". Not a gift the customer ordered for them ("a present for my mom", "엄마 선물로 주문").
    r"|\b(friend|wife|husband|mom|mum|mother|dad|father|sister|brother|neighbou?r|son|daughter)"
    r"('s|s'|\s+(ordered|bought))"
    r"|(?<![\uac00-\ud7a3])(친구|가족|엄마|어머니|아빠|아버지|남편|아내|와이프|동생|언니|오빠|누나|형)"
    r"(가|이|의|께서|\s?(주문|택배|배송))"  # not 대형 택배 (a large parcel)
    r"|(?<![\u4e00-\u9fff])(友達|友人|家族|母|父|夫|妻|姉|兄|妹|弟)(が|の(注文|荷物|配送))"  # not 大丈夫
)
_ORDER_WORD = re.compile(
    r"\b(orders?|ordered|packages?|parcels?|purchases?|shipments?)\b|주문|택배|배송|注文|荷物|配送"
)


def about_someone_elses_orders(text: str) -> bool:
    """The customer asks about orders that may not be theirs ("show me the orders of user 12345",
    "my friend's order"): they are answered about their own orders only, and told so, rather than
    shown their own list as if the request had been followed."""
    clean = text.lower()
    return bool(_SOMEONE_ELSE.search(clean) and _ORDER_WORD.search(clean))


def order_status_label(order: ShopOrder, language: Language) -> str:
    return t(f"status_{order.status}", language)


def describe_order(order: ShopOrder, language: Language, policy: ShopPolicy) -> str:
    """The order's status, its shipment with the carrier's tracking page, the delivery estimate
    and the latest event, in the shop's time zone."""
    lines = [t("order_status", language, number=order.number, status=order_status_label(order, language))]
    shipment = order.shipment
    if shipment is None:
        if order.status not in ("delivered", "cancelled"):
            lines.append(t("not_shipped_yet", language))
        return "\n".join(lines)
    lines.append(
        t(
            "shipment",
            language,
            carrier=shipment.carrier,
            tracking=shipment.tracking_number,
            status=carrier_status(shipment.status, language),
        )
    )
    url = tracking_url(shipment.carrier, shipment.tracking_number, policy.tracking_urls)
    if url is not None:
        lines.append(t("tracking_link", language, url=url))
    if shipment.eta is not None and order.status != "delivered":
        lines.append(t("shipment_eta", language, eta=shipment.eta.isoformat()))
    if shipment.events:
        last = max(shipment.events, key=lambda event: event.at)
        lines.append(
            t(
                "shipment_last_event",
                language,
                at=local_minute(last.at, policy.timezone),
                status=carrier_status(last.status, language),
                location=last.location or "-",
            )
        )
    return "\n".join(lines)


def needs_contact(language: Language, route: ReplyRoute) -> Reply:
    return Reply(t("need_contact", language), AnswerSource.TEMPLATE, FollowUp.SHARE_CONTACT, route)


async def answer_orders(
    shop: ShopData,
    customer_id: str | None,
    entities: Entities,
    language: Language,
    policy: ShopPolicy,
    text: str = "",
    *,
    order_example: str | None = None,
) -> Reply:
    """Status of the orders the customer names, or of their recent ones.

    An unknown number and someone else's number get the same reply, so the
    answer never reveals that an order exists. `text`: the customer's message, when
    it may ask about someone else's orders.
    """
    reply = await _own_orders(shop, customer_id, entities, language, policy, order_example)
    if about_someone_elses_orders(text):
        return replace(reply, text=f"{t('own_orders_only', language)}\n\n{reply.text}")
    return reply


async def _own_orders(
    shop: ShopData,
    customer_id: str | None,
    entities: Entities,
    language: Language,
    policy: ShopPolicy,
    order_example: str | None,
) -> Reply:
    if customer_id is None:
        return needs_contact(language, ReplyRoute.SHIPPING)
    if entities.order_numbers:
        parts = []
        found_any = False
        for reference in entities.order_numbers:
            order = await shop.order_of(customer_id, reference)
            if order is None:
                like = order_like(order_example, language)
                parts.append(t("order_not_found", language, reference=reference, like=like))
            else:
                found_any = True
                parts.append(describe_order(order, language, policy))
        source = AnswerSource.DATABASE if found_any else AnswerSource.TEMPLATE
        return Reply("\n\n".join(parts), source, route=ReplyRoute.SHIPPING)
    recent = await shop.orders_of(customer_id)
    named = {sku.upper() for sku in entities.products}
    holding = [order for order in recent if any(item.sku.upper() in named for item in order.items)]
    if entities.products and holding:
        recent = holding  # "콜롬비아 시킨거는 어디쯤이에요?": the orders with that product in them
    if not recent:
        return Reply(t("no_orders", language), AnswerSource.DATABASE, route=ReplyRoute.SHIPPING)
    if len(recent) == 1:
        return Reply(
            describe_order(recent[0], language, policy), AnswerSource.DATABASE, route=ReplyRoute.SHIPPING
        )
    lines = "\n".join(
        t("order_line", language, number=o.number, status=order_status_label(o, language)) for o in recent
    )
    return Reply(t("recent_orders", language, lines=lines), AnswerSource.DATABASE, route=ReplyRoute.SHIPPING)
