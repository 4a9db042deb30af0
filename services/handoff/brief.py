"""What staff see first when a customer asks for a person.

A name and a Telegram id make staff ask "who is this, which order?" before they
can help; the brief answers that up front: the linked customer, their recent
orders (read through the shop, like every order read) and the last few turns
of the conversation. It is plain text (sent without parse mode): customer words
are data and never become markup.
"""

from __future__ import annotations

import logging
from datetime import tzinfo

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, OutboundMessage
from db.repositories import customers, logs
from services.shop.local_time import local_day
from services.shop.money import money
from services.shop.sources.base import ShopData, ShopDataUnavailable
from services.shop.sources.local import customer_id_of

logger = logging.getLogger(__name__)

RECENT_ORDERS = 3
LAST_TURNS = 6
TURN_CHARS = 300
BRIEF_CHARS = 3500
"""Well under Telegram's 4096, so the brief always goes out as one message."""


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


async def _customer_lines(session: AsyncSession, shop: ShopData, user_id: int, zone: tzinfo) -> list[str]:
    customer = await customers.by_telegram_user(session, user_id)
    if customer is None:
        return ["Customer: not linked (no phone number shared yet)"]
    lines = [f"Customer: {customer.name}, customer id {customer_id_of(customer)}, phone +{customer.phone}"]
    try:
        orders = await shop.orders_of(customer_id_of(customer), limit=RECENT_ORDERS)
    except ShopDataUnavailable:
        logger.warning("shop unavailable for the hand-off brief", extra={"user_id": user_id})
        return [*lines, "Recent orders: the shop's system did not answer"]
    if not orders:
        return [*lines, "Recent orders: none"]
    lines.append("Recent orders:")
    for order in orders:
        total = f", {money(order.total, order.currency)}" if order.total is not None else ""
        lines.append(f"- {order.number} {order.status}, placed {local_day(order.placed_at, zone)}{total}")
    return lines


async def _turn_lines(session: AsyncSession, user_id: int, chat_id: int) -> list[str]:
    rows = await logs.conversation(session, user_id, limit=LAST_TURNS * 3, delivered_only=True)
    turns: list[str] = []
    for row in rows:
        if isinstance(row, InboundMessage) and row.kind != "callback" and row.text:
            turns.append(f"Customer: {_clip(row.text, TURN_CHARS)}")
        elif isinstance(row, OutboundMessage) and row.chat_id == chat_id and row.text:
            turns.append(f"Bot: {_clip(row.text, TURN_CHARS)}")
    if not turns:
        return []
    return ["Last turns:", *turns[-LAST_TURNS:]]


async def staff_brief(
    session: AsyncSession,
    shop: ShopData,
    *,
    handoff_id: int | None,
    user_id: int,
    chat_id: int,
    display_name: str,
    username: str | None = None,
    zone: tzinfo,
) -> str:
    """The header of a hand-off in the support chat; replies to it reach the customer. Dates are
    the shop's (`zone`)."""
    who = f"{display_name} (@{username})" if username else display_name
    lines = [f"Hand-off #{handoff_id}: {who}, Telegram user {user_id}"]
    lines += await _customer_lines(session, shop, user_id, zone)
    lines += await _turn_lines(session, user_id, chat_id)
    lines.append("Reply to this or any forwarded message to answer; reply /close to end.")
    text = "\n".join(lines)
    return text if len(text) <= BRIEF_CHARS else text[: BRIEF_CHARS - 1] + "…"
