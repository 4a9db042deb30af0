"""Alembic environment: runs on the connection handed over by db.migrate."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import db.models  # noqa: F401  (registers the tables on SQLModel.metadata)

config = context.config
connection = config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through `csbot db upgrade` (db.migrate.upgrade)")

context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
