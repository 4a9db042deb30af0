"""What the webhook accepts as an update: a body it can parse, store and hand to a handler.

Telegram's updates are shallow JSON objects (a message quoting a message, an
inline keyboard's rows of buttons) whose integers are 64-bit ids. A body that
is not JSON, is nested deeper than `MAX_NESTING` (measured before parsing, so no
parser or recursive walk ever sees it), holds an integer outside the signed
64-bit range (no id column of any supported database takes it), or carries no
update type this version of aiogram knows, is refused with a reason
(`NotAnUpdate`): the webhook answers 400 and stores nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from aiogram import Bot
from aiogram.types import Update
from aiogram.types.update import UpdateTypeLookupError
from pydantic import ValidationError

MAX_NESTING = 64
"""Objects and arrays inside one another; Telegram's deepest updates stay well under 20."""
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(rb"[\[\]{}]")


class NotAnUpdate(ValueError):
    """The body is no update csbot can store; the message says why (and quotes nothing of it)."""


def nesting_exceeds(body: bytes, limit: int = MAX_NESTING) -> bool:
    """Whether the JSON text nests objects and arrays deeper than `limit` (strings skipped).
    Stops at the first bracket past the limit."""
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub(b"", body)):
        if bracket.group() in (b"[", b"{"):
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _out_of_range_integer(value: Any) -> bool:
    """Whether any integer in the parsed JSON lies outside the signed 64-bit range (iterative)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, int) and not INT64_MIN <= item <= INT64_MAX:
            return True
    return False


def read_update(body: bytes, bot: Bot) -> Update:
    """The update in a webhook body, or `NotAnUpdate`."""
    if nesting_exceeds(body):
        raise NotAnUpdate(f"JSON nested deeper than {MAX_NESTING} levels")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise NotAnUpdate(f"not JSON: {type(error).__name__}") from None
    if not isinstance(data, dict):
        raise NotAnUpdate(f"a JSON {type(data).__name__}, not an object")
    if _out_of_range_integer(data):
        raise NotAnUpdate("an integer outside the signed 64-bit range")
    try:
        update = Update.model_validate(data, context={"bot": bot})
    except ValidationError as error:
        fields = sorted({".".join(str(part) for part in problem["loc"]) for problem in error.errors()})
        raise NotAnUpdate(f"not a Telegram update: {', '.join(fields[:5]) or 'invalid'}") from None
    try:
        update.event_type  # noqa: B018  # raises for an update of no type this bot knows
    except UpdateTypeLookupError:
        raise NotAnUpdate("no known update type in it") from None
    return update
