"""Thin Telegram adapters, one router per feature, assembled in `create_routers`."""

from __future__ import annotations

from aiogram import F, Router

from handlers import admin, canary, fallback, faq_choices, generation, handoff, inquiries, returns, start


def create_routers(*, support_chat_id: int | None) -> list[Router]:
    """Routers in the order updates should try them.

    Routers are built per dispatcher (aiogram attaches a router to one parent
    only), so tests can build as many dispatchers as they like.
    """
    routers: list[Router] = []
    if support_chat_id is not None:
        routers.append(handoff.create_support_router(support_chat_id))

    customer = Router(name="customer")
    customer.message.filter(F.chat.type == "private")
    customer.include_routers(
        admin.create_router(),
        admin.create_staff_router(),
        canary.create_router(),
        start.create_router(),
        handoff.create_customer_router(),
        returns.create_router(),
        inquiries.create_router(),
        faq_choices.create_router(),
        fallback.create_router(),
    )
    routers.append(customer)
    routers.append(generation.create_router())
    return routers
