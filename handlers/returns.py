"""The guided return/exchange flow: order -> item -> reason -> exchange or refund -> confirm."""

from __future__ import annotations

import secrets
from typing import Any

from aiogram import F, Router
from aiogram.filters import Command
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message, User
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.config import Settings
from db.models import ReturnKind
from db.repositories import orders
from db.types import utcnow
from handlers.context import button_language, language_of, linked_customer, say
from handlers.keyboards import ReturnStep, choices, offer_person, share_contact_keyboard, start_return_of
from services import returns
from services.conversation_log import Interaction
from services.replies import AnswerSource
from services.shopdata.base import ShopDataUnavailable
from services.shopdata.factory import shop_data
from services.shopdata.mirror import mirror_returnable_orders
from services.texts import t


class ReturnFlow(StatesGroup):
    choosing_order = State()
    choosing_item = State()
    choosing_reason = State()
    choosing_kind = State()
    confirming = State()


def _idempotency_key(user_id: int, flow: str) -> str:
    return f"{user_id}:{flow}"


def _cancel_row(flow: str, language: str) -> tuple[str, str]:
    return (t("button_cancel", language), ReturnStep(action="cancel", flow=flow).pack())


async def start_return_flow(
    message: Message,
    user: User,
    session: AsyncSession,
    state: FSMContext,
    language: str,
    settings: Settings,
    order_reference: str | None = None,
) -> None:
    """Open a fresh form; each form gets its own id so stale or repeated taps are recognised."""
    customer = await linked_customer(session, user)
    if customer is None:
        await say(message, t("need_contact", language), reply_markup=share_contact_keyboard(language))
        return
    assert customer.id is not None
    policy = settings.shop_policy()
    if settings.shop_api_url is not None:
        try:
            await mirror_returnable_orders(session, shop_data(session, settings), customer, policy)
        except ShopDataUnavailable:
            await say(message, t("shop_unavailable", language), reply_markup=offer_person(language))
            return
    flow = secrets.token_hex(4)
    await state.set_state(ReturnFlow.choosing_order)
    await state.set_data({"flow": flow, "customer_id": customer.id, "language": language})
    if order_reference is not None:
        named = await orders.owned_order(session, customer.id, order_reference)
        if named is not None and named.id is not None:
            refusal = await returns.return_refusal(session, named, policy, utcnow())
            if refusal is not None:
                await state.clear()
                await say(message, refusal.text(language), reply_markup=offer_person(language))
                return
            await _ask_item(message, state, session, named.id, named.number)
            return
    eligible = await returns.returnable_orders(session, customer.id, policy)
    if not eligible:
        await state.clear()
        await say(message, t("return_no_eligible", language))
        return
    rows = [
        (
            f"{order.number} ({t(f'status_{order.status}', language)})",
            ReturnStep(action="order", flow=flow, value=str(order.id)).pack(),
        )
        for order in eligible
    ]
    await say(
        message,
        t("return_choose_order", language),
        reply_markup=choices([*rows, _cancel_row(flow, language)]),
    )


async def _ask_item(
    message: Message, state: FSMContext, session: AsyncSession, order_id: int, number: str
) -> None:
    data = await state.get_data()
    flow, language = data["flow"], data["language"]
    lines = await orders.order_lines(session, order_id)
    await state.update_data(order_id=order_id, order_number=number)
    await state.set_state(ReturnFlow.choosing_item)
    rows = [
        (
            f"{line.product.name} {line.item.option}".strip(),
            ReturnStep(action="item", flow=flow, value=str(line.item.id)).pack(),
        )
        for line in lines
    ]
    await say(
        message,
        t("return_choose_item", language, number=number),
        reply_markup=choices([*rows, _cancel_row(flow, language)]),
    )


def _reason_keyboard(flow: str, language: str) -> InlineKeyboardMarkup:
    rows = [
        (t(f"reason_{key}", language), ReturnStep(action="reason", flow=flow, value=key).pack())
        for key in returns.REASON_KEYS
    ]
    return choices([*rows, _cancel_row(flow, language)])


def _kind_keyboard(flow: str, language: str) -> InlineKeyboardMarkup:
    rows = [
        (t(f"kind_{kind}", language), ReturnStep(action="kind", flow=flow, value=kind.value).pack())
        for kind in ReturnKind
    ]
    return choices([*rows, _cancel_row(flow, language)])


async def _ask_kind(message: Message, state: FSMContext, reason: str) -> None:
    data = await state.update_data(reason=reason)
    await state.set_state(ReturnFlow.choosing_kind)
    await say(
        message,
        t("return_choose_kind", data["language"]),
        reply_markup=_kind_keyboard(data["flow"], data["language"]),
    )


def create_router() -> Router:
    router = Router(name="returns")

    @router.message(Command("return"))
    async def on_command(
        message: Message,
        session: AsyncSession,
        state: FSMContext,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        interaction.routed("returns", AnswerSource.TEMPLATE)
        assert message.from_user is not None
        await start_return_flow(
            message, message.from_user, session, state, language_of(message.from_user), settings
        )

    @router.message(ReturnFlow.choosing_reason, F.text)
    async def on_typed_reason(message: Message, state: FSMContext, interaction: Interaction) -> None:
        interaction.routed("returns", AnswerSource.TEMPLATE)
        data = await state.get_data()
        text = (message.text or "").strip()
        if not text or len(text) > returns.MAX_REASON_CHARS:
            await say(message, t("return_reason_too_long", data["language"]))
            return
        await _ask_kind(message, state, text)

    @router.callback_query(ReturnStep.filter(F.action == "start"))
    async def on_start_button(
        query: CallbackQuery,
        callback_data: ReturnStep,
        session: AsyncSession,
        state: FSMContext,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        interaction.routed("returns", AnswerSource.TEMPLATE)
        await query.answer()
        language, order = start_return_of(callback_data)
        if isinstance(query.message, Message):
            await start_return_flow(
                query.message,
                query.from_user,
                session,
                state,
                button_language(language) or language_of(query.from_user),
                settings,
                order,
            )

    @router.callback_query(ReturnStep.filter())
    async def on_step(
        query: CallbackQuery,
        callback_data: ReturnStep,
        session: AsyncSession,
        state: FSMContext,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        interaction.routed("returns", AnswerSource.TEMPLATE)
        data: dict[str, Any] = await state.get_data()
        language = data.get("language") or language_of(query.from_user)
        message = query.message if isinstance(query.message, Message) else None
        if callback_data.flow != data.get("flow"):
            await query.answer()
            await _stale_tap(query, callback_data, session, language, message)
            return
        await query.answer()
        if message is None:
            return
        match callback_data.action:
            case "cancel":
                await state.clear()
                await message.edit_text(t("return_cancelled", language), parse_mode=None)
            case "order":
                policy = settings.shop_policy()
                order = await returns.returnable_order(
                    session, data["customer_id"], int(callback_data.value), policy
                )
                if order is None or order.id is None:
                    await state.clear()
                    await message.edit_text(t("return_expired", language), parse_mode=None)
                    return
                refusal = await returns.return_refusal(session, order, policy, utcnow())
                if refusal is not None:
                    await state.clear()
                    await message.edit_text(
                        refusal.text(language), parse_mode=None, reply_markup=offer_person(language)
                    )
                    return
                await _ask_item(message, state, session, order.id, order.number)
            case "item":
                lines = await orders.order_lines(session, data["order_id"])
                line = next((ln for ln in lines if str(ln.item.id) == callback_data.value), None)
                if line is None or line.item.id is None:
                    return
                label = f"{line.product.name} {line.item.option}".strip()
                open_one = await returns.open_return_for_item(session, line.item.id)
                if open_one is not None:
                    await state.clear()
                    await say(message, t("return_item_open", language, item=label, rma=open_one.rma_number))
                    return
                await state.update_data(item_id=line.item.id, item_label=label)
                await state.set_state(ReturnFlow.choosing_reason)
                await say(
                    message,
                    t("return_choose_reason", language),
                    reply_markup=_reason_keyboard(data["flow"], language),
                )
            case "reason" if callback_data.value in returns.REASON_KEYS:
                await _ask_kind(message, state, t(f"reason_{callback_data.value}", language))
            case "kind" if callback_data.value in {k.value for k in ReturnKind}:
                data = await state.update_data(kind=callback_data.value)
                await state.set_state(ReturnFlow.confirming)
                summary = t(
                    "return_confirm",
                    language,
                    number=data["order_number"],
                    item=data["item_label"],
                    reason=data["reason"],
                    kind=t(f"kind_{data['kind']}", language),
                )
                flow = data["flow"]
                keyboard = choices(
                    [
                        (t("button_confirm", language), ReturnStep(action="confirm", flow=flow).pack()),
                        _cancel_row(flow, language),
                    ]
                )
                await say(message, summary, reply_markup=keyboard)
            case "confirm" if await state.get_state() == ReturnFlow.confirming.state:
                draft = returns.ReturnDraft(
                    idempotency_key=_idempotency_key(query.from_user.id, data["flow"]),
                    customer_id=data["customer_id"],
                    order_id=data["order_id"],
                    order_item_id=data["item_id"],
                    reason=data["reason"],
                    kind=ReturnKind(data["kind"]),
                )
                request, filed = await returns.file_return(session, draft)
                await state.clear()
                interaction.routed("returns", AnswerSource.DATABASE)
                await message.edit_text(
                    _filed_text(filed, language, request.rma_number, data["item_label"]), parse_mode=None
                )
            case _:
                await say(message, t("return_expired", language))

    return router


def _filed_text(filed: returns.Filed, language: str, rma: str, item: str) -> str:
    match filed:
        case returns.Filed.CREATED:
            return t("return_created", language, rma=rma)
        case returns.Filed.REPEATED:
            return t("return_already", language, rma=rma)
        case returns.Filed.ALREADY_OPEN:
            return t("return_item_open", language, item=item, rma=rma)


async def _stale_tap(
    query: CallbackQuery, step: ReturnStep, session: AsyncSession, language: str, message: Message | None
) -> None:
    """A tap on a form that is no longer current: a double tap on Confirm, or an old keyboard."""
    if message is None:
        return
    if step.action == "confirm":
        filed = await returns.already_filed(session, _idempotency_key(query.from_user.id, step.flow))
        if filed is not None:
            await say(message, t("return_already", language, rma=filed.rma_number))
            return
    if step.action != "cancel":
        await say(message, t("return_expired", language))
