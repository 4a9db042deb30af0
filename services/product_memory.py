"""The products a chat talked about last, for a stock question that names none.

"is the merino sweater itchy?" then "is it in stock?" got "Which product do you mean?":
each message was understood alone. The chat's last named products (kept in its FSM data
by the Telegram layer, `LAST_PRODUCTS`) stand in when a stock question names neither a
product nor a SKU; a message that names one replaces them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from services.entities import Entities
from services.understanding import Route, Understanding

LAST_PRODUCTS = "last_products"
"""Key in the chat's FSM data: SKUs, as the last message that named products gave them."""
REMEMBERED_AT_MOST = 5


def named_products(entities: Entities) -> tuple[str, ...]:
    """What a message names, to remember: its SKUs and the products its words name."""
    return tuple(dict.fromkeys((*entities.skus, *entities.products)))[:REMEMBERED_AT_MOST]


def needs_remembered_products(understanding: Understanding) -> bool:
    """A stock question that names nothing: the chat's last products may be what it means."""
    entities = understanding.classification.entities
    return understanding.route is Route.STOCK and not named_products(entities)


def with_remembered_products(understanding: Understanding, remembered: Sequence[str]) -> Understanding:
    """`understanding` about the `remembered` products, when it needs them (else unchanged)."""
    if not remembered or not needs_remembered_products(understanding):
        return understanding
    classification = understanding.classification
    entities = replace(classification.entities, products=tuple(remembered)[:REMEMBERED_AT_MOST])
    return replace(understanding, classification=replace(classification, entities=entities))
