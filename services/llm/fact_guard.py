"""Generated text may only state facts it was given.

Whatever the model, every number (amounts, prices, percentages, dates,
durations, times, phone and order numbers), email address and URL in a reply
must appear in the facts and FAQ text the model was given, with the same
meaning: the same unit or currency, the same whole address. Forms that say the
same thing count as the same ("₩59,000" and "59,000원", "1-2 days" and "1~2일",
"thirty days" and "30 days"); see `fact_claims` for how text is read.

The customer's own message is not a source: "is it 90% off?" must not become
"yes, 90% off". Hence the guard is built from the facts and FAQ text only
(`FactGuard.for_sources`), never from anything the customer wrote.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.llm.fact_claims import claims


@dataclass(frozen=True)
class GuardVerdict:
    ok: bool
    unsupported: tuple[str, ...] = ()
    """Each unsupported claim as written, with its reading: "₩2,500 (2500 KRW)"."""

    @property
    def reason(self) -> str:
        return "unsupported: " + ", ".join(self.unsupported) if self.unsupported else ""


class FactGuard:
    """Checks replies against one set of sources; build it once per reply, check each sentence."""

    def __init__(self, sources: str) -> None:
        self._offers: frozenset[str] = frozenset().union(*(claim.offers for claim in claims(sources)))

    @classmethod
    def for_sources(cls, *, facts: str, faq_text: str) -> FactGuard:
        """The guard for one reply: this customer's database facts and the FAQ text the model saw.

        There is deliberately no parameter for the customer's message.
        """
        return cls(f"{facts}\n{faq_text}")

    def check(self, reply: str) -> GuardVerdict:
        unsupported = [
            claim.text if claim.text == claim.shown else f"{claim.text} ({claim.shown})"
            for claim in claims(reply)
            if not claim.needs & self._offers
        ]
        return GuardVerdict(not unsupported, tuple(dict.fromkeys(unsupported)))
