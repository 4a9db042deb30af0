"""One definition of each figure admins read: a percentile, an "I don't know", a hand-off.

`/stats`, `csbot stats`, the console's dashboard and gaps, the per-arm figures and the replay
report all count through here, so one day shows the same numbers wherever it is read.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlmodel.ext.asyncio.session import AsyncSession

from db.repositories import logs
from db.repositories.logs import HANDOFF_OPENED, opened_handoff
from db.repositories.stats import MessageFigures
from services.replies import NO_ANSWER_KEYS, ReplyRoute
from services.text.sentences import LANGUAGES, t

if TYPE_CHECKING:
    from services.llm.reply import ReplyReport

__all__ = [
    "HANDOFF_OPENED",
    "dont_know",
    "dont_know_messages",
    "opened_handoff",
    "percentile",
    "says_dont_know",
    "streamed_dont_know",
]

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


def says_dont_know(text: str) -> bool:
    """An answer that does not answer, read from the text the customer was sent: nothing, the
    bot's own no-answer reply (with or without entries to pick from), or a model saying so."""
    flat = " ".join(text.split())
    if not flat:
        return True
    if any(flat == t(key, language) for key in NO_ANSWER_KEYS for language in LANGUAGES):
        return True
    return _DONT_KNOW.search(flat) is not None


def streamed_dont_know(committed: str, report: ReplyReport) -> bool:
    """The one definition for an answer a model took part in, decided when it was sent: nothing
    verified came of it (the model's `NO_ANSWER`, a refused or failed reply: the customer got the
    bot's own "I don't know" and a person), or the model wrote that it does not know anyway."""
    return not committed.strip() or report.no_answer or (report.generated and says_dont_know(committed))


def dont_know(recorded: bool | None, sent_text: str) -> bool:
    """Whether an answer said "I don't know": as the answering path recorded it; for messages
    recorded before it did (`None`), read from the text the customer was sent."""
    return recorded if recorded is not None else says_dont_know(sent_text)


async def dont_know_messages(session: AsyncSession, rows: Sequence[MessageFigures]) -> list[MessageFigures]:
    """The customer messages of `rows` whose answer said "I don't know": the one count of `/stats`,
    `csbot stats`, the dashboard and its gaps. Messages recorded before the answering path said
    so are read from their text, FAQ-style answers only (as they were counted then)."""
    earlier = [row for row in rows if row.dont_know is None and row.route == ReplyRoute.FAQ]
    sent = await logs.sent_texts(session, [row.id for row in earlier]) if earlier else {}
    return [
        row
        for row in rows
        if row.dont_know
        or (
            row.dont_know is None
            and row.route == ReplyRoute.FAQ
            and says_dont_know(sent.get((row.id, row.chat_id), ""))
        )
    ]
