"""canary arms: the arm of each LLM reply, persisted weights, their audit trail, replay progress

Revision ID: 0007
Revises: 0005
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import db.types

revision: str = "0007"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("llm_replies") as batch:
        batch.add_column(sa.Column("arm", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
        batch.create_index(batch.f("ix_llm_replies_arm"), ["arm"], unique=False)

    op.create_table(
        "canary_arms",
        sa.Column("arm", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("weight", sa.Float(), nullable=False),
        sa.Column("config_weight", sa.Float(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("since", db.types.UTCDateTime(), nullable=False),
        sa.Column("since_reply", sa.Integer(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("step_since", db.types.UTCDateTime(), nullable=True),
        sa.Column("step_reply", sa.Integer(), nullable=False),
        sa.Column("updated_at", db.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("arm"),
    )
    op.create_table(
        "canary_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("arm", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("action", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("old_weight", sa.Float(), nullable=True),
        sa.Column("new_weight", sa.Float(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("created_at", db.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("canary_events") as batch:
        batch.create_index(batch.f("ix_canary_events_arm"), ["arm"], unique=False)
        batch.create_index(batch.f("ix_canary_events_created_at"), ["created_at"], unique=False)

    op.create_table(
        "replay_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("config_hash", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("since", db.types.UTCDateTime(), nullable=False),
        sa.Column("question_ids", sa.JSON(), nullable=False),
        sa.Column("finished_at", db.types.UTCDateTime(), nullable=True),
        sa.Column("created_at", db.types.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("replay_runs") as batch:
        batch.create_index(batch.f("ix_replay_runs_config_hash"), ["config_hash"], unique=False)
        batch.create_index(batch.f("ix_replay_runs_created_at"), ["created_at"], unique=False)
    op.create_table(
        "replay_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("created_at", db.types.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["replay_runs.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id", "inbound_id"),
    )
    with op.batch_alter_table("replay_items") as batch:
        batch.create_index(batch.f("ix_replay_items_run_id"), ["run_id"], unique=False)
        batch.create_index(batch.f("ix_replay_items_created_at"), ["created_at"], unique=False)


def downgrade() -> None:
    op.drop_table("replay_items")
    op.drop_table("replay_runs")
    op.drop_table("canary_events")
    op.drop_table("canary_arms")
    with op.batch_alter_table("llm_replies") as batch:
        batch.drop_index(batch.f("ix_llm_replies_arm"))
        batch.drop_column("arm")
