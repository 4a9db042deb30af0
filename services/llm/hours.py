"""A time of the customer's held against the shop's hours: "6:15 p.m. works, we're open until 18:30".

A time in a reply must be one the sources give (`fact_guard`), but a customer asking whether they
may call at a quarter past six, or writing at twenty to one, gets their own time back, judged
against the hours: "지금이 12시 40분이라 점심시간(12시 반~1시 반)이에요". Such a time is supported
when its sentence states a range of times the sources support that holds it, and judges it ("works",
"지금", "大丈夫"). A shop's own time said wrong ("orders by 3 p.m. ship the same day") is not judged,
only stated, and stays unsupported.
"""

from __future__ import annotations

from services.llm.fact_claims import claims
from services.llm.subjects import sentences
from services.text.patterns import any_of

_JUDGED = any_of(
    r"\bnow\b|\bcurrently\b|\b(?:works|is fine|is ok(?:ay)?|is within|falls within)\b|\bthat'?s (?:fine|ok)",
    r"지금|현재|괜찮",
    r"今(?:は|が|、)|現在|大丈夫|問題(?:ありません|ございません|ない)|間に合",
)


def _minutes(reading: str) -> int:
    hours, minutes = reading.removeprefix("time:").split(":")
    return int(hours) * 60 + int(minutes)


def within_hours(reply: str, offers: frozenset[str]) -> frozenset[str]:
    """The times of `reply` (as its claims write them) that a sentence judges against a supported
    range of times holding them, from its first minute up to its last (open 10:00-18:30: 10:00 and
    18:29, not 18:30); `offers` are the sources' (`Claim.offers`)."""
    found = set()
    for sentence in sentences(reply):
        if not _JUDGED.search(sentence):
            continue
        stated = claims(sentence)
        ranges = [
            tuple(_minutes(end) for end in need.removeprefix("range:").split("~"))
            for claim in stated
            for need in claim.needs & offers
            if need.startswith("range:time:")
        ]
        for claim in stated:
            if (
                claim.needs
                and all(need.startswith("time:") for need in claim.needs)
                and any(low <= _minutes(need) < high for need in claim.needs for low, high in ranges)
            ):
                found.add(claim.text)
    return frozenset(found)
