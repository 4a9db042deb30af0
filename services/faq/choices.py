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
the person button. Beside a service that answers from the customer's own order or return, they
are offered where that service cannot answer yet (a customer not linked: the contact button's
message, then the entries) or hands to a person (`BESIDE_A_SERVICE_ABOVE`;
`services.understanding.understand.beside_its_service`).
"""

from __future__ import annotations

import hashlib

from services.faq.entry import FaqDocument
from services.faq.lookup import FaqLookupAnswerer
from services.orders.cancellation import asks_to_cancel
from services.text.sentences import Language
from services.understanding.understand import Route, Understanding, asks_the_faq, beside_its_service

OFFER_ABOVE = 0.03
"""The matcher's probability for its closest entry below which no choices are offered. Chosen with
`python -m bench.retrieval --offers` (2026-12-03, with `BESIDE_A_SERVICE_ABOVE` at 0.1): the right
entry answered or offered for 0.961 of the tuning FAQs' covered questions and 0.919 of those in the
customer's voice, against 0.956 / 0.901 at 0.05 and 0.968 / 0.929 with no bar; choices shown to
0.69 / 0.83 of the questions the FAQ does not cover (most of them near misses, on an entry's topic
but not settled by its answer), against 0.61 / 0.77 and 0.91 / 0.92."""
STOCK_OFFER_ABOVE = 0.1
"""The bar after a stock reply that asks which product: "is it in stock?" is a stock question whose
closest entries are seldom what was meant (a reply with a question of its own)."""
BESIDE_A_SERVICE_ABOVE = 0.1
"""The bar beside a service's own answer (`beside_its_service`); the same run: reached in the
customer's voice 0.919, against 0.906 at 0.3 and 0.838 never offering there (with 0.05 for
`OFFER_ABOVE`)."""
HANDOFF_OFFER_ABOVE = 0.3
"""The bar after a hand-off: a request for a person and nothing else scores 0.12-0.20 on the demo FAQ
("상담원 연결" 0.20, "real person please" 0.13) and gets no entries; a question beside the request
("상담시간이 어떻게 되나요? 아까 전화했는데 안 받으셔서요") 0.40-0.84 on the tuning FAQs, those in
the customer's voice included."""


def offered(understanding: Understanding, text: str, *, known_customer: bool = False) -> tuple[str, ...]:
    """The slugs to offer for the message `text`, closest first; none when the bot answers, routes
    elsewhere, or has nothing likely enough. `known_customer`: the customer is linked, so a question
    about their own order or return gets its service's answer alone (`csbot eval` asks as a customer
    the bot does not know yet)."""
    match = understanding.faq
    entities = understanding.classification.entities
    if asks_to_cancel(text, entities):  # the cancellation service answers it first
        return ()
    if match is None:
        return ()
    if asks_the_faq(understanding, text):
        if match.answered:
            return ()
        bar = STOCK_OFFER_ABOVE if understanding.route is Route.STOCK else OFFER_ABOVE
    elif not beside_its_service(understanding, text):
        return ()
    elif understanding.route is Route.HANDOFF:
        bar = HANDOFF_OFFER_ABOVE  # an entry the matcher is sure of too: a person was asked for
    elif known_customer:
        return ()  # their service answers from their own data
    else:
        bar = BESIDE_A_SERVICE_ABOVE
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
    lookup: FaqLookupAnswerer,
    understanding: Understanding,
    text: str,
    language: Language,
    *,
    known_customer: bool = False,
) -> tuple[FaqDocument, ...]:
    """The `offered` entries' rows in the customer's language (their questions become the buttons)."""
    known = set(lookup.matcher.slugs)
    return tuple(
        lookup.matcher.localized(slug, language)
        for slug in offered(understanding, text, known_customer=known_customer)
        if slug in known
    )
