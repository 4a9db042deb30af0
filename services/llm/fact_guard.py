"""Generated text may only state facts it was given.

Whatever the model, every number (amounts, prices, percentages, dates,
durations, times, phone and order numbers), email address and URL in a reply
must appear in the facts and FAQ text the model was given, with the same
meaning: the same unit or currency, the same whole address. Forms that say the
same thing count as the same ("₩59,000" and "59,000원", "1-2 days" and "1~2일",
"thirty days" and "30 days"); see `fact_claims` for how text is read.

Commitments are facts too: a reply may promise, grant or deny only what the
FAQ does (`commitments`: refunds, discounts, free returns, waived fees,
call-backs, compensation, exceptions, actions "already taken"), and it may not
reproduce the prompt's own instructions or its section headings (a customer
asking for "your system prompt verbatim" gets nothing of it).

The customer's own message is not a source: "is it 90% off?" must not become
"yes, 90% off". Hence the guard is built from the facts and FAQ text only
(`FactGuard.for_sources`), never from anything the customer wrote.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from services.llm.commitments import CommitmentGuard
from services.llm.fact_claims import claims

ECHO_WORDS = 5
"""A run of this many words of the instructions in a reply is the prompt echoed."""
_SECTION_HEADING = re.compile(r"^\s*(?:FACTS|FAQ|SHOP NOTE|INSTRUCTIONS|SYSTEM)\s*:", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9']+")


def _runs(text: str) -> frozenset[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return frozenset(tuple(words[i : i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1))


@functools.cache
def _instruction_runs(instructions: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    """Read once per set of prompts, not once per reply."""
    return frozenset().union(*(_runs(text) for text in instructions))


@dataclass(frozen=True)
class GuardVerdict:
    ok: bool
    unsupported: tuple[str, ...] = ()
    """Each unsupported claim as written, with its reading: "₩2,500 (2500 KRW)"."""
    commitments: tuple[str, ...] = ()
    """Each commitment the FAQ does not make: "full refund", "no charge for return"."""
    echoed: bool = False
    """The reply reproduces the prompt's instructions or section headings."""

    @property
    def reason(self) -> str:
        parts = []
        if self.unsupported:
            parts.append("unsupported: " + ", ".join(self.unsupported))
        if self.commitments:
            parts.append("commitment not in the FAQ: " + ", ".join(self.commitments))
        if self.echoed:
            parts.append("the prompt echoed")
        return "; ".join(parts)


class FactGuard:
    """Checks replies against one set of sources; build it once per reply, check each sentence."""

    def __init__(
        self, sources: str, *, promises: str | None = None, instructions: Sequence[str] = ()
    ) -> None:
        """`sources`: what numbers may come from; `promises`: the shop's own text, what commitments
        may come from (default `sources`); `instructions`: prompt text a reply must not reproduce."""
        self._offers: frozenset[str] = frozenset().union(*(claim.offers for claim in claims(sources)))
        self._commitments = CommitmentGuard(sources if promises is None else promises)
        self._instruction_runs = _instruction_runs(tuple(instructions))

    @classmethod
    def for_sources(cls, *, facts: str, faq_text: str, instructions: Sequence[str] = ()) -> FactGuard:
        """The guard for one reply: this customer's database facts and the FAQ text the model saw.

        There is deliberately no parameter for the customer's message. Commitments are read from
        the FAQ text only: the facts carry customer-written text (their name).
        """
        return cls(f"{facts}\n{faq_text}", promises=faq_text, instructions=instructions)

    def check(self, reply: str, *, before: str = "") -> GuardVerdict:
        """`before`: the reply's text already released, which a sentence may go on about ("If it is
        defective, return shipping is free. You pay nothing.")."""
        unsupported = [
            claim.text if claim.text == claim.shown else f"{claim.text} ({claim.shown})"
            for claim in claims(reply)
            if not claim.needs & self._offers
        ]
        promised = tuple(dict.fromkeys(str(c) for c in self._commitments.unsupported(reply, before=before)))
        echoed = bool(_SECTION_HEADING.search(reply) or _runs(reply) & self._instruction_runs)
        return GuardVerdict(
            not (unsupported or promised or echoed), tuple(dict.fromkeys(unsupported)), promised, echoed
        )
