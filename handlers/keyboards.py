"""Keyboards and callback data shared by the handlers."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    KeyboardButton,
    ReplyKeyboardMarkup,
)

from services.returns.form import FormAction
from services.text.sentences import Language, t


class ReturnStep(CallbackData, prefix="rt"):
    """One tap in the returns flow. `flow` ties the tap to the form it was shown on."""

    action: FormAction
    flow: str
    value: str = ""


class HandoffOffer(CallbackData, prefix="hl"):
    """The "talk to a person" button."""

    language: str
    """The language of the reply the button sat on: the hand-off answers in it (a button press has
    no text of its own, and the Telegram app's language may be another)."""


class LegacyHandoffOffer(CallbackData, prefix="ho"):
    """The same button as sent before it carried a language: still in customers' chats."""


class Rating(CallbackData, prefix="rate"):
    """The customer's answer to "how did our team do?" after a resolved hand-off; 0 skips."""

    handoff: int
    score: int
    language: str = "en"


class FaqChoice(CallbackData, prefix="fq"):
    """The customer picked one of the FAQ entries offered when the bot was not sure."""

    entry: str
    """services.faq.choices.entry_key of the entry's slug."""
    language: str = "en"


class Clarification(CallbackData, prefix="cl"):
    """The customer's answer to "what is this about?" after a message the bot could not place."""

    choice: str
    language: str = "en"


def share_contact_keyboard(language: Language) -> ReplyKeyboardMarkup:
    return ReplyKeyboardMarkup(
        keyboard=[[KeyboardButton(text=t("share_contact_button", language), request_contact=True)]],
        resize_keyboard=True,
        one_time_keyboard=True,
    )


def single_button(text: str, callback_data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=text, callback_data=callback_data)]]
    )


START_FLOW = "-"
"""`ReturnStep.flow` of the "Start a return" button: no form exists yet."""


def start_return_choice(language: Language, order: str | None = None) -> tuple[str, str]:
    """The "Start a return" button as (label, callback data). It carries the reply's language (a tap
    has no text to read it from, and the Telegram app's may differ) and the order the question
    named, so the form opens at that order."""
    value = f"{language} {order}" if order else language
    return t("return_start_button", language), ReturnStep(
        action=FormAction.START, flow=START_FLOW, value=value
    ).pack()


def start_return_of(step: ReturnStep) -> tuple[str | None, str | None]:
    """The language and order a "Start a return" button carries (neither on buttons sent before
    they were added)."""
    language, _, order = step.value.partition(" ")
    return language or None, order or None


def person_choice(language: Language) -> tuple[str, str]:
    """The "talk to a person" button as (label, callback data), for `choices`."""
    return "🙋 " + t("human_button", language), HandoffOffer(language=language).pack()


def offer_person(language: Language) -> InlineKeyboardMarkup:
    return single_button(*person_choice(language))


def choices(rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    """One button per row: (label, callback data)."""
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=label, callback_data=data)] for label, data in rows]
    )


def rating_keyboard(handoff_id: int, language: Language) -> InlineKeyboardMarkup:
    """1-5 in one row (as stars are read), skip below."""
    scores = [
        InlineKeyboardButton(
            text=str(score), callback_data=Rating(handoff=handoff_id, score=score, language=language).pack()
        )
        for score in (1, 2, 3, 4, 5)
    ]
    skip = InlineKeyboardButton(
        text=t("rating_skip_button", language),
        callback_data=Rating(handoff=handoff_id, score=0, language=language).pack(),
    )
    return InlineKeyboardMarkup(inline_keyboard=[scores, [skip]])
