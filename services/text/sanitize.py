"""Making customer text storable on every backend without changing what it says.

PostgreSQL's `text` refuses the NUL character, and no UTF-8 database takes a lone
surrogate (which JSON can carry as `\\ud83d`). Both are replaced with a visible
stand-in rather than dropped, so an admin reading the log sees that something
was there. The raw update keeps the original, escaped, for re-processing.
"""

from __future__ import annotations

import re
from typing import Any

NUL_STAND_IN = "\u2400"  # SYMBOL FOR NULL
REPLACEMENT = "\ufffd"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _stand_in(match: re.Match[str]) -> str:
    return NUL_STAND_IN if match.group() == "\x00" else REPLACEMENT


def storable(text: str) -> str:
    return _UNSTORABLE.sub(_stand_in, text) if _UNSTORABLE.search(text) else text


def storable_tree(value: Any) -> Any:
    """The same JSON-like value with every string made storable (keys included)."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {storable_tree(key): storable_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [storable_tree(item) for item in value]
    return value


def needs_cleaning(text: str) -> bool:
    return _UNSTORABLE.search(text) is not None
