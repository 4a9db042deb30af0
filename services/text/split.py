"""Splitting long text into message-sized parts at natural boundaries."""

from __future__ import annotations

import re

TELEGRAM_LIMIT = 4096
_BOUNDARIES = (
    re.compile(r"\n\s*\n"),  # paragraph
    re.compile(r"\n"),  # line
    re.compile(r"(?<=[.!?。！？])\s+"),  # sentence
    re.compile(r"\s+"),  # word
)


def split_text(text: str, limit: int = TELEGRAM_LIMIT) -> list[str]:
    """Parts of at most `limit` characters, cut at the strongest boundary that fits.

    Cuts never fall inside a character (Python strings are code points), and a
    text without any boundary in reach is cut hard at the limit.
    """
    parts: list[str] = []
    rest = text
    while len(rest) > limit:
        window = rest[: limit + 1]
        cut = 0
        for boundary in _BOUNDARIES:
            ends = [m for m in boundary.finditer(window) if 0 < m.start() <= limit]
            if ends:
                cut = ends[-1].start()
                rest_start = ends[-1].end()
                break
        if cut == 0:
            cut = rest_start = limit
        parts.append(rest[:cut].rstrip())
        rest = rest[rest_start:]
    if rest.strip() or not parts:
        parts.append(rest)
    return parts
