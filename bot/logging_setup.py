"""Logging configured once: readable lines on a console, JSON lines for collectors.

Key-value context goes in `extra=`; the formatter prints it, so log calls never
build strings out of customer data or secrets.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

from services.inbox.update_context import current_update

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


def _context(record: logging.LogRecord) -> dict[str, Any]:
    return {key: value for key, value in record.__dict__.items() if key not in _STANDARD}


class UpdateContextFilter(logging.Filter):
    """Every line logged while an update is handled carries its update, user and chat ids."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = current_update.get()
        if context is not None:
            for name in ("update_id", "user_id", "chat_id"):
                if getattr(context, name) is not None and not hasattr(record, name):
                    setattr(record, name, getattr(context, name))
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "event": record.getMessage(),
            **_context(record),
        }
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        return json.dumps(payload, ensure_ascii=False, default=str)


class ConsoleFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        context = _context(record)
        if context:
            fields = " ".join(f"{key}={value}" for key, value in context.items())
            head, _, rest = line.partition("\n")
            line = f"{head} {fields}" + (f"\n{rest}" if rest else "")
        return line


def configure_logging(level: str, fmt: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else ConsoleFormatter())
    handler.addFilter(UpdateContextFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # Libraries that narrate every start-up or request at INFO: keep them for real problems.
    for noisy in ("alembic", "httpx", "httpx2", "httpcore"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
