"""One definition of each figure admins read: a percentile, an "I don't know", a hand-off.

`/stats`, `csbot stats`, the console's dashboard and gaps, the per-arm figures and the replay
report all count through here, so one day shows the same numbers wherever it is read.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

from db.repositories.logs import HANDOFF_OPENED, opened_handoff
from services.text.sentences import LANGUAGES, t

__all__ = ["HANDOFF_OPENED", "opened_handoff", "percentile", "says_dont_know"]

_STEPS = 1000


def percentile(values: Sequence[float], share: float) -> float | None:
    """The `share` quantile of `values` (0 < share < 1), interpolated the standard library's
    inclusive way (numpy's default too); None when there are no values."""
    if not values:
        return None
    if len(values) == 1:
        return float(values[0])
    cuts = statistics.quantiles(values, n=_STEPS, method="inclusive")
    return cuts[min(len(cuts) - 1, max(0, round(share * _STEPS) - 1))]


_DONT_KNOW = re.compile(
    r"\b(i\s+(do\s*n[o']?t|don't|cannot|can't|am\s+not\s+sure)\s+(know|say|tell|find|answer|help)"
    r"|not\s+sure|no\s+information|(don't|do\s+not)\s+have\s+(that|this|the|a|any)\s+\w*\s*information"
    r"|unable\s+to\s+(answer|find|help)|a\s+person\s+will|talk\s+to\s+a\s+person)"
    r"|모르|알\s*수\s*없|확인하기\s*어렵|답을\s*드리기\s*어려|わかりません|分かりません|お答えできません",
    re.IGNORECASE,
)
_OWN_NO_ANSWER = ("faq_no_match", "faq_no_match_choices")


def says_dont_know(text: str) -> bool:
    """An answer that does not answer, read from the text the customer was sent: nothing, the
    bot's own no-answer reply (with or without entries to pick from), or a model saying so."""
    flat = " ".join(text.split())
    if not flat:
        return True
    if any(flat == t(key, language) for key in _OWN_NO_ANSWER for language in LANGUAGES):
        return True
    return _DONT_KNOW.search(flat) is not None
