from __future__ import annotations

import secrets
from collections.abc import Sequence
from enum import StrEnum

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import OPEN_RETURN_STATUSES, ReturnRequest
from db.types import utcnow


async def by_idempotency_key(session: AsyncSession, key: str) -> ReturnRequest | None:
    result = await session.exec(select(ReturnRequest).where(ReturnRequest.idempotency_key == key))
    return result.first()


async def open_for_item(session: AsyncSession, order_item_id: int) -> ReturnRequest | None:
    """The request still being handled for this order line, if any. Marked duplicates (filed twice
    before migration 0009) count too: once the first of a pair is closed, its still-open twin is
    the item's open request, which the unique index alone (it skips them) would not see."""
    statement = (
        select(ReturnRequest)
        .where(
            ReturnRequest.order_item_id == order_item_id,
            col(ReturnRequest.status).in_(OPEN_RETURN_STATUSES),
        )
        .order_by(col(ReturnRequest.duplicate_of).is_not(None), col(ReturnRequest.id))
    )
    return (await session.exec(statement)).first()


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


class Filed(StrEnum):
    """What filing a request came to."""

    CREATED = "created"
    REPEATED = "repeated"
    """The same form again (a second Confirm): its own request."""
    ALREADY_OPEN = "already_open"
    """Another form's request for the item is still open: that one, not a second RMA."""


async def create_once(session: AsyncSession, request: ReturnRequest) -> tuple[ReturnRequest, Filed]:
    """Insert unless this form already filed, or the item already has an open request; commit.

    The unique keys, not the reads before the insert, are what guarantee "exactly once": two
    concurrent taps (or two forms for one item, on any instance) both try the insert, and the
    loser reads the winner's row. The reads only spare the insert in the common case.
    """
    existing = await _filed_before(session, request)
    if existing is not None:
        return existing
    session.add(request)
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        existing = await _filed_before(session, request)
        if existing is None:
            raise
        return existing
    return request, Filed.CREATED


async def _filed_before(session: AsyncSession, request: ReturnRequest) -> tuple[ReturnRequest, Filed] | None:
    same_form = await by_idempotency_key(session, request.idempotency_key)
    if same_form is not None:
        return same_form, Filed.REPEATED
    open_one = await open_for_item(session, request.order_item_id)
    if open_one is not None:
        return open_one, Filed.ALREADY_OPEN
    return None
