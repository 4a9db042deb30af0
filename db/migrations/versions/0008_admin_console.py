"""admin console: one-time login links, browser sessions, the admins' audit trail

Revision ID: 0008
Revises: 0005
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import db.types

revision: str = "0008"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "console_login_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("admin_user_id", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", db.types.UTCDateTime(), nullable=False),
        sa.Column("used_at", db.types.UTCDateTime(), nullable=True),
        sa.Column("created_at", db.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_console_login_links_created_at", "console_login_links", ["created_at"])
    op.create_table(
        "console_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("admin_user_id", sa.BigInteger(), nullable=False),
        sa.Column("csrf_token", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("expires_at", db.types.UTCDateTime(), nullable=False),
        sa.Column("created_at", db.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("session_hash"),
    )
    op.create_index("ix_console_sessions_created_at", "console_sessions", ["created_at"])
    op.create_table(
        "admin_audit",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("admin_user_id", sa.BigInteger(), nullable=True),
        sa.Column("action", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("target", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.Column("created_at", db.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_admin_audit_admin_user_id", "admin_audit", ["admin_user_id"])
    op.create_index("ix_admin_audit_action", "admin_audit", ["action"])
    op.create_index("ix_admin_audit_created_at", "admin_audit", ["created_at"])


def downgrade() -> None:
    for index in ("ix_admin_audit_created_at", "ix_admin_audit_action", "ix_admin_audit_admin_user_id"):
        op.drop_index(index, table_name="admin_audit")
    op.drop_table("admin_audit")
    op.drop_index("ix_console_sessions_created_at", table_name="console_sessions")
    op.drop_table("console_sessions")
    op.drop_index("ix_console_login_links_created_at", table_name="console_login_links")
    op.drop_table("console_login_links")
