"""The products a chat talked about last, for a stock question that names none.

"is the merino sweater itchy?" then "is it in stock?" got "Which product do you mean?":
each message was understood alone. The chat's last named products (kept in its FSM data
by the Telegram layer, `LAST_PRODUCTS`) stand in when a stock question names neither a
product nor a SKU; a message that names one replaces them.

A stock question that names another thing ("do you have sneakers?", "가방 있어요?") is not about
them: answering it with the last product's stock line told the customer the shop sells sneakers.
It gets the reply a fresh chat gets, and the chat forgets its last products, so "in black?" next is
not answered for the overshirt either. A word of the remembered product's own names still means
it ("is the bag in black?" after the Canvas Tote Bag: "bag" is too short a word to find a product
by itself). A message whose only products are near misses ("wool coat": the Wool Beanie shares
only "wool" with it) makes the chat forget them too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from services.understanding.entities import Entities, word_of_names
from services.understanding.understand import Route, Understanding

LAST_PRODUCTS = "last_products"
"""Key in the chat's FSM data: SKUs, as the last message that named products gave them."""
REMEMBERED_AT_MOST = 5
NamesOf = Callable[[str], Sequence[str]]
"""A product's names by its SKU (`IntentClassifier.product_names`)."""


def named_products(entities: Entities) -> tuple[str, ...]:
    """What a message names, to remember: its SKUs and the products its words name (not the near
    misses: "did you mean the Wool Beanie?" is no answer the customer accepted)."""
    return tuple(dict.fromkeys((*entities.skus, *entities.answered_products)))[:REMEMBERED_AT_MOST]


def forgets_remembered_products(understanding: Understanding) -> bool:
    """The message names products, but only near misses: the chat's last products are not what the
    conversation is about any more (whatever its route)."""
    entities = understanding.classification.entities
    return not named_products(entities) and bool(entities.near_misses)


def needs_remembered_products(understanding: Understanding) -> bool:
    """A stock question that names no product: the chat's last products may be what it means."""
    entities = understanding.classification.entities
    return understanding.route is Route.STOCK and not named_products(entities) and not entities.near_misses


def names_something_else(entities: Entities, remembered: Sequence[str], names_of: NamesOf) -> bool:
    """The message names a thing that is none of the `remembered` products ("sneakers" after the
    overshirt). Only asked of a stock question: other questions have words of every kind ("do you
    ship to Jeju?"), and only in a stock question is such a word a thing asked for."""
    return any(
        not any(word_of_names(word, names_of(sku)) for sku in remembered) for word in entities.other_things
    )


def with_remembered_products(understanding: Understanding, remembered: Sequence[str]) -> Understanding:
    """`understanding` about the `remembered` products, when it needs them (else unchanged). The
    caller has checked that the message names nothing else (`names_something_else`)."""
    if not remembered or not needs_remembered_products(understanding):
        return understanding
    classification = understanding.classification
    entities = replace(classification.entities, products=tuple(remembered)[:REMEMBERED_AT_MOST])
    return replace(understanding, classification=replace(classification, entities=entities))
