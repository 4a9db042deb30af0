"""durable inbox: raw update, status, lease and per-bot de-duplication; outbound status

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import db.types

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# SQLite's unique constraint from 0001 has no name: the convention gives it one to drop.
_NAMING = {"uq": "uq_%(table_name)s_%(column_0_name)s"}


def _old_unique_name() -> str:
    return (
        "inbound_messages_update_id_key"
        if op.get_bind().dialect.name == "postgresql"
        else ("uq_inbound_messages_update_id")
    )


def upgrade() -> None:
    with op.batch_alter_table("inbound_messages", naming_convention=_NAMING) as batch_op:
        batch_op.add_column(sa.Column("bot_id", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("raw_update", sa.Text(), nullable=True))
        # Rows from before this revision were handled by the old code: they count as answered.
        batch_op.add_column(
            sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default="answered")
        )
        batch_op.add_column(sa.Column("status_reason", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("lease_until", db.types.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column("apologized", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.drop_constraint(_old_unique_name(), type_="unique")
        batch_op.create_unique_constraint("uq_inbound_messages_bot_update", ["bot_id", "update_id"])
        batch_op.create_index(batch_op.f("ix_inbound_messages_status"), ["status"], unique=False)
    with op.batch_alter_table("outbound_messages") as batch_op:
        batch_op.add_column(
            sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default="sent")
        )
        batch_op.add_column(sa.Column("error", sa.Text(), nullable=True))
        batch_op.create_index(batch_op.f("ix_outbound_messages_status"), ["status"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("outbound_messages") as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbound_messages_status"))
        batch_op.drop_column("error")
        batch_op.drop_column("status")
    with op.batch_alter_table("inbound_messages", naming_convention=_NAMING) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inbound_messages_status"))
        batch_op.drop_constraint("uq_inbound_messages_bot_update", type_="unique")
        batch_op.create_unique_constraint(_old_unique_name(), ["update_id"])
        for column in (
            "apologized",
            "lease_until",
            "attempts",
            "status_reason",
            "status",
            "raw_update",
            "bot_id",
        ):
            batch_op.drop_column(column)
