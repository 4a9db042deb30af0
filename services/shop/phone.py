"""Phone numbers in one form (digits, country code first), whoever typed them.

The same number reaches csbot as `010-1234-5678` from a shop's spreadsheet,
`01012345678` from another, and `+82 10 1234 5678` or `821012345678` from Telegram's
contact card; matching a Telegram account to a customer needs them all to be equal.
"""

from __future__ import annotations

DEFAULT_COUNTRY_CODE = "82"


def normalize_phone(raw: str, default_country_code: str = DEFAULT_COUNTRY_CODE) -> str:
    """Digits with the country code: `+82 10-1234-5678` and `010-1234-5678` are one number."""
    text = raw.strip()
    digits = "".join(ch for ch in text if ch.isdigit())
    if text.startswith("00"):
        digits = digits[2:]
    elif digits.startswith("0") and not text.startswith("+"):
        digits = default_country_code + digits[1:]
    trunk = default_country_code + "0"
    if digits.startswith(trunk) and len(digits) > len(trunk) + 7:  # `+82 010-...`: the domestic 0 kept
        digits = default_country_code + digits[len(trunk) :]
    return digits


def plausible_phone(digits: str) -> bool:
    """E.164 allows at most 15 digits; fewer than 8 is no one's mobile number."""
    return 8 <= len(digits) <= 15
