"""Column values for Core inserts of SQLModel tables, defaults filled in as the model would.

The hot path (every update's inbound row and outcome) inserts with Core statements:
building a SQLModel instance validates every field and the ORM's unit of work then
flushes it, which cost more than the INSERT itself. The model's field defaults
(`default` and `default_factory`, e.g. `created_at`) live in the model, not in the
table, so a Core insert takes them from here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from sqlmodel import SQLModel

_Default = tuple[str, Callable[[], Any] | None, Any]
"""Field name, default factory (or None), plain default."""


@cache
def _defaults(model: type[SQLModel]) -> tuple[_Default, ...]:
    columns = {column.key for column in model.__table__.c}  # type: ignore[attr-defined]
    defaults: list[_Default] = []
    for name, info in model.model_fields.items():
        if name == "id" or name not in columns:
            continue
        if info.default_factory is not None:
            defaults.append((name, info.default_factory, None))  # type: ignore[arg-type]
        elif not info.is_required():
            defaults.append((name, None, info.default))
    return tuple(defaults)


def column_values(model: type[SQLModel], given: Mapping[str, Any]) -> dict[str, Any]:
    """`given`, plus the model's default for every other column (the id is the database's)."""
    values = dict(given)
    for name, factory, default in _defaults(model):
        if name not in values:
            values[name] = factory() if factory is not None else default
    return values
