"""FAQ-style answers, drafted cheaply and verified by the strong model before anyone sees them.

Drafters, cheapest first: the shop's own FAQ text (retrieval), then the drafter
model (`DrafterPolicy` says when it is worth a try). The target verifies in the
strongest mode its endpoint supports (`TokenModeProbe`):
- token mode (`TokenVerifier`): one call scores a block of draft tokens; the
  output is what the target alone would have produced;
- judge mode (`JudgeVerifier`, chat-only APIs): the target judges the draft
  sentence by sentence, in parallel as the draft arrives; at the first
  rejected sentence it writes the rest itself.
Every released sentence passes the fact guard first. With no target
configured the FAQ text is the answer: the shop's own words need no model.

The retrieval draft is checked differently by default (`retrieval_check`):
`RelevanceCheck` asks one YES/NO question; a NO hands over to the model
drafter or the target as if there had been no FAQ entry, and that entry is
then never shown, not even as the fallback. With `shop_text` the model never
writes: with no confirmed entry, the closest entries (`AnswerRequest.candidates`)
are put to it one by one and the first it confirms is sent as written; with
none, the bot says it does not know. Nothing a customer types can then make
a reply promise anything the FAQ does not say in its own words. Every reply runs within
`reply_deadline` (see `VerifiedAnswer`).

This module only puts the parts together; prompts live in `prompts`, the
verdicts in `verdicts`, the verifiers in `token_verifier` and
`judge_verifier`, the reply's data in `reply`.
"""

from __future__ import annotations

import dataclasses
import logging
import random
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Protocol

from services.faq.lookup import FaqAnswer, FaqLookupAnswerer
from services.llm import deadline as deadlines
from services.llm.config import REPLY_DEADLINE_SECONDS, LLMRole, RetrievalCheck
from services.llm.drafting import DRAFTER_PROBE_EVERY, DrafterPolicy
from services.llm.fact_guard import FactGuard, customer_texts
from services.llm.gateway import DeadlineExceeded, LLMUnavailable, Message
from services.llm.judge_verifier import JudgeVerifier
from services.llm.model_api import ModelAPI
from services.llm.prompts import INSTRUCTIONS, SYSTEM_PROMPT, PromptBuilder
from services.llm.reply import (
    AnswerRequest,
    GuardRejected,
    NoAnswer,
    ReplyMode,
    ReplyReport,
    Step,
    VerifiedAnswer,
    is_no_answer,
    split_sentences,
)
from services.llm.steering import steering
from services.llm.summaries import TurnSummarizer
from services.llm.token_verifier import TokenModeProbe, TokenVerifier
from services.llm.tokens import ContextOverflow
from services.llm.verdicts import RelevanceCheck, Verdicts
from services.llm.yes_or_no import only_yes_or_no
from services.text.sentences import Language

__all__ = [
    "DRAFTER_PROBE_EVERY",
    "SYSTEM_PROMPT",
    "AnswerRequest",
    "FaqReplies",
    "ReplyMode",
    "ReplyReport",
    "SpeculativeAnswerer",
    "Step",
    "VerifiedAnswer",
    "split_sentences",
]

logger = logging.getLogger(__name__)


class FaqReplies(Protocol):
    """What callers use of the answerer: the FAQ lookup, whether a model writes, and a reply's stream."""

    @property
    def lookup(self) -> FaqLookupAnswerer: ...

    @property
    def generates(self) -> bool: ...

    def stream(self, request: AnswerRequest) -> VerifiedAnswer: ...


class SpeculativeAnswerer:
    def __init__(
        self,
        lookup: FaqLookupAnswerer,
        gateway: ModelAPI | None = None,
        *,
        temperature: float = 0.0,
        reply_budget: int = 400,
        block_tokens: int = 192,
        rng: random.Random | None = None,
        retrieval_check: RetrievalCheck = "relevance",
        reply_deadline: float = REPLY_DEADLINE_SECONDS,
        token_probe: TokenModeProbe | None = None,
    ) -> None:
        self._lookup = lookup
        self._retrieval_check = retrieval_check
        self._model = gateway if gateway is not None and gateway.has(LLMRole.TARGET) else None
        self._temperature = temperature
        self._reply_budget = reply_budget
        self._reply_deadline = reply_deadline
        self._drafters = DrafterPolicy()
        self._token_probe = token_probe or TokenModeProbe()
        self._summarizer: TurnSummarizer | None = None
        if self._model is None:
            return
        model = self._model
        if model.has(LLMRole.DRAFTER):
            self._summarizer = TurnSummarizer(model)
        self._prompts = PromptBuilder(model, reply_budget=reply_budget, summarizer=self._summarizer)
        verdicts = Verdicts(model)
        count = self._prompts.counter().count
        self._relevance = RelevanceCheck(verdicts, count)
        self._token_verifier = TokenVerifier(
            model,
            temperature=temperature,
            reply_budget=reply_budget,
            block_tokens=block_tokens,
            rng=rng or random.Random(),
        )
        self._judge_verifier = JudgeVerifier(verdicts, count, self._target_writes)

    @property
    def lookup(self) -> FaqLookupAnswerer:
        return self._lookup

    @property
    def generates(self) -> bool:
        """True when a target model is configured (otherwise answers are the FAQ text)."""
        return self._model is not None

    async def answer(
        self, question: str, *, language: Language, tags: Sequence[str] = ()
    ) -> FaqAnswer | None:
        """The whole verified text at once, as the lookup answers (`FaqLookupAnswerer.answer`)."""
        found = await self._lookup.answer(question, language=language, tags=tags)
        answer = self.stream(AnswerRequest(question, language, found, found.text if found else ""))
        async for _ in answer:
            pass
        if not answer.final_text:
            return None
        return FaqAnswer(
            answer.final_text, found.slug if found else "generated", found.score if found else 0.0
        )

    def stream(self, request: AnswerRequest) -> VerifiedAnswer:
        return VerifiedAnswer(
            lambda answer: self._produce(answer, request),
            deadline=self._reply_deadline if self._model is not None else None,
        )

    async def settled(self) -> None:
        """Wait for background work (notes on dropped turns) to finish."""
        if self._summarizer is not None:
            await self._summarizer.settled()

    async def _messages(self, request: AnswerRequest, report: ReplyReport) -> list[Message]:
        """The answer prompt trimmed to the window, without a note on dropped turns (bench, tests)."""
        return await self._prompts.trimmed(request, report)

    async def answer_messages(self, request: AnswerRequest, report: ReplyReport) -> list[Message]:
        """The answer prompt as the target reads it (tests compare with the target writing alone)."""
        return await self._prompts.answer_messages(request, report)

    async def _produce(self, answer: VerifiedAnswer, request: AnswerRequest) -> AsyncGenerator[str, None]:
        report = answer.report
        retrieval = request.faq.text if request.faq else None
        if self._model is None:
            if retrieval:
                report.mode.step, report.drafter = Step.RETRIEVAL, "retrieval"
                answer.confirmed_faq = retrieval
                for sentence in split_sentences(retrieval):
                    yield sentence
            return
        guard = _Guard(request)
        try:
            async for text in _guarded(self._generate(answer, request, guard), guard, answer):
                yield text
        except NoAnswer:
            # Its own words would be in no particular language: the bot says it, and offers a person.
            report.no_answer = True
            answer.replacement = ""
        except GuardRejected as rejected:
            report.guard = str(rejected)
            answer.replacement = _fallback_text(answer, retrieval)
        except DeadlineExceeded:
            # The gateway gave up at the reply's deadline, a moment before the reply's own timer: the
            # same ending as that timer's, whichever comes first.
            deadline = deadlines.current()
            assert deadline is not None, "only a reply's deadline ends a gateway wait this way"
            answer.out_of_time(deadline)
        except (LLMUnavailable, ContextOverflow) as error:
            # Never silence: the shop's FAQ answer unless the target rejected it, else (empty) a person.
            report.fallback_reason = str(error)[:500]
            report.mode.fell_back = True
            answer.replacement = _fallback_text(answer, retrieval)

    async def _generate(
        self, answer: VerifiedAnswer, request: AnswerRequest, guard: _Guard
    ) -> AsyncIterator[str]:
        assert self._model is not None
        model, report = self._model, answer.report
        retrieval = request.faq.text if request.faq else None
        check = self._retrieval_check
        steered = steering([*_customer_said(request), *customer_texts(request.facts)])
        if steered and check != "shop_text":
            # Customer text is data: told what to say or be, the bot says only the shop's words.
            report.guard = f"the customer's text steers the bot ({steered[:40]!r}): shop text only"
            check = "shop_text"
        if retrieval and check in ("relevance", "shop_text"):
            report.drafter = "retrieval"
            if await self._relevance.confirms(request, retrieval, report):
                async for sentence in _as_written(answer, retrieval):
                    yield sentence
                return
            # A NO means gone: the entry leaves every later prompt and the guard's sources.
            report.mode.faq_rejected, retrieval = True, None
            request = without_entry(request)
            guard.reset(request)
        if check == "shop_text":
            # The model never writes: one of the closest entries it confirms, as written, or nothing.
            unseen = [text for text in request.candidates if text not in request.faq_context]
            if unseen:  # the shop's own text, and the guard's sources with it
                request = dataclasses.replace(
                    request, faq_context="\n\n".join([request.faq_context, *unseen]).strip()
                )
                guard.reset(request)
            for candidate in request.candidates:
                report.drafter = "retrieval"
                if await self._relevance.confirms(request, candidate, report):
                    async for sentence in _as_written(answer, candidate):
                        yield sentence
                    return
            raise NoAnswer
        messages = await self._prompts.answer_messages(request, report)
        token_mode = await self._token_probe.supported(model)
        drafted_before = report.draft_tokens  # a rejected entry's, drafted and none accepted
        draft: AsyncIterator[str] | None = None
        if retrieval:
            report.drafter = "retrieval"
            draft = _iterate(split_sentences(retrieval))
        elif model.has(LLMRole.DRAFTER) and self._drafters.worth_trying():
            report.drafter = "model"
            draft = model.stream_chat(
                LLMRole.DRAFTER,
                messages,
                ledger=report.ledger,
                max_tokens=self._reply_budget,
                temperature=0.0,
            )
        if draft is None:
            report.mode.step = Step.TARGET
            async for delta in self._target_writes(messages, report):
                yield delta
            return
        if token_mode:
            report.mode.step = Step.TOKEN
            try:
                text = "".join([piece async for piece in draft])
            except LLMUnavailable as error:
                logger.warning("the drafter failed; the target writes alone: %s", error)
                text = ""
            verified = (
                self._token_verifier.verify(messages, text, report)
                if text
                else self._target_writes(messages, report)
            )
        else:
            report.mode.step = Step.JUDGE
            verified = self._judge_verifier.verify(messages, request, draft, report)
        released = False
        try:
            async for delta in verified:
                released = True
                yield delta
        except LLMUnavailable as error:
            if released or report.mode.step is not Step.TOKEN:
                raise
            # Token ids go to the primary's vocabulary only; its chat fallback (another model
            # included) can still write the whole reply, guarded like any.
            logger.warning("token mode unavailable before any text; the target writes: %s", error)
            report.mode.step = Step.TARGET
            async for delta in self._target_writes(messages, report):
                yield delta
        if report.drafter == "model":
            self._drafters.record(report.draft_tokens - drafted_before, report.accepted_tokens)

    def _target_writes(self, messages: list[Message], report: ReplyReport) -> AsyncIterator[str]:
        """The target answering by itself (no draft, or the rest after a rejected block)."""
        assert self._model is not None
        return self._model.stream_chat(
            LLMRole.TARGET,
            messages,
            ledger=report.ledger,
            max_tokens=self._reply_budget,
            temperature=self._temperature,
        )


async def _as_written(answer: VerifiedAnswer, text: str) -> AsyncIterator[str]:
    """The shop's FAQ text the target confirmed, released as written."""
    answer.report.mode.step = Step.RELEVANCE
    answer.confirmed_faq = text
    for sentence in split_sentences(text):
        yield sentence


def without_entry(request: AnswerRequest) -> AnswerRequest:
    """The request once the target said its FAQ entry does not answer: neither the entry nor its
    text is anywhere in it (the fallback, the prompts of the target, drafter and judge)."""
    if request.faq is None:
        return request
    context = request.faq_context.replace(request.faq.text, "").strip()
    candidates = tuple(text for text in request.candidates if text != request.faq.text)
    return dataclasses.replace(request, faq=None, faq_context=context, candidates=candidates)


class _Guard:
    """The fact guard of one reply, built from the sources the model may still draw on."""

    def __init__(self, request: AnswerRequest) -> None:
        self.reset(request)

    def reset(self, request: AnswerRequest) -> None:
        self.guard = FactGuard.for_sources(
            facts=request.facts,
            faq_text=request.faq_context,
            instructions=INSTRUCTIONS,
            said=_customer_said(request),
        )


def _customer_said(request: AnswerRequest) -> list[str]:
    """The customer's messages the model sees: this one and their earlier turns."""
    return [request.question, *(turn["content"] for turn in request.history if turn["role"] == "user")]


def _fallback_text(answer: VerifiedAnswer, retrieval: str | None) -> str:
    """What the customer gets when production fails: FAQ text, unless the target rejected it."""
    if answer.report.mode.faq_rejected:
        return ""
    return retrieval or ""


async def _guarded(texts: AsyncIterator[str], sources: _Guard, answer: VerifiedAnswer) -> AsyncIterator[str]:
    """Release text sentence by sentence, each read for the model's no-answer signal and checked
    by the fact guard first (so neither the signal nor an unsupported claim is ever shown), against
    the text already released. A sentence the guard refuses for a claim waits for the next and is
    checked again with it, once: "No shipping fee! Two teapots come to 50,000원, which qualifies"
    gives its reason after it; one refused for what nothing after it can make true (the prompt told
    back, another customer's data) ends the reply there. The shop's FAQ text the target confirmed
    (`_as_written`) is the shop's own words, released unread: the guard reads what a model writes."""
    pending, released, held, doubted = "", "", "", ""
    doubt: GuardRejected | None = None
    async for text in texts:
        pending += text
        *complete, pending = split_sentences(pending) or [""]
        for sentence in complete:
            if only_yes_or_no(sentence):
                held += sentence  # checked with the sentence saying what it agrees to
                continue
            if answer.confirmed_faq is None:
                try:
                    _check(held + sentence, released, sources, doubted=doubted)
                except GuardRejected as rejected:
                    if doubt is not None:
                        raise doubt from rejected
                    if rejected.settled:
                        raise
                    doubted, doubt, held = held + sentence, rejected, ""
                    continue
            said, released = doubted + held + sentence, released + doubted + held + sentence
            doubted, doubt, held = "", None, ""
            yield said
    if pending or held or doubted:
        if answer.confirmed_faq is None:
            try:
                _check(held + pending, released, sources, doubted=doubted)
            except GuardRejected as rejected:
                if doubt is None:
                    raise
                raise doubt from rejected
        yield doubted + held + pending


def _check(sentence: str, previous: str, sources: _Guard, *, doubted: str = "") -> None:
    """`sentence` read for the no-answer signal, then checked by the guard after the text released
    (`previous`) together with the sentence before it the guard refused (`doubted`): a no-answer
    after a refused sentence leaves that sentence refused."""
    if is_no_answer(sentence):
        if doubted:
            raise GuardRejected("said, then no answer")
        raise NoAnswer
    verdict = sources.guard.check(doubted + sentence, before=previous)
    if not verdict.ok:
        raise GuardRejected(verdict.reason, settled=verdict.settled)


async def _iterate(items: Sequence[str]) -> AsyncIterator[str]:
    for item in items:
        yield item
