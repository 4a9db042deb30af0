"""The guided return/exchange form: order -> item -> reason -> exchange or refund -> confirm.

Started by the returns router (`/return`, the Start button) and by the inquiry router (a return
question); handlers/returns.py routes its taps and typed answers here.

Each step can be answered by a tap or by typing; services/returns/form.py decides what a typed
answer means (`read_typed`), and both go through `act`, so a typed "yes" files exactly what the
Confirm button would.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from aiogram.filters import Filter
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message, User
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Product, ReturnKind
from db.repositories import orders
from db.types import utcnow
from handlers.context import linked_customer, say
from handlers.keyboards import ReturnStep, choices, offer_person, share_contact_keyboard
from services.admin.conversation_log import Interaction
from services.replies import AnswerSource, ReplyRoute
from services.returns import requests as returns
from services.returns.form import (
    CHOICE_ACTIONS,
    Act,
    Aside,
    AskAgain,
    FormAction,
    FormStep,
    OwnReason,
    ReasonTooLong,
    aside,
    read_typed,
)
from services.returns.typed_input import Option
from services.settings import Settings
from services.shop.sources.base import ShopDataUnavailable
from services.shop.sources.factory import shop_data
from services.shop.sources.local import owned_order
from services.shop.sources.mirror import mirror_returnable_orders
from services.text.normalize import detect_language
from services.text.sentences import LANGUAGES, Language, t
from services.understanding.classifier import Classification
from services.understanding.reply_language import has_words

ANSWER_WINDOW = timedelta(hours=1)
"""How long a form's question takes typed answers. A customer back after longer has most likely
forgotten the form, and their message is a new question: it is answered as usual (the form's
buttons still work)."""


class ReturnFlow(StatesGroup):
    """The form's steps (services/returns/form.py: FormStep) as conversation states."""

    choosing_order = State(FormStep.ORDER.value)
    choosing_item = State(FormStep.ITEM.value)
    choosing_reason = State(FormStep.REASON.value)
    choosing_kind = State(FormStep.KIND.value)
    confirming = State(FormStep.CONFIRM.value)


def _step(raw_state: str | None) -> FormStep | None:
    """The step a stored state names ("ReturnFlow:choosing_item"), None outside the form."""
    if raw_state is None or raw_state not in ReturnFlow.__all_states_names__:
        return None
    return FormStep(raw_state.split(":", 1)[1])


def _idempotency_key(user_id: int, flow: str) -> str:
    return f"{user_id}:{flow}"


def _cancel_row(flow: str, language: Language) -> tuple[str, str]:
    return (t("button_cancel", language), ReturnStep(action=FormAction.CANCEL, flow=flow).pack())


def _in_every_language(key: str, language: Language) -> tuple[str, ...]:
    """A reason's or resolution's label, the form's language first (the button's): a customer may
    type it in another."""
    return tuple(dict.fromkeys(t(key, lang) for lang in (language, *LANGUAGES)))


async def _offer(
    message: Message, state: FSMContext, text: str, action: FormAction, options: list[Option]
) -> None:
    """Ask with one button per option (and Cancel); remember the options, so a typed answer can
    name one, and when they were offered (ANSWER_WINDOW)."""
    data = await state.update_data(
        options=[[o.value, list(o.names)] for o in options], asked_at=utcnow().timestamp()
    )
    rows = [(o.names[0], ReturnStep(action=action, flow=data["flow"], value=o.value).pack()) for o in options]
    await say(message, text, reply_markup=choices([*rows, _cancel_row(data["flow"], data["language"])]))


def _offered(data: dict[str, Any]) -> list[Option]:
    return [Option(value, tuple(names)) for value, names in data.get("options", [])]


async def start_return_flow(
    message: Message,
    user: User,
    session: AsyncSession,
    state: FSMContext,
    language: Language,
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
        named = await owned_order(session, customer.id, order_reference)
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
    options = [
        Option(str(order.id), (f"{order.number} ({t(f'status_{order.status}', language)})", order.number))
        for order in eligible
    ]
    await _offer(message, state, t("return_choose_order", language), FormAction.ORDER, options)


async def _ask_item(
    message: Message, state: FSMContext, session: AsyncSession, order_id: int, number: str
) -> None:
    data = await state.update_data(order_id=order_id, order_number=number)
    await state.set_state(ReturnFlow.choosing_item)
    lines = await orders.order_lines(session, order_id)
    options = [Option(str(line.item.id), _item_names(line.product, line.item.option)) for line in lines]
    await _offer(
        message, state, t("return_choose_item", data["language"], number=number), FormAction.ITEM, options
    )


def _item_names(product: Product, option: str) -> tuple[str, ...]:
    """The button's label, then the product's other names: "캔버스 토트백" picks the Canvas Tote Bag."""
    names = (product.name, product.name_ko, product.name_en, product.name_ja)
    return tuple(dict.fromkeys(f"{name} {option}".strip() for name in names if name))


async def _ask_reason(message: Message, state: FSMContext, language: Language) -> None:
    await state.set_state(ReturnFlow.choosing_reason)
    options = [Option(key, _in_every_language(f"reason_{key}", language)) for key in returns.REASON_KEYS]
    await _offer(message, state, t("return_choose_reason", language), FormAction.REASON, options)


async def _ask_kind(message: Message, state: FSMContext, reason: str) -> None:
    data = await state.update_data(reason=reason)
    await state.set_state(ReturnFlow.choosing_kind)
    language = data["language"]
    options = [Option(kind.value, _in_every_language(f"kind_{kind.value}", language)) for kind in ReturnKind]
    await _offer(message, state, t("return_choose_kind", language), FormAction.KIND, options)


def _confirm_keyboard(flow: str, language: Language) -> InlineKeyboardMarkup:
    return choices(
        [
            (t("button_confirm", language), ReturnStep(action=FormAction.CONFIRM, flow=flow).pack()),
            _cancel_row(flow, language),
        ]
    )


async def _ask_confirmation(message: Message, state: FSMContext, kind: str) -> None:
    data = await state.update_data(kind=kind, options=[], asked_at=utcnow().timestamp())
    await state.set_state(ReturnFlow.confirming)
    language = data["language"]
    summary = t(
        "return_confirm",
        language,
        number=data["order_number"],
        item=data["item_label"],
        reason=data["reason"],
        kind=t(f"kind_{kind}", language),
    )
    await say(message, summary, reply_markup=_confirm_keyboard(data["flow"], language))


@dataclass(frozen=True)
class FormTurn:
    """One answer to the form, tapped (`edit`: the form's own message is edited with the outcome)
    or typed (the outcome is sent below the customer's message)."""

    message: Message
    user_id: int
    session: AsyncSession
    state: FSMContext
    settings: Settings
    interaction: Interaction
    data: dict[str, Any]
    language: Language
    edit: bool

    async def finish(self, text: str, reply_markup: InlineKeyboardMarkup | None = None) -> None:
        if self.edit:
            await self.message.edit_text(text, parse_mode=None, reply_markup=reply_markup)
        else:
            await say(self.message, text, reply_markup=reply_markup)


async def act(turn: FormTurn, action: FormAction, value: str) -> None:
    """Carry out one step's answer, whichever way it came."""
    message, state, session, data, language = turn.message, turn.state, turn.session, turn.data, turn.language
    match action:
        case FormAction.CANCEL:
            await state.clear()
            await turn.finish(t("return_cancelled", language))
        case FormAction.ORDER if value.isdigit():
            await _choose_order(turn, int(value))
        case FormAction.ITEM:
            await _choose_item(turn, value)
        case FormAction.REASON if value in returns.REASON_KEYS:
            await _ask_kind(message, state, t(f"reason_{value}", language))
        case FormAction.KIND if value in {k.value for k in ReturnKind}:
            await _ask_confirmation(message, state, value)
        case FormAction.RESUME:
            await resume(turn)
        case FormAction.CONFIRM if await state.get_state() == ReturnFlow.confirming.state:
            draft = returns.ReturnDraft(
                idempotency_key=_idempotency_key(turn.user_id, data["flow"]),
                customer_id=data["customer_id"],
                order_id=data["order_id"],
                order_item_id=data["item_id"],
                reason=data["reason"],
                kind=ReturnKind(data["kind"]),
            )
            request, filed = await returns.file_return(session, draft)
            await state.clear()
            turn.interaction.routed(ReplyRoute.RETURNS, AnswerSource.DATABASE)
            await turn.finish(_filed_text(filed, language, request.rma_number, data["item_label"]))
        case _:
            await say(message, t("return_expired", language))


async def _choose_order(turn: FormTurn, order_id: int) -> None:
    policy = turn.settings.shop_policy()
    order = await returns.returnable_order(turn.session, turn.data["customer_id"], order_id, policy)
    if order is None or order.id is None:
        await turn.state.clear()
        await turn.finish(t("return_expired", turn.language))
        return
    refusal = await returns.return_refusal(turn.session, order, policy, utcnow())
    if refusal is not None:
        await turn.state.clear()
        await turn.finish(refusal.text(turn.language), reply_markup=offer_person(turn.language))
        return
    await _ask_item(turn.message, turn.state, turn.session, order.id, order.number)


async def _choose_item(turn: FormTurn, value: str) -> None:
    lines = await orders.order_lines(turn.session, turn.data["order_id"])
    line = next((ln for ln in lines if str(ln.item.id) == value), None)
    if line is None or line.item.id is None:
        return
    label = f"{line.product.name} {line.item.option}".strip()
    open_one = await returns.open_return_for_item(turn.session, line.item.id)
    if open_one is not None:
        await turn.state.clear()
        await say(turn.message, t("return_item_open", turn.language, item=label, rma=open_one.rma_number))
        return
    await turn.state.update_data(item_id=line.item.id, item_label=label)
    await _ask_reason(turn.message, turn.state, turn.language)


class AwaitingAnswer(Filter):
    """A form whose question was asked within ANSWER_WINDOW: typed text is the answer to it."""

    async def __call__(self, message: Message, raw_state: str | None, state: FSMContext) -> bool:
        if _step(raw_state) is None:  # the state is read once per update already: no I/O
            return False
        asked_at = (await state.get_data()).get("asked_at")
        return isinstance(asked_at, int | float) and (
            utcnow().timestamp() - asked_at < ANSWER_WINDOW.total_seconds()
        )


async def typed_answer(turn: FormTurn, text: str, classify: Callable[[str], Classification]) -> bool:
    """What was typed, read for the step that asked: understood, or asked again (never dropped).
    False when the message steps out of the form (services.returns.form.aside): the form waits,
    with a button to resume it, and the message is the rest of the bot's to answer."""
    step = _step(await turn.state.get_state())
    assert step is not None  # AwaitingAnswer let the message in
    outcome = read_typed(step, text, _offered(turn.data))
    match aside(step, text, classify, outcome):
        case Aside.ANOTHER_REQUEST:
            await pause(turn, text)
            return False
        case Aside.SAME_REQUEST:
            await _ask_step_again(turn, step, "return_in_progress")
            return True
    match outcome:
        case Act(action, value):
            await act(turn, action, value)
        case OwnReason(reason):
            await _ask_kind(turn.message, turn.state, reason)
        case ReasonTooLong():
            await say(turn.message, t("return_reason_too_long", turn.language))
        case AskAgain(key):
            await _ask_step_again(turn, step, key)
    return True


async def pause(turn: FormTurn, text: str) -> None:
    """The form stops reading typed messages until it is resumed; its answers so far are kept.
    Said in the language of the message that stepped out, as the answer to it will be."""
    await turn.state.update_data(asked_at=0)
    language = detect_language(text) if has_words(text) else turn.language
    flow = turn.data["flow"]
    resume = ReturnStep(action=FormAction.RESUME, flow=flow).pack()
    keyboard = choices([(t("button_resume_return", language), resume), _cancel_row(flow, language)])
    await say(turn.message, t("return_paused", language), reply_markup=keyboard)


async def resume(turn: FormTurn) -> None:
    """The resume button: the waiting step's question again, its clock restarted."""
    step = _step(await turn.state.get_state())
    if step is None:
        await turn.finish(t("return_expired", turn.language))
        return
    await _ask_step_again(turn, step, "return_resumed")


async def _ask_step_again(turn: FormTurn, step: FormStep, key: str) -> None:
    if step is FormStep.CONFIRM:
        await _ask_again(turn, key, _confirm_keyboard(turn.data["flow"], turn.language))
        return
    action = CHOICE_ACTIONS[step]
    rows = [
        (o.names[0], ReturnStep(action=action, flow=turn.data["flow"], value=o.value).pack())
        for o in _offered(turn.data)
    ]
    await _ask_again(turn, key, choices([*rows, _cancel_row(turn.data["flow"], turn.language)]))


async def _ask_again(turn: FormTurn, key: str, keyboard: InlineKeyboardMarkup) -> None:
    """A short re-prompt with the step's buttons again, and the question's clock restarted."""
    await turn.state.update_data(asked_at=utcnow().timestamp())
    await say(turn.message, t(key, turn.language), reply_markup=keyboard)


def _filed_text(filed: returns.Filed, language: Language, rma: str, item: str) -> str:
    match filed:
        case returns.Filed.CREATED:
            return t("return_created", language, rma=rma)
        case returns.Filed.REPEATED:
            return t("return_already", language, rma=rma)
        case returns.Filed.ALREADY_OPEN:
            return t("return_item_open", language, item=item, rma=rma)


async def stale_tap(
    query: CallbackQuery, step: ReturnStep, session: AsyncSession, language: Language, message: Message | None
) -> None:
    """A tap on a form that is no longer current: a double tap on Confirm, or an old keyboard."""
    if message is None:
        return
    if step.action is FormAction.CONFIRM:
        filed = await returns.already_filed(session, _idempotency_key(query.from_user.id, step.flow))
        if filed is not None:
            await say(message, t("return_already", language, rma=filed.rma_number))
            return
    if step.action is not FormAction.CANCEL:
        await say(message, t("return_expired", language))
