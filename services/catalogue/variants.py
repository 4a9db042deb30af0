"""Stock per option, where the shop counts its sizes, weights or colours apart (`S:3|M:0|L:5`).

"예가체프 200g 재고 있나요?" was answered "4개 남았어요" for the product while 200g was sold out. A
question naming one of the product's options is answered for that option, with the others that are
in stock; a question naming none gets every option's count.
"""

from __future__ import annotations

import re

from services.catalogue.options import asked_options, offered_options
from services.shop.sources.base import ShopProduct
from services.text.normalize import normalize
from services.text.sentences import Language, t

_UNITS = (
    (re.compile(r"(\d+(?:\.\d+)?)\s*(?:그램|그람|grams?|gr|グラム|g)(?![a-z])"), r"\1g"),
    (re.compile(r"(\d+(?:\.\d+)?)\s*(?:킬로그램|킬로|키로|kilos?|kilograms?|キロ|kg)(?![a-z])"), r"\1kg"),
    (re.compile(r"(\d+(?:\.\d+)?)\s*(?:밀리리터|미리|ml|ミリ|mℓ)(?![a-z])"), r"\1ml"),
    (re.compile(r"(\d+(?:\.\d+)?)\s*(?:리터|litres?|liters?|リットル|l)(?![a-z])"), r"\1l"),
)
"""Weights and volumes as customers write them: "500그람", "1키로", "1 kg", "500グラム"."""


def option_key(text: str) -> str:
    """An option or name as compared: normalised, units in one spelling, no spaces."""
    return _compact(text).replace(" ", "")


def _compact(text: str) -> str:
    """Normalised, units in one spelling, runs of spaces as one."""
    clean = normalize(text)
    for pattern, unit in _UNITS:
        clean = pattern.sub(unit, clean)
    return " ".join(clean.split())


def _latin(character: str) -> bool:
    return character.isascii() and character.isalnum()


def _named_in(written: str, typed: str) -> bool:
    """`written` in `typed` as a whole: a Latin or numeric edge is not inside a longer Latin word
    or number ("F" is not in "EF", "200g" not in "1200g", "M" is in "Mサイズ")."""
    at = typed.find(written)
    while at >= 0:
        end = at + len(written)
        before = typed[at - 1] if at else ""
        after = typed[end] if end < len(typed) else ""
        if not (_latin(written[0]) and _latin(before)) and not (_latin(written[-1]) and _latin(after)):
            return True
        at = typed.find(written, at + 1)
    return False


def mentioned_options(product: ShopProduct, text: str) -> tuple[str, ...]:
    """The product's options the text names: as written ("200g", "아이보리"), in another spelling of
    the unit ("500그람", "1키로"), or as the same colour in another language ("charcoal" for 차콜).
    Korean and Japanese are compared without spaces (they are often left out)."""
    typed = _compact(text)
    unspaced = typed.replace(" ", "")
    asked_colours = asked_options(text).colours
    found = []
    for option in product.options:
        written = _compact(option)
        if not written:
            continue
        if len(written) == 1 and _latin(written):
            # A lone letter size counts as a capital on its own ("M도 있어요?", "in M"): "it's",
            # "a" and "i" name no size.
            if re.search(rf"(?<![A-Za-z0-9'’]){written.upper()}(?![A-Za-z0-9'’])", text):
                found.append(option)
            continue
        if _named_in(written, typed) or (
            not written.isascii() and _named_in(written.replace(" ", ""), unspaced)
        ):
            found.append(option)
            continue
        colours = offered_options([option]).colours
        if asked_colours and set(colours) & asked_colours:
            found.append(option)
    return tuple(found)


def _count(option: str, stock: int, language: Language) -> str:
    if stock <= 0:
        return t("option_sold_out", language, option=option)
    return t("option_count", language, option=option, stock=stock)


def by_option_line(product: ShopProduct, language: Language) -> str:
    """ "옵션별 재고: 200g 품절, 500g 4개, 1kg 품절." (the product counts options apart)."""
    assert product.option_stock is not None
    counts = ", ".join(
        _count(option, stock, language)
        for option, stock in zip(product.options, product.option_stock, strict=True)
    )
    return t("stock_by_option", language, options=counts)


def option_answer(product: ShopProduct, options: tuple[str, ...], language: Language) -> str:
    """The asked options' stock, then the others that are in stock."""
    assert product.option_stock is not None
    values = {"name": product.display_name(language), "sku": product.sku}
    lines = []
    for option in options:
        stock = product.option_stock_of(option) or 0
        key = "option_stock_in" if stock > 0 else "option_stock_out"
        lines.append(t(key, language, option=option, stock=stock, **values))
    others = [
        _count(option, stock, language)
        for option, stock in zip(product.options, product.option_stock, strict=True)
        if option not in options and stock > 0
    ]
    if others:
        lines.append(t("option_others", language, options=", ".join(others)))
    return " ".join(lines)
