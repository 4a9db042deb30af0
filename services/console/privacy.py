"""Customers' phone numbers, hidden from admins' screens until one asks (and is audited)."""

from __future__ import annotations

import re

_PHONE = re.compile(r"(?<![\d+])(?:\+\d{1,3}[ -]?\(?\d{1,4}\)?|\(?0\d{1,3}\)?)[ -]?\d{3,4}[ -]?\d{4}(?!\d)")
"""International (+82 10 1234 5678) or domestic with the trunk 0 (010-1234-5678, 03-1234-5678):
bare digit runs without either are ids, amounts and order numbers more often than phones.
Only digits bound a number: Korean particles follow it directly ("010-1234-5678로")."""
_ORDER_LIKE = re.compile(r"\d{8}-\d{4,7}")
"""Dated order numbers (20240115-001234) have a phone's shape; they are what admins search for."""
KEEP_DIGITS = 4


def mask_phone(value: str) -> str:
    """Every digit but the last four replaced, separators kept: 010-****-5678."""
    total = sum(c.isdigit() for c in value)
    seen = 0
    out = []
    for char in value:
        if char.isdigit():
            seen += 1
            out.append(char if seen > total - KEEP_DIGITS else "•")
        else:
            out.append(char)
    return "".join(out)


def mask_phones(text: str) -> str:
    """Phone numbers in free text masked; order numbers left readable."""
    protected = [match.span() for match in _ORDER_LIKE.finditer(text)]

    def replace(match: re.Match[str]) -> str:
        start, end = match.span()
        if any(start < p_end and p_start < end for p_start, p_end in protected):
            return match.group(0)
        return mask_phone(match.group(0))

    return _PHONE.sub(replace, text)
