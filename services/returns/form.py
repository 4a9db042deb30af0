"""The return form's steps and what an answer to each one does.

The form asks, in order: which order, which item, why, exchange or refund, then confirm. A step
is answered by a tap (a `FormAction` and its value) or by typing; `read_typed` decides what a
typed answer means for the step that asked, so a typed "yes" files exactly what the Confirm
button would. The Telegram side (handlers/flows/return_form.py) asks, remembers and sends.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from services.orders.cancellation import asks_to_cancel
from services.returns.requests import MAX_REASON_CHARS
from services.returns.typed_input import Option, Word, pick, read_word
from services.text.normalize import normalize
from services.understanding.classifier import Classification, Intent
from services.understanding.understand import (
    ASKS_RETURN_STATUS,
    ASKS_STOCK,
    CLARIFY_BELOW,
    WANTS_TO_FILE_RETURN,
    names_own_order,
)


class FormStep(StrEnum):
    """The question the form is waiting on (the names are its stored conversation states)."""

    ORDER = "choosing_order"
    ITEM = "choosing_item"
    REASON = "choosing_reason"
    KIND = "choosing_kind"
    CONFIRM = "confirming"


class FormAction(StrEnum):
    """What a tap (or a typed answer read as one) does; stored in the buttons' callback data."""

    START = "start"
    CANCEL = "cancel"
    ORDER = "order"
    ITEM = "item"
    REASON = "reason"
    KIND = "kind"
    CONFIRM = "confirm"
    RESUME = "resume"
    """Back to a form the customer stepped out of (the step's question is asked again)."""


CHOICE_ACTIONS = {
    FormStep.ORDER: FormAction.ORDER,
    FormStep.ITEM: FormAction.ITEM,
    FormStep.REASON: FormAction.REASON,
    FormStep.KIND: FormAction.KIND,
}
"""The action a chosen option stands for, by the step that offered it."""


@dataclass(frozen=True)
class Act:
    """Do what the button would: `action` with `value`."""

    action: FormAction
    value: str = ""


@dataclass(frozen=True)
class OwnReason:
    """The customer's own reason for the return, as written."""

    text: str


@dataclass(frozen=True)
class AskAgain:
    """Not understood: ask the step again, with the sentence `key` and the step's buttons."""

    key: str


@dataclass(frozen=True)
class ReasonTooLong:
    """A reason longer than the form stores (or empty): say so and wait for a shorter one."""


TypedOutcome = Act | OwnReason | AskAgain | ReasonTooLong


def read_typed(step: FormStep, text: str, offered: Sequence[Option]) -> TypedOutcome:
    """What `text`, typed while the form waits on `step` with `offered` options, does."""
    word = read_word(text)
    if step is FormStep.CONFIRM:
        if word is Word.YES:
            return Act(FormAction.CONFIRM)
        if word in (Word.NO, Word.CANCEL):
            return Act(FormAction.CANCEL)
        return AskAgain("return_reprompt_confirm")
    if word is Word.CANCEL:
        return Act(FormAction.CANCEL)
    action = CHOICE_ACTIONS[step]
    if step is FormStep.REASON:  # anything not a listed reason is the customer's own, as written
        chosen = pick(text, offered, partial=False)
        if chosen is not None:
            return Act(action, chosen.value)
        reason = text.strip()
        if not reason or len(reason) > MAX_REASON_CHARS:
            return ReasonTooLong()
        return OwnReason(reason)
    chosen = pick(text, offered)
    return AskAgain("return_reprompt_choice") if chosen is None else Act(action, chosen.value)


class Aside(StrEnum):
    """A message typed while the form waits that is not an answer to it."""

    ANOTHER_REQUEST = "another_request"
    """A person, an order, stock, a return's status, a cancellation: answered as it would be
    outside the form, which waits to be resumed with one tap."""
    SAME_REQUEST = "same_request"
    """"반품하고 싶어요" again: the form is already open; its question is asked again."""


def aside(
    step: FormStep, text: str, classify: Callable[[str], Classification], outcome: TypedOutcome
) -> Aside | None:
    """Whether `text` steps out of the form. An answer the form understood (a choice, yes or no,
    a cancel) never does, and is not classified; a free-text reason does only when it is plainly
    another request (a reason names the product often: "린넨 셔츠가 커요" stays a reason, "린넨 셔츠
    재고 있나요?" does not)."""
    if isinstance(outcome, Act):
        return None
    classification = classify(text)
    clean = normalize(text)
    entities = classification.entities
    sure = classification.confidence >= CLARIFY_BELOW
    if (
        ASKS_RETURN_STATUS.search(clean)
        or entities.rma_numbers
        or asks_to_cancel(text, entities)
        or (classification.intent is Intent.HUMAN and sure)
        or entities.order_numbers
        or entities.skus
        or (classification.intent is Intent.SHIPPING and sure and names_own_order(text, entities))
        or (ASKS_STOCK.search(clean) and (entities.products or classification.intent is Intent.STOCK))
    ):
        return Aside.ANOTHER_REQUEST
    if WANTS_TO_FILE_RETURN.search(clean) and step is not FormStep.REASON:
        return Aside.SAME_REQUEST
    if (
        isinstance(outcome, AskAgain)
        and sure
        and classification.intent in (Intent.FAQ, Intent.SHIPPING)
        and _QUESTION.search(clean)
    ):
        return Aside.ANOTHER_REQUEST  # a question the form cannot answer ("배송비 얼마예요?")
    return None


_QUESTION = re.compile(
    r"[?？]|\b(how|what|when|where|why|which|can|could|do|does|is|are)\b"
    r"|(까요|나요|는지|ㄴ가요|인가요|어요\?|죠)$|(ですか|ますか|でしょうか)"
)
"""A question: one the form cannot answer is the shop's to answer ("바지" alone is an answer)."""
