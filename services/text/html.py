"""Telegram HTML for text we did not write: escaped so it can never become markup, and read back.

Model and FAQ text goes out with parse_mode HTML so our own label can be set
apart in italics; everything else in it is escaped. Logs, the terminal chat
and tests read messages back as the customer sees them.
"""

from __future__ import annotations

import html
import re

HTML = "HTML"
_TAG = re.compile(r"<[^>]*>")


def escape(text: str) -> str:
    return html.escape(text, quote=False)


def labelled_html(text: str, label: str = "") -> str:
    """`text` escaped, after `label` in italics when there is one."""
    return (f"<i>{escape(label.strip())}</i> " if label.strip() else "") + escape(text)


def to_plain(text: str, parse_mode: object = None) -> str:
    """What the reader sees: our HTML is tags and escapes only, so this undoes it exactly."""
    if parse_mode != HTML:
        return text
    return html.unescape(_TAG.sub("", text))
