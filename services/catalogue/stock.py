"""Stock answers, worded only from the shop's product records."""

from __future__ import annotations

import re

from services.catalogue.options import NotOffered, asked_options, colour_name, colour_value_name, not_offered
from services.catalogue.variants import by_option_line, mentioned_options, option_answer, option_key
from services.replies import AnswerSource, FollowUp, Reply, ReplyRoute
from services.shop.money import money
from services.shop.sources.base import ShopData, ShopProduct
from services.text.sentences import Language, t
from services.understanding.entities import Entities, sku_like_tokens


def describe_stock(product: ShopProduct, language: Language, low_threshold: int) -> str:
    """Every line carries the price: "how much is X?" is asked of sold-out products too."""
    values = {
        "name": product.display_name(language),
        "sku": product.sku,
        "stock": product.stock,
        "price": money(product.price, product.currency),
    }
    if product.stock <= 0:
        if product.restock_date is not None:
            line = t("stock_out_restock", language, restock=product.restock_date.isoformat(), **values)
        else:
            line = t("stock_out", language, **values)
    else:
        key = "stock_low" if product.stock <= low_threshold else "stock_in"
        line = t(key, language, **values)
    if product.option_stock is not None:
        line += " " + by_option_line(product, language)
    elif product.options:
        line += " " + t("stock_options", language, options=", ".join(product.options))
    return line


def describe_product(
    product: ShopProduct, language: Language, low_threshold: int, text: str, *, alone: bool = True
) -> str:
    """The stock line, unless the question asks for a size or colour the product does not come in:
    then that, with the ones it does ("in stock (42 available)" answered "in size XXL?" for a shirt
    sold in S-XL). Only for a product asked about `alone`: with two things in one question (two
    products, or one and another thing), a size or colour cannot be told apart as one's or the
    other's ("the overshirt in XL and the canvas tote in ivory" had told the overshirt it does not
    come in ivory)."""
    if product.option_stock is not None:
        # Counted per option: the asked ones are answered (also beside another product, since
        # each option is the product's own), else every option's count.
        asked = mentioned_options(product, _without_names(text, product))
        if asked:
            return option_answer(product, asked, language)
    if not alone:
        return describe_stock(product, language, low_threshold)
    missing = not_offered(asked_options(_without_names(text, product)), product.options)
    if not missing:
        return describe_stock(product, language, low_threshold)
    return _not_offered_line(product, missing, language)


def _not_offered_line(product: ShopProduct, missing: NotOffered, language: Language) -> str:
    values = {"name": product.display_name(language), "sku": product.sku}
    sentences = []
    if missing.sizes:
        sentences.append(
            t(
                "option_size_not_offered",
                language,
                asked=" / ".join(missing.sizes),
                offered=", ".join(missing.offered.sizes),
                **values,
            )
        )
    if missing.colours:
        sentences.append(
            t(
                "option_colour_not_offered",
                language,
                asked=" / ".join(colour_name(c, language) for c in missing.colours),
                offered=", ".join(colour_value_name(v, language) for v in missing.offered.colour_values),
                **values,
            )
        )
    return " ".join(sentences)


def _without_names(text: str, product: ShopProduct) -> str:
    """The question without the product's own names' words: "Red Wing Boots" asks for no red."""
    for word in sorted(
        {w for name in product.names for w in name.split() if len(w) > 1}, key=len, reverse=True
    ):
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", " ", text, flags=re.IGNORECASE)
    return text


async def answer_stock(
    shop: ShopData,
    entities: Entities,
    language: Language,
    *,
    low_threshold: int,
    text: str = "",
    catalogue_empty: bool = False,
) -> Reply:
    """`catalogue_empty`: the shop has no products at all; a question no product answers then
    gets the honest "I can't check stock here" and a person, not "which product?" again."""
    products = entities.answered_products
    requested = list(entities.skus) + [s for s in products if s not in entities.skus]
    if not requested:
        # Not in the name index built at start: ask the shop about SKU-looking words.
        guessed = await shop.products_by_sku(sku_like_tokens(text)) if sku_like_tokens(text) else []
        if not guessed and entities.near_misses:
            return await _near_misses(shop, entities.near_misses, language)
        if not guessed and catalogue_empty:
            return Reply(
                t("no_stock_data", language),
                AnswerSource.TEMPLATE,
                follow_up=FollowUp.OFFER_HAND_OFF,
                route=ReplyRoute.STOCK,
            )
        if not guessed:
            return Reply(t("which_product", language), AnswerSource.TEMPLATE, route=ReplyRoute.STOCK)
        lines = [
            describe_product(
                p, language, low_threshold, text, alone=len(guessed) == 1 and not entities.other_things
            )
            for p in guessed
        ]
        return Reply("\n".join(lines), AnswerSource.DATABASE, route=ReplyRoute.STOCK)
    fetched = await shop.products_by_sku(requested)
    found = {p.sku.upper() for p in fetched}
    found_products = options_over_names(fetched, text)
    lines = [
        describe_product(
            p, language, low_threshold, text, alone=len(found_products) == 1 and not entities.other_things
        )
        for p in found_products
    ]
    missing = [sku for sku in requested if sku.upper() not in found]
    if missing:
        lines.append(t("sku_unknown", language, skus=", ".join(missing)))
    source = AnswerSource.DATABASE if found_products else AnswerSource.TEMPLATE
    return Reply("\n".join(lines), source, route=ReplyRoute.STOCK)


def options_over_names(products: list[ShopProduct], text: str) -> list[ShopProduct]:
    """ "드립백 예가체프맛": 예가체프 is an option of the drip bags and also the Yirgacheffe beans' name;
    the option of a product asked about wins, so the beans are not answered too."""
    if len(products) < 2:
        return products
    named = {option_key(option) for p in products for option in mentioned_options(p, text)}
    kept = [p for p in products if not any(option_key(name) in named for name in p.names)]
    return kept or products


async def _near_misses(shop: ShopData, skus: tuple[str, ...], language: Language) -> Reply:
    """ "wool coat" found only the Wool Beanie: the shop does not seem to carry what was asked for, and
    the near names are offered, never their stock as if it were the answer."""
    near = await shop.products_by_sku(list(skus))
    if not near:
        return Reply(t("which_product", language), AnswerSource.TEMPLATE, route=ReplyRoute.STOCK)
    names = [p.display_name(language) for p in near]
    listed = f"{', '.join(names[:-1])} {t('or', language)} {names[-1]}" if len(names) > 1 else names[0]
    return Reply(t("not_carried_near", language, names=listed), AnswerSource.TEMPLATE, route=ReplyRoute.STOCK)
