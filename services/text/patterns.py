"""Word lists as one regular expression."""

from __future__ import annotations

import re


def any_of(*patterns: str) -> re.Pattern[str]:
    """One case-insensitive pattern matching any of `patterns` (each its own group, so an
    alternative's `|` stays inside it)."""
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)
