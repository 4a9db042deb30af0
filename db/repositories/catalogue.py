from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Product

_BY_SKUS = select(Product).where(func.upper(col(Product.sku)).in_(bindparam("skus", expanding=True)))
"""Built once: building the statement cost more than running it (every stock question asks)."""


async def by_skus(session: AsyncSession, skus: Sequence[str]) -> list[Product]:
    if not skus:
        return []
    upper = [sku.upper() for sku in skus]
    result = await session.exec(_BY_SKUS, params={"skus": upper})
    found = {product.sku.upper(): product for product in result}
    return [found[sku] for sku in dict.fromkeys(upper) if sku in found]


async def all_products(session: AsyncSession) -> Sequence[Product]:
    result = await session.exec(select(Product).order_by(col(Product.sku)))
    return result.all()


async def fingerprint(session: AsyncSession) -> tuple[int, int, int]:
    """Changes whenever a product is added, removed or renamed (stock changes do not matter
    to the name index): row count, highest id and the total length of every name, alias and category."""
    names = (
        func.length(col(Product.sku))
        + func.length(col(Product.name))
        + func.length(col(Product.name_ko))
        + func.length(col(Product.name_en))
        + func.length(col(Product.name_ja))
        + func.length(col(Product.aliases))
        + func.length(col(Product.category))
    )
    row = (
        await session.exec(
            select(
                func.count(), func.coalesce(func.max(col(Product.id)), 0), func.coalesce(func.sum(names), 0)
            )
        )
    ).one()
    return int(row[0] or 0), int(row[1] or 0), int(row[2] or 0)
