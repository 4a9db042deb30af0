"""Cutting what a model repeats when it is asked to go on with text already shown.

Told to continue, models often restart a little earlier than where the text
stopped, sometimes by a few words, sometimes by a sentence or two. The repeat
is found anywhere in the recent shown text: usually it ends where the shown
text ends (a suffix of it is a prefix of the continuation), but a model may
also re-say a recent stretch from the middle before going on. While the
continuation so far could still be such a repeat it is held back, and released
as soon as it cannot be: a continuation that repeats nothing waits for a few
characters only.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

MIN_OVERLAP_CHARS = 6
"""A shorter match at the seam ("the ", ". ") is more likely chance than a repeat."""
MIN_INNER_REPEAT_CHARS = 24
"""A repeat of a stretch that does not end the shown text must be long to count as one."""
_SENTENCE_END = re.compile(r"[.!?](?=\s+[^a-z0-9]|\s*$)|[。！？]")
"""As the answerer splits sentences: a stop before a lower-case word ("2 p.m. on") is no end."""
_GOES_ON = re.compile(r"\s*[:;,.)\]\-–—a-z]")
"""A continuation that opens with punctuation or a lower-case word goes on with the sentence the shown
text stopped in ("...\nBusan" + ": delivery usually takes one to two days."): the same words said
earlier of Seoul are said again of Busan, not repeated."""
OVERLAP_WINDOW_CHARS = 400
"""How much of the recent shown text is searched; also the most a continuation is held back."""


def strip_overlap(shown: str, continuation: str, *, window: int = OVERLAP_WINDOW_CHARS) -> str:
    """`continuation` without its start that repeats text in the last `window` characters of `shown`."""
    recent = shown[-window:]
    longest = min(len(recent), len(continuation))
    for size in range(longest, MIN_OVERLAP_CHARS - 1, -1):
        if recent.endswith(continuation[:size]):
            return continuation[size:]
    if _GOES_ON.match(continuation):
        return continuation  # it carries on the shown text's own sentence: nothing was re-said
    repeated = _longest_prefix_in(continuation, recent)
    # Only whole sentences count as an inner repeat: "Orders after 2 p.m. ship next week" re-says
    # the start of a shown sentence in order to change it, and must stand.
    # The stop just after the repeated words closes the repeated sentence and goes with it.
    ends = [m.end() for m in _SENTENCE_END.finditer(continuation[: repeated + 1])]
    if ends and ends[-1] >= MIN_INNER_REPEAT_CHARS:
        return continuation[ends[-1] :].lstrip()
    return continuation


def _longest_prefix_in(text: str, haystack: str) -> int:
    """Length of the longest prefix of `text` that occurs somewhere in `haystack`."""
    low, high = 0, min(len(text), len(haystack))
    while low < high:  # a prefix in haystack implies every shorter one is: bisect
        middle = (low + high + 1) // 2
        if text[:middle] in haystack:
            low = middle
        else:
            high = middle - 1
    return low


async def without_repeats(
    shown: str, deltas: AsyncIterator[str], *, window: int = OVERLAP_WINDOW_CHARS
) -> AsyncIterator[str]:
    """`deltas` (a continuation of `shown`) with any repeat of the shown text cut from its start."""
    recent = shown[-window:]
    pending: str | None = ""
    async for delta in deltas:
        if pending is None:
            yield delta
            continue
        pending += delta
        if len(pending) < window and (len(pending) < MIN_OVERLAP_CHARS or pending in recent):
            continue  # it may still be a repeat: wait until it is clear
        rest, pending = strip_overlap(shown, pending, window=window), None
        if rest:
            yield rest
    if pending:
        rest = strip_overlap(shown, pending, window=window)
        if rest:
            yield rest
