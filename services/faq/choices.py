"""FAQ entries a customer may pick from when the matcher will not answer outright.

The matcher answers only when it is confident (a wrong answer in the shop's own
words is as harmful as an invented one), so it abstains on many of the questions
its FAQ does cover. For most of those the right entry is among its three closest:
offered as buttons beside the honest "I'm not sure" (or before the "what is this
about?" buttons), the customer reaches it in one tap, and nothing is asserted on
their behalf. Measured with `python -m bench.eval_sets` ("reached" = answered with
the right entry + one tap away): 0.80-0.97 of the covered questions on the tuning
FAQs, against 0.24-0.65 answered outright; 0.86-0.94 on the held-out FAQs, against
0.25-0.63.

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
from services.understanding.understand import Route, Understanding, asks_return_policy, names_own_order

OFFER_ABOVE = 0.1
"""The matcher's probability for its closest entry below which no choices are offered. Chosen on
the tuning sets, matcher alone: it keeps 92% of the one-tap finds of offering always, and shows
choices to 42% of the questions the FAQ does not cover instead of 93% (held out: 96%; 46% not 89%)."""


OFFERED_ON = frozenset({Route.NO_ENTRY, Route.CLARIFY})
"""Where the bot has no answer of its own: an honest "I don't know" and a "what is this about?"
(whose order / stock / return buttons follow the entries); also a question about the returns
policy that no entry answers outright (before the "start a return" button). A message routed to
the orders or stock service, or a return request, gets that service's answer instead, except a
delivery question that names no order of the customer's ("배송비", "free shipping over how much?"):
the orders service still answers (asks which order, or lists theirs) and the entries follow, so a
tracking question costs no extra tap and a policy question is one tap from its entry. Likewise a
stock guess that names no catalogue product and no product code ("스키 장비 빌리려는데 하루 얼마에요?" to a
rental shop's FAQ): the stock service asks which product, or, with no catalogue at all (a shop that
imported only its FAQ), cannot answer, and the entries are what the customer may have meant; a code
the start-time index does not know but the database does ("do you have LAMP-30X in stock, and do you
ship to Jeju?") gets its stock line, then the entries."""


def offered(understanding: Understanding, text: str) -> tuple[str, ...]:
    """The slugs to offer for the message `text`, closest first; none when the bot answers, routes
    elsewhere, or has nothing likely enough."""
    match = understanding.faq
    route = understanding.route
    entities = understanding.classification.entities
    if asks_to_cancel(text, entities):  # the cancellation service answers it first
        return ()
    about_return_policy = route is Route.RETURNS and asks_return_policy(text, entities)
    about_delivery = route is Route.ORDERS and not names_own_order(text, entities)
    about_no_known_product = route is Route.STOCK and not (entities.skus or entities.products)
    if (
        not (route in OFFERED_ON or about_return_policy or about_delivery or about_no_known_product)
        or match is None
        or match.answered
    ):
        return ()
    if match.confidence < OFFER_ABOVE:
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
