"""What a service answers, independent of how Telegram shows it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from services.text.sentences import Language, t

if TYPE_CHECKING:
    from services.faq.entry import FaqDocument
    from services.llm.speculative import VerifiedAnswer


class AnswerSource(StrEnum):
    """Where the words of a reply came from; admins filter on this."""

    DATABASE = "database"
    FAQ = "faq"
    TEMPLATE = "template"
    HANDOFF = "handoff"
    STAFF = "staff"
    LLM = "llm"


class ReplyRoute(StrEnum):
    """What handled a message, as the logs store it (`inbound_messages.route`) and admins filter on
    it. An inquiry's route is named after what it was about (the `Intent` values, and cancel,
    small talk, clarify); the others name the command, button or side that handled the update."""

    STOCK = "stock"
    SHIPPING = "shipping"
    RETURNS = "returns"
    FAQ = "faq"
    HUMAN = "human"
    """A hand-off asked for (or the person's side of one: `/bot`)."""
    CANCEL = "cancel"
    SMALL_TALK = "small_talk"
    CLARIFY = "clarify"
    CLARIFIED_ORDER = "clarify:order"
    CLARIFIED_STOCK = "clarify:stock"
    CLARIFIED_RETURN = "clarify:return"
    CLARIFIED_OTHER = "clarify:other"
    FAQ_CHOICE = "faq_choice"
    """An offered FAQ entry the customer tapped."""
    FAQ_CHOICE_GONE = "faq_choice:gone"
    HANDOFF_RELAY = "handoff-relay"
    RATING = "rating"
    """The customer's rating of a resolved hand-off."""
    STAFF = "staff"
    """Anything from the support chat (the `staff` prefix keeps it out of customer traffic)."""
    STAFF_CLOSE = "staff-close"
    STAFF_REPLY = "staff-reply"
    ADMIN = "admin"
    START = "start"
    HELP = "help"
    LINK_ACCOUNT = "link-account"
    STOP_GENERATION = "stop-generation"
    BAD_INPUT = "bad-input"
    UNKNOWN_COMMAND = "unknown-command"
    UNSUPPORTED_CONTENT = "unsupported-content"
    UNKNOWN_BUTTON = "unknown-button"

    @classmethod
    def clarified(cls, choice: str) -> ReplyRoute:
        """The route of a tap on one of the clarifying question's choices; a choice no button
        offers (an old or forged one) is answered, and logged, as "something else"."""
        try:
            return cls(f"{cls.CLARIFY}:{choice}")
        except ValueError:
            return cls.CLARIFIED_OTHER


class FollowUp(StrEnum):
    """A next step the Telegram layer offers with a button or a flow."""

    NONE = "none"
    SHARE_CONTACT = "share_contact"
    OFFER_RETURN = "offer_return"
    START_RETURN = "start_return"
    HAND_OFF = "hand_off"
    OFFER_HAND_OFF = "offer_hand_off"
    CLARIFY = "clarify"
    """Buttons: order status / stock / return / something else."""


@dataclass(frozen=True)
class Reply:
    text: str
    source: AnswerSource
    follow_up: FollowUp = FollowUp.NONE
    route: ReplyRoute | None = None
    """Which service answered, for the logs."""
    stream: VerifiedAnswer | None = None
    """FAQ-style answers arrive as verified text over time; `text` is empty then."""
    choices: tuple[FaqDocument, ...] = ()
    """FAQ entries offered as buttons before the follow-up's own, closest first: the bot was not
    sure enough to answer with one (services.faq.choices)."""
    dont_know: bool = False
    """The service has no answer and says so (its own "I don't know", offering a person): what the
    figures count as one, in every language (services.admin.figures)."""
    preface: str = ""
    """Sent on its own before a reply that has no text of its own to begin with (a streamed
    answer, a hand-off): the apology to a complaint (services.inquiry.after_an_apology)."""


NO_ANSWER_KEYS = ("faq_no_match", "faq_no_match_choices")
"""The sentences of the bot's own "I don't know" (without and with entries to pick from)."""


def no_answer(
    language: Language,
    choices: tuple[FaqDocument, ...] = (),
    *,
    route: ReplyRoute = ReplyRoute.FAQ,
    follow_up: FollowUp = FollowUp.OFFER_HAND_OFF,
) -> Reply:
    """The bot's own "I don't know", in the customer's language: the entries closest to the
    question to pick from when there are some, and the follow-up's buttons (a person) beside."""
    key = NO_ANSWER_KEYS[1] if choices else NO_ANSWER_KEYS[0]
    return Reply(t(key, language), AnswerSource.TEMPLATE, follow_up, route, choices=choices, dont_know=True)
