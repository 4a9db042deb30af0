"""one open return request per order line, held by a partial unique index

Two forms for the same item used to file two requests with two RMA numbers. Requests a shop
already has from that time are kept as the customer was told them (number and status): the
later open ones name the first in `duplicate_of`, which the index leaves out. Nothing else
ever sets it.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OPEN = "status IN ('REQUESTED', 'APPROVED', 'RECEIVED')"
_ONE_OPEN_RETURN_PER_ITEM = sa.text(f"{_OPEN} AND duplicate_of IS NULL")
_INDEX = "uq_return_requests_open_item"
_FOREIGN_KEY = "fk_return_requests_duplicate_of"

_EARLIEST_OPEN = (
    "SELECT MIN(earliest.id) FROM return_requests AS earliest"
    f" WHERE earliest.order_item_id = return_requests.order_item_id AND earliest.{_OPEN}"
)


def upgrade() -> None:
    with op.batch_alter_table("return_requests") as batch:
        batch.add_column(sa.Column("duplicate_of", sa.Integer(), nullable=True))
        batch.create_foreign_key(_FOREIGN_KEY, "return_requests", ["duplicate_of"], ["id"])
    op.execute(
        f"UPDATE return_requests SET duplicate_of = ({_EARLIEST_OPEN})"
        f" WHERE {_OPEN} AND id > ({_EARLIEST_OPEN})"
    )
    op.create_index(
        _INDEX,
        "return_requests",
        ["order_item_id"],
        unique=True,
        sqlite_where=_ONE_OPEN_RETURN_PER_ITEM,
        postgresql_where=_ONE_OPEN_RETURN_PER_ITEM,
    )


def downgrade() -> None:
    op.drop_index(_INDEX, table_name="return_requests")
    with op.batch_alter_table("return_requests") as batch:
        batch.drop_constraint(_FOREIGN_KEY, type_="foreignkey")
        batch.drop_column("duplicate_of")
