"""shop import: customers' own ids and e-mail, product names in English and Japanese

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("customers") as batch:
        batch.add_column(sa.Column("external_id", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
        batch.add_column(
            sa.Column("email", sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default="")
        )
        batch.create_unique_constraint("uq_customers_external_id", ["external_id"])
    with op.batch_alter_table("products") as batch:
        batch.add_column(
            sa.Column("name_en", sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default="")
        )
        batch.add_column(
            sa.Column("name_ja", sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default="")
        )


def downgrade() -> None:
    with op.batch_alter_table("products") as batch:
        batch.drop_column("name_ja")
        batch.drop_column("name_en")
    with op.batch_alter_table("customers") as batch:
        batch.drop_constraint("uq_customers_external_id", type_="unique")
        batch.drop_column("email")
        batch.drop_column("external_id")
