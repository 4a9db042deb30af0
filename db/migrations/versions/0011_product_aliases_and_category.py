"""products carry the shop's own words for them and a category

A shop's customers ask for "콜롬비아 원두", "yirgacheffe" or "ケニアの豆": words that are not in the
product's names. `aliases` holds them (`|`-separated, any language) and `category` the kind of
thing the product is ("원두", "beans"), so a question naming the kind is not taken for another
product.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (not a batch copy of the table): order items point at products, and SQLite
    # would refuse to drop the old table under them.
    op.add_column("products", sa.Column("aliases", sa.Text(), nullable=False, server_default=""))
    op.add_column("products", sa.Column("category", sa.String(), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("products", "category")
    op.drop_column("products", "aliases")
