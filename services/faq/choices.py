"""FAQ entries a customer may pick from when the matcher will not answer outright.

The matcher answers only when it is confident (a wrong answer in the shop's own
words is as harmful as an invented one), so it abstains on many of the questions
its FAQ does cover. For most of those the right entry is among its three closest:
offered as buttons beside the honest "I'm not sure" (or before the "what is this
about?" buttons), the customer reaches it in one tap, and nothing is asserted on
their behalf. `python -m bench.eval_sets` measures "reached" (answered with the
right entry + one tap away) beside coverage (docs/benchmarks.md).

Choices are offered only while the closest entry is at least somewhat likely
(`OFFER_ABOVE`): "what is the capital of France?" gets the plain answer and
the person button.
"""

from __future__ import annotations

import hashlib

from services.faq.entry import FaqDocument
from services.faq.lookup import FaqLookupAnswerer
from services.orders.cancellation import asks_to_cancel
from services.text.sentences import Language
from services.understanding.understand import Route, Understanding, asks_the_faq

OFFER_ABOVE = 0.05
"""The matcher's probability for its closest entry below which no choices are offered. Chosen on
the tuning sets (`python -m bench.retrieval --offers`, 2026-12-02): the right entry offered or
answered for 0.925 of their covered questions, against 0.891 at 0.1 and 0.937 with no bar, and
choices shown to 60% of the questions the FAQ does not cover instead of 49% and 90%."""
STOCK_OFFER_ABOVE = 0.1
"""The bar after a stock reply that asks which product: "is it in stock?" is a stock question whose
closest entries are seldom what was meant (a reply with a question of its own)."""


def offered(understanding: Understanding, text: str) -> tuple[str, ...]:
    """The slugs to offer for the message `text`, closest first; none when the bot answers, routes
    elsewhere, or has nothing likely enough."""
    match = understanding.faq
    entities = understanding.classification.entities
    if asks_to_cancel(text, entities):  # the cancellation service answers it first
        return ()
    if not asks_the_faq(understanding, text) or match is None or match.answered:
        return ()
    bar = STOCK_OFFER_ABOVE if understanding.route is Route.STOCK else OFFER_ABOVE
    if match.confidence < bar:
        return ()
    return match.alternatives


def entry_key(slug: str) -> str:
    """A short stable name for an entry in a button's callback data (Telegram allows 64 bytes;
    a shop's slugs may be longer)."""
    return hashlib.blake2s(slug.encode("utf-8"), digest_size=6).hexdigest()


def picked_entry(lookup: FaqLookupAnswerer, key: str, language: Language) -> FaqDocument | None:
    """The entry a button named, in the customer's language; None when the FAQ no longer has it
    (reloaded since the buttons were shown)."""
    matcher = lookup.matcher
    for slug in matcher.slugs:
        if entry_key(slug) == key:
            return matcher.localized(slug, language)
    return None


def entries_to_offer(
    lookup: FaqLookupAnswerer, understanding: Understanding, text: str, language: Language
) -> tuple[FaqDocument, ...]:
    """The `offered` entries' rows in the customer's language (their questions become the buttons)."""
    known = set(lookup.matcher.slugs)
    return tuple(
        lookup.matcher.localized(slug, language) for slug in offered(understanding, text) if slug in known
    )
