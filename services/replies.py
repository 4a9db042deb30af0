"""What a service answers, independent of how Telegram shows it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

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
    route: str = ""
    """Which service answered (stock, shipping, returns, faq, human...), for the logs."""
    stream: VerifiedAnswer | None = None
    """FAQ-style answers arrive as verified text over time; `text` is empty then."""
    choices: tuple[FaqDocument, ...] = ()
    """FAQ entries offered as buttons before the follow-up's own, closest first: the bot was not
    sure enough to answer with one (services.faq.choices)."""
    preface: str = ""
    """Sent on its own before a reply that has no text of its own to begin with (a streamed
    answer, a hand-off): the apology to a complaint (services.inquiry.after_an_apology)."""
