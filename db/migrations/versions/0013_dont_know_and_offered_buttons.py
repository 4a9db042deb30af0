"""what an answer was, as the answering path said: "I don't know", and the buttons it offered

`inbound_messages.dont_know` is set when handling ends: the bot's own no-answer reply, a reply
with nothing verified in it, or a model's own no-answer signal. Rows recorded before it stay
NULL (read from their text). `outbound_messages.buttons` keeps the labels of the buttons a
message offered, so the console shows them under the bot's bubble.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("inbound_messages", sa.Column("dont_know", sa.Boolean(), nullable=True))
    op.add_column("outbound_messages", sa.Column("buttons", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("outbound_messages", "buttons")
    op.drop_column("inbound_messages", "dont_know")
