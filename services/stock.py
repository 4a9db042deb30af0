"""Stock answers, worded only from product rows."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Product
from db.repositories import catalogue
from services.entities import Entities
from services.money import money
from services.replies import AnswerSource, Reply
from services.shop_files.products import split_options
from services.texts import t


def product_names(product: Product) -> tuple[str, ...]:
    """Every name a customer may use for the product, in any language the shop gave."""
    return tuple(
        dict.fromkeys(n for n in (product.name, product.name_ko, product.name_en, product.name_ja) if n)
    )


def display_name(product: Product, language: str) -> str:
    localized = {"ko": product.name_ko, "en": product.name_en, "ja": product.name_ja}.get(language, "")
    return localized or product.name


def describe_stock(product: Product, language: str, low_threshold: int) -> str:
    name = display_name(product, language)
    values = {"name": name, "sku": product.sku, "stock": product.stock}
    if product.stock <= 0:
        if product.restock_date is not None:
            line = t("stock_out_restock", language, restock=product.restock_date.isoformat(), **values)
        else:
            line = t("stock_out", language, **values)
    else:
        key = "stock_low" if product.stock <= low_threshold else "stock_in"
        line = t(key, language, price=money(product.price, product.currency), **values)
    if product.options:
        line += " " + t("stock_options", language, options=", ".join(split_options(product.options)))
    return line


async def answer_stock(
    session: AsyncSession, entities: Entities, language: str, *, low_threshold: int
) -> Reply:
    requested = list(entities.skus) + [s for s in entities.products if s not in entities.skus]
    if not requested:
        return Reply(t("which_product", language), AnswerSource.TEMPLATE, route="stock")
    products = await catalogue.by_skus(session, requested)
    found = {p.sku for p in products}
    lines = [describe_stock(p, language, low_threshold) for p in products]
    missing = [sku for sku in requested if sku.upper() not in found]
    if missing:
        lines.append(t("sku_unknown", language, skus=", ".join(missing)))
    source = AnswerSource.DATABASE if products else AnswerSource.TEMPLATE
    return Reply("\n".join(lines), source, route="stock")
