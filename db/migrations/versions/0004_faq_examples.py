"""faq examples: other phrasings of each FAQ question, which the matcher learns from

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("faq_entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("examples", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("faq_entries", schema=None) as batch_op:
        batch_op.drop_column("examples")
