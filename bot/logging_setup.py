"""Logging configured once: readable lines on a console, JSON lines for collectors.

Key-value context goes in `extra=`; the formatter prints it, so log calls never
build strings out of customer data or secrets.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

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


class SecretFilter(logging.Filter):
    """Removes every configured secret from a line before it is written: a library that logs a
    request's URL (aiogram puts the bot token in every Bot API path), an exception that quotes a
    connection string, a value passed in `extra=`. Also the secret as it appears URL-encoded."""

    MASK = "[redacted]"

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        shapes = {shape for secret in secrets if secret for shape in (secret, quote(secret, safe=""))}
        # A longer one first: it may hold a shorter one.
        self.secrets = tuple(sorted(shapes, key=len, reverse=True))

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, self.MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        redacted = self.redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        for key, value in _context(record).items():
            if isinstance(value, str):
                setattr(record, key, self.redact(value))
            elif not isinstance(value, int | float | bool) and value is not None:
                text = str(value)
                if self.redact(text) != text:
                    setattr(record, key, self.redact(text))
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
        if record.exc_text:
            payload["exception"] = record.exc_text
        elif record.exc_info:
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


def configure_logging(level: str, fmt: str, secrets: Iterable[str] = ()) -> None:
    """`secrets`: values no line may show (Settings.secrets)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else ConsoleFormatter())
    handler.addFilter(UpdateContextFilter())
    handler.addFilter(SecretFilter(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # Libraries that narrate every start-up or request at INFO: keep them for real problems.
    for noisy in ("alembic", "httpx", "httpx2", "httpcore"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
