"""The return form's steps and what an answer to each one does.

The form asks, in order: which order, which item, why, exchange or refund, then confirm. A step
is answered by a tap (a `FormAction` and its value) or by typing; `read_typed` decides what a
typed answer means for the step that asked, so a typed "yes" files exactly what the Confirm
button would. The Telegram side (handlers/flows/return_form.py) asks, remembers and sends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from services.returns.requests import MAX_REASON_CHARS
from services.returns.typed_input import Option, Word, pick, read_word


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
