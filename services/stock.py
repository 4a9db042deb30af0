"""Stock answers, worded only from the shop's product records."""

from __future__ import annotations

from services.entities import Entities, sku_like_tokens
from services.money import money
from services.replies import AnswerSource, FollowUp, Reply
from services.shopdata.base import ShopData, ShopProduct
from services.texts import t


def describe_stock(product: ShopProduct, language: str, low_threshold: int) -> str:
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
    if product.options:
        line += " " + t("stock_options", language, options=", ".join(product.options))
    return line


async def answer_stock(
    shop: ShopData,
    entities: Entities,
    language: str,
    *,
    low_threshold: int,
    text: str = "",
    catalogue_empty: bool = False,
) -> Reply:
    """`catalogue_empty`: the shop has no products at all; a question no product answers then
    gets the honest "I can't check stock here" and a person, not "which product?" again."""
    requested = list(entities.skus) + [s for s in entities.products if s not in entities.skus]
    if not requested:
        # Not in the name index built at start: ask the shop about SKU-looking words.
        guessed = await shop.products_by_sku(sku_like_tokens(text)) if sku_like_tokens(text) else []
        if not guessed and catalogue_empty:
            return Reply(
                t("no_stock_data", language),
                AnswerSource.TEMPLATE,
                follow_up=FollowUp.OFFER_HAND_OFF,
                route="stock",
            )
        if not guessed:
            return Reply(t("which_product", language), AnswerSource.TEMPLATE, route="stock")
        lines = [describe_stock(p, language, low_threshold) for p in guessed]
        return Reply("\n".join(lines), AnswerSource.DATABASE, route="stock")
    products = await shop.products_by_sku(requested)
    found = {p.sku.upper() for p in products}
    lines = [describe_stock(p, language, low_threshold) for p in products]
    missing = [sku for sku in requested if sku.upper() not in found]
    if missing:
        lines.append(t("sku_unknown", language, skus=", ".join(missing)))
    source = AnswerSource.DATABASE if products else AnswerSource.TEMPLATE
    return Reply("\n".join(lines), source, route="stock")
