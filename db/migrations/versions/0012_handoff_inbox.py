"""hand-offs worked as an inbox: status, assignee, thread, tags, satisfaction, saved replies

A hand-off is open (waiting for staff), pending (waiting for the customer) or resolved,
and has at most one staff member on it. Its thread (`handoff_events`) holds what the
customer and staff wrote while a person had the conversation, staff's internal notes
and each claim, status and tag change, from Telegram's support chat or the console.
The customer is asked for a rating once the hand-off is resolved. A message staff wrote
in the console is logged with who wrote it. `staff_members`
names staff ids; `saved_replies` holds the replies staff send often, per language.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import db.types

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN: handoff_links point at handoff_sessions (a batch copy would drop it under them).
    for column in (
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default="open"),
        sa.Column("assignee_id", sa.BigInteger(), nullable=True),
        sa.Column("first_response_at", db.types.UTCDateTime(), nullable=True),
        sa.Column("resolved_by", sa.BigInteger(), nullable=True),
        sa.Column("tags", sqlmodel.sql.sqltypes.AutoString(), nullable=False, server_default=""),
        sa.Column("rating", sa.Integer(), nullable=True),
        sa.Column("rating_asked_at", db.types.UTCDateTime(), nullable=True),
        sa.Column("rated_at", db.types.UTCDateTime(), nullable=True),
    ):
        op.add_column("handoff_sessions", column)
    op.add_column("outbound_messages", sa.Column("staff_id", sa.BigInteger(), nullable=True))
    # Hand-offs closed before: resolved.
    op.execute("UPDATE handoff_sessions SET status = 'resolved' WHERE closed_at IS NOT NULL")
    op.create_table(
        "handoff_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("handoff_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("author_id", sa.BigInteger(), nullable=True),
        sa.Column("via", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", db.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["handoff_id"], ["handoff_sessions.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_handoff_events_handoff_id", "handoff_events", ["handoff_id"])
    op.create_index("ix_handoff_events_created_at", "handoff_events", ["created_at"])
    op.create_table(
        "staff_members",
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("updated_at", db.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("user_id"),
    )
    op.create_index("ix_staff_members_updated_at", "staff_members", ["updated_at"])
    op.create_table(
        "saved_replies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("language", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("updated_by", sa.BigInteger(), nullable=True),
        sa.Column("updated_at", db.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("title", "language"),
    )
    op.create_index("ix_saved_replies_language", "saved_replies", ["language"])
    op.create_index("ix_saved_replies_updated_at", "saved_replies", ["updated_at"])


def downgrade() -> None:
    op.drop_table("saved_replies")
    op.drop_table("staff_members")
    op.drop_table("handoff_events")
    op.drop_column("outbound_messages", "staff_id")
    for name in (
        "rated_at",
        "rating_asked_at",
        "rating",
        "tags",
        "resolved_by",
        "first_response_at",
        "assignee_id",
        "status",
    ):
        op.drop_column("handoff_sessions", name)
