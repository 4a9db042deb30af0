from __future__ import annotations

import secrets
from collections.abc import Sequence

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import ReturnRequest
from db.types import utcnow


async def by_idempotency_key(session: AsyncSession, key: str) -> ReturnRequest | None:
    result = await session.exec(select(ReturnRequest).where(ReturnRequest.idempotency_key == key))
    return result.first()


async def for_customer(
    session: AsyncSession, customer_id: int, *, rma_numbers: Sequence[str] = (), limit: int = 5
) -> Sequence[ReturnRequest]:
    statement = select(ReturnRequest).where(ReturnRequest.customer_id == customer_id)
    if rma_numbers:
        statement = statement.where(col(ReturnRequest.rma_number).in_(list(rma_numbers)))
    statement = statement.order_by(col(ReturnRequest.created_at).desc()).limit(limit)
    return (await session.exec(statement)).all()


def new_rma_number() -> str:
    """Date plus random digits: unguessable, so an RMA number reveals nothing about volume."""
    return f"RMA-{utcnow():%Y%m%d}{secrets.randbelow(10**6):06d}"


async def create_once(session: AsyncSession, request: ReturnRequest) -> tuple[ReturnRequest, bool]:
    """Insert unless a request with the same idempotency key exists; commit either way.

    The unique key, not a prior read, is what guarantees "exactly once": two
    concurrent taps both try the insert and the loser reads the winner's row.
    """
    existing = await by_idempotency_key(session, request.idempotency_key)
    if existing is not None:
        return existing, False
    session.add(request)
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        existing = await by_idempotency_key(session, request.idempotency_key)
        if existing is None:
            raise
        return existing, False
    return request, True
