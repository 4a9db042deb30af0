"""A second question in the same message, after one a service answered.

"is the canvas tote bag in stock and how much is shipping?" got the stock line alone: the
message is routed by what it asks first, and the FAQ's judgement of the whole message (0.59
on the demo FAQ) is too unsure to answer. The clause after the break, judged alone ("how much
is shipping?": 0.99), is an ordinary FAQ question, and it gets the same strict bar as any
other: a clause the FAQ does not answer outright adds nothing.
"""

from __future__ import annotations

import re

from services.faq.lookup import FaqLookupAnswerer
from services.faq.matcher import FaqMatch
from services.text.sentences import Language

CLAUSE_BREAK = re.compile(
    r"(?:[,;]\s*(?:and\s+|also\s+|plus\s+)?|\s(?:and|also|plus)\s+(?:also\s+)?"
    r"|\s?그리고\s?|(?<=[있되하없])고\s+|(?<=[요까])\s+|[?？]\s*"
    r"|、\s*(?:それと|あと|それから)?|それと|あと、|それから)\s*",
    re.IGNORECASE,
)
"""Where a message may start another question: "..., and", "also", "그리고", "재고 있고 배송비는",
"在庫はありますか？送料は", "在庫ありますか、それと送料は"."""
MIN_CLAUSE_CHARACTERS = 4
"""Shorter pieces ("M", "navy") are options of the first question, not a second one."""
READ_CHARACTERS = 300
CLAUSES_JUDGED = 2
"""Each clause judged costs an encoder call on the event loop: a message is read this far, and at most
this many clauses after its first are judged (a list of 680 comma-separated codes had asked for 680)."""


def answered_second_question(lookup: FaqLookupAnswerer, text: str, language: Language) -> FaqMatch | None:
    """The FAQ entry that answers outright a clause after the message's first, if one does."""
    clauses = [clause.strip() for clause in CLAUSE_BREAK.split(text[:READ_CHARACTERS]) if clause]
    later = [clause for clause in clauses[1:] if len(clause) >= MIN_CLAUSE_CHARACTERS]
    for clause in later[:CLAUSES_JUDGED]:
        match = lookup.matcher.match(clause, language=language)
        if match is not None and match.answered:
            return match
    return None
