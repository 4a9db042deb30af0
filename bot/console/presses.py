"""A button press as an admin reads it: "Return form: order #12", not `rt:order:42a7c90e:12`.

The callback data is the bot's own (handlers/keyboards.py); each kind is unpacked by its own class,
so a change of format there shows here at once. The language a press was made in is the one its
button carries (a press has no words of its own to tell it)."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData

from handlers.keyboards import Clarification, FaqChoice, HandoffOffer, LegacyHandoffOffer, ReturnStep
from services.text.sentences import Language

_KINDS: tuple[type[CallbackData], ...] = (
    ReturnStep,
    HandoffOffer,
    LegacyHandoffOffer,
    FaqChoice,
    Clarification,
)


def _unpacked(data: str) -> CallbackData | None:
    for kind in _KINDS:
        if data.startswith(f"{kind.__prefix__}{kind.__separator__}") or data == kind.__prefix__:
            try:
                return kind.unpack(data)
            except (TypeError, ValueError):
                return None
    return None


def pressed(data: str) -> str:
    """What the button did, in words; the data as it came for a button csbot does not know."""
    press = _unpacked(data)
    match press:
        case ReturnStep(action=action, value=value):
            return f"Return form: {action}" + (f" {value}" if value else "")
        case HandoffOffer() | LegacyHandoffOffer():
            return "Talk to a person"
        case FaqChoice(entry=entry):
            return f"FAQ entry offered: {entry}"
        case Clarification(choice=choice):
            return f"What is this about? {choice}"
    return data


def pressed_language(data: str, stored: str) -> str:
    """The language the pressed button was shown in, when it carries one; "-" for one of the bot's
    buttons that does not (the data's letters are no language: it read as English before); what
    was stored for anything else."""
    press = _unpacked(data)
    if press is None:
        return stored
    language = getattr(press, "language", None)
    return language if isinstance(language, str) and Language.known(language) else "-"
