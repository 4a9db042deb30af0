"""The Core table behind a model, typed.

Bulk imports work on Core tables (one executemany instead of an ORM object per row).
SQLModel does not declare `__table__` to type checkers, so it is looked up through
SQLAlchemy's inspection API, which does.
"""

from __future__ import annotations

from sqlalchemy import Table, inspect
from sqlmodel import SQLModel


def table_of(model: type[SQLModel]) -> Table:
    table = inspect(model).local_table
    if not isinstance(table, Table):  # a model mapped to a join or a select would land here
        raise TypeError(f"{model.__name__} is not mapped to one table")
    return table
