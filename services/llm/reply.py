"""One reply as the answerer produces it: the request, the report, and the text as it is released.

`VerifiedAnswer` also owns the reply's time budget: every step of production
runs within the reply's `Deadline`, and when it runs out the customer gets the
honest fallback - the FAQ text only if the target confirmed that it answers,
otherwise nothing (the caller then says it does not know and offers a person).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from services.faq.lookup import FaqAnswer
from services.llm.deadline import Deadline, within
from services.llm.gateway import CallLedger, Message
from services.text.patterns import NOT_BEFORE_ITS_DAY
from services.text.sentences import Language

logger = logging.getLogger(__name__)

_SENTENCE_END = re.compile(rf"(?<=[.!?]){NOT_BEFORE_ITS_DAY}\s+(?=[^a-z0-9])|(?<=[。！？])\s*|\n+")
"""A stop followed by a lower-case word ("2 p.m. on a weekday") is an abbreviation, not an end."""


def split_sentences(text: str) -> list[str]:
    """Sentences with their trailing space kept, so joining them gives the text back."""
    parts, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if match.end() > start:
            parts.append(text[start : match.end()])
            start = match.end()
    if start < len(text):
        parts.append(text[start:])
    return parts


NO_ANSWER = "NO_ANSWER"
"""What the answer prompt tells the model to reply, alone, when its sources lack the answer: a
signal in no language, so the bot words its own "I don't know" in the customer's and records it
as one (services.admin.figures)."""
_NO_ANSWER = re.compile(rf"\b{NO_ANSWER}\b")


def is_no_answer(text: str) -> bool:
    """The model's no-answer signal anywhere in `text` (a model may wrap it in an apology)."""
    return _NO_ANSWER.search(text) is not None


@dataclass(frozen=True)
class AnswerRequest:
    question: str
    language: Language
    faq: FaqAnswer | None
    """The best FAQ entry: the retrieval draft."""
    faq_context: str
    """FAQ text the model may draw on."""
    facts: str = ""
    """This customer's own database facts, and nobody else's."""
    history: Sequence[Message] = ()
    candidates: Sequence[str] = ()
    """With no entry answered outright: the closest entries' answers, closest first (`faq_context`
    holds them with their questions). In `shop_text` mode the target may only confirm one of them."""


class Step(StrEnum):
    """How the released text was produced."""

    NONE = "none"
    RETRIEVAL = "retrieval"
    """No target configured: the shop's FAQ text as written."""
    RELEVANCE = "relevance"
    """The target confirmed that the FAQ text answers: sent as written."""
    TOKEN = "token"
    JUDGE = "judge"
    TARGET = "target"
    """The target wrote alone."""


GENERATING_STEPS = frozenset({Step.TOKEN, Step.JUDGE, Step.TARGET})
AS_WRITTEN_STEPS = frozenset({Step.RETRIEVAL, Step.RELEVANCE})


@dataclass
class ReplyMode:
    """What happened to a reply, as data (logs and the database store its `label`)."""

    step: Step = Step.NONE
    faq_rejected: bool = False
    """The target said the FAQ entry does not answer this question: it must never be shown."""
    fell_back: bool = False
    """A failure, or the deadline, ended production: the customer got the fallback."""

    @property
    def as_written(self) -> bool:
        """The shop's FAQ text sent as written: it is released whole, all at once."""
        return self.step in AS_WRITTEN_STEPS

    @property
    def generated(self) -> bool:
        """A model wrote (part of) the text, as opposed to the shop's FAQ text sent as written."""
        return self.step in GENERATING_STEPS

    @property
    def label(self) -> str:
        """The stored form, e.g. "relevance>token+fallback" (the `llm_replies.mode` column)."""
        text = f"relevance>{self.step}" if self.faq_rejected else str(self.step)
        return text + ("+fallback" if self.fell_back else "")

    @classmethod
    def from_label(cls, label: str) -> ReplyMode:
        """The mode a stored `label` was written from (the one inverse of `label`)."""
        rest, fell_back = (
            (label[: -len("+fallback")], True) if label.endswith("+fallback") else (label, False)
        )
        prefix = f"{Step.RELEVANCE}>"
        rest, rejected = (rest[len(prefix) :], True) if rest.startswith(prefix) else (rest, False)
        return cls(Step(rest), faq_rejected=rejected, fell_back=fell_back)

    @property
    def faq_checked(self) -> bool:
        """The target was asked whether the matched FAQ text answers the question."""
        return self.faq_rejected or self.step is Step.RELEVANCE

    @property
    def faq_confirmed(self) -> bool:
        """The target said it does, and the text went out as written."""
        return self.step is Step.RELEVANCE and not self.faq_rejected and not self.fell_back

    def __str__(self) -> str:
        return self.label


@dataclass
class ReplyReport:
    mode: ReplyMode = field(default_factory=ReplyMode)
    drafter: str = "none"
    draft_tokens: int = 0
    accepted_tokens: int = 0
    verify_calls: int = 0
    ttft_ms: float | None = None
    total_ms: float = 0.0
    dropped_turns: int = 0
    guard: str | None = None
    fallback_reason: str | None = None
    no_answer: bool = False
    """The model said its sources lack the answer (`NO_ANSWER`): the customer is told so and offered
    a person, in their language."""
    ledger: CallLedger = field(default_factory=CallLedger)
    arm: str | None = None
    """The configuration (canary arm) that made the reply, for per-arm comparisons."""

    @property
    def acceptance_rate(self) -> float | None:
        return self.accepted_tokens / self.draft_tokens if self.draft_tokens else None

    @property
    def generated(self) -> bool:
        return self.mode.generated


class GuardRejected(Exception):
    """The fact guard refused what the model wrote; `settled`: for what nothing said after it can
    make true (`GuardVerdict.settled`)."""

    def __init__(self, reason: str, *, settled: bool = True) -> None:
        super().__init__(reason)
        self.settled = settled


class NoAnswer(Exception):
    """The model signalled that its sources lack the answer."""


class VerifiedAnswer:
    """Verified text as it is produced; `final_text` and `report` are complete after iteration.

    `replacement` is set when what was streamed must not stand (the fact guard
    refused a sentence, every endpoint failed, or time ran out): the caller
    commits it instead ('' means: say so and offer a person).
    """

    def __init__(
        self,
        produce: Callable[[VerifiedAnswer], AsyncIterator[str]],
        *,
        deadline: float | None = None,
    ) -> None:
        self.report = ReplyReport()
        self.shown = ""
        self.replacement: str | None = None
        self.confirmed_faq: str | None = None
        """FAQ text the target confirmed (or that needs no confirmation): the one fallback text."""
        self._produce = produce
        self._deadline_seconds = deadline

    @property
    def final_text(self) -> str:
        return self.replacement if self.replacement is not None else self.shown

    async def __aiter__(self) -> AsyncIterator[str]:
        started = time.perf_counter()
        deadline = Deadline(self._deadline_seconds) if self._deadline_seconds is not None else None
        chunks = aiter(self._produce(self))
        try:
            while True:
                try:
                    # The budget bounds each step, not the caller's work between steps (a Telegram
                    # send); the gateway also reads it to cap its own waits.
                    with within(deadline):
                        async with asyncio.timeout(deadline.remaining() if deadline else None):
                            chunk = await chunks.__anext__()
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    assert deadline is not None
                    self.out_of_time(deadline)
                    break
                if not chunk:
                    continue
                if self.report.ttft_ms is None:
                    self.report.ttft_ms = (time.perf_counter() - started) * 1000
                self.shown += chunk
                yield chunk
        finally:
            if isinstance(chunks, AsyncGenerator):  # finish it here, not whenever it is collected
                await chunks.aclose()
            self.report.total_ms = (time.perf_counter() - started) * 1000

    def out_of_time(self, deadline: Deadline) -> None:
        """The reply's deadline passed, here or in the gateway waiting on its behalf: the confirmed FAQ
        text if a verdict vouched for it, else an offer of a person."""
        report = self.report
        report.mode.fell_back = True
        report.fallback_reason = f"reply deadline of {deadline.seconds:g} s passed"
        self.replacement = self.confirmed_faq or ""
        logger.warning(
            "reply deadline passed: the customer gets %s",
            "the confirmed FAQ text" if self.replacement else "an offer of a person",
            extra={"deadline_s": deadline.seconds, "mode": report.mode.label, "shown_chars": len(self.shown)},
        )
