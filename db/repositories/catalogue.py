from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import Product


async def by_skus(session: AsyncSession, skus: Sequence[str]) -> list[Product]:
    if not skus:
        return []
    upper = [sku.upper() for sku in skus]
    result = await session.exec(select(Product).where(func.upper(col(Product.sku)).in_(upper)))
    found = {product.sku.upper(): product for product in result}
    return [found[sku] for sku in dict.fromkeys(upper) if sku in found]


async def all_products(session: AsyncSession) -> Sequence[Product]:
    result = await session.exec(select(Product).order_by(col(Product.sku)))
    return result.all()
