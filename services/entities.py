"""Order numbers, SKUs and product names found in customer text."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from services.text_normalize import normalize

# Digits may touch Hangul or kana ("20240115-001234배송"), where \b does not
# hold, so boundaries are "no digit on either side".
_DATED_ORDER = re.compile(r"(?<!\d)(\d{8}-\d{4,6})(?!\d)")
_HASH_ORDER = re.compile(r"#\s?(\d{3,12})(?!\d)")
_PLAIN_ID = re.compile(r"(?<![\d-])(\d{8,12})(?![\d-])")
_SKU = re.compile(r"(?<![a-z0-9])sku[\s_-]?(\d{2,8})(?!\d)", re.IGNORECASE)
_RMA = re.compile(r"(?<![a-z0-9])rma[\s_-]?(\d{4,16})(?!\d)", re.IGNORECASE)
_MOBILE_PHONE = re.compile(r"^01[016789]\d{7,8}$")


@dataclass(frozen=True)
class Entities:
    order_numbers: tuple[str, ...] = ()
    skus: tuple[str, ...] = ()
    rma_numbers: tuple[str, ...] = ()
    products: tuple[str, ...] = ()
    """SKUs of catalogue products named by (part of) their name."""

    def as_dict(self) -> dict[str, list[str]]:
        return {name: list(values) for name, values in asdict(self).items() if values}


@dataclass(frozen=True)
class CatalogueName:
    sku: str
    names: tuple[str, ...]


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


class EntityExtractor:
    """Regexes for ids plus a name index of the catalogue.

    The catalogue is passed in (not read here) so extraction stays a pure,
    microsecond-scale function that tests and the CLI can run without a database.
    """

    def __init__(self, catalogue: Iterable[CatalogueName] = ()) -> None:
        items = list(catalogue)
        self._names: list[tuple[str, str]] = sorted(
            ((normalize(name), item.sku) for item in items for name in item.names if name),
            key=lambda pair: -len(pair[0]),
        )
        self._words = _distinctive_words(items)

    def extract(self, text: str) -> Entities:
        clean = normalize(text)
        dated = _DATED_ORDER.findall(clean)
        hashed = _HASH_ORDER.findall(clean)
        without_ids = _RMA.sub(" ", _SKU.sub(" ", _DATED_ORDER.sub(" ", clean)))
        plain = [d for d in _PLAIN_ID.findall(without_ids) if not _MOBILE_PHONE.match(d)]
        return Entities(
            order_numbers=_unique([*dated, *hashed, *plain]),
            skus=_unique(f"SKU-{digits}" for digits in _SKU.findall(clean)),
            rma_numbers=_unique(f"RMA-{digits}" for digits in _RMA.findall(clean)),
            products=_unique(
                [sku for name, sku in self._names if name in clean]
                + [sku for word, sku in self._words if _mentions(clean, word)]
            ),
        )


def _distinctive_words(items: list[CatalogueName]) -> list[tuple[str, str]]:
    """Name words that point at exactly one product ("merino", "비니"), so a partial name finds it."""
    owners: dict[str, set[str]] = {}
    for item in items:
        for name in item.names:
            for word in normalize(name).split():
                if len(word) >= (2 if not word.isascii() else 4):
                    owners.setdefault(word, set()).add(item.sku)
    return sorted((word, next(iter(skus))) for word, skus in owners.items() if len(skus) == 1)


def _mentions(text: str, word: str) -> bool:
    """Latin words need word boundaries; Hangul stems may carry particles ("비니는")."""
    if not word.isascii():
        return word in text
    return re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", text) is not None
