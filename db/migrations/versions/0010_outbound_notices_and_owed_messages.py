"""outbound messages say whether they were a notice, and keep a refused message's call

"We got your message, we will answer shortly" is sent to a customer when a fault
delays the answer. It is not the answer: the inbox must not take it for one when it
decides whether an update interrupted after a delivery needs handling again. A
message Telegram refused for now, after another part of the reply was delivered,
keeps its call (`payload`) so the next try sends it as it was instead of running
the handlers (and their side effects) again.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbound_messages") as batch:
        batch.add_column(sa.Column("notice", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("payload", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbound_messages") as batch:
        batch.drop_column("payload")
        batch.drop_column("notice")
