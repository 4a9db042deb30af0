"""Offline replay: the period's real questions, answered again by a candidate configuration.

Before any customer meets a new model, the shop sees how it would have answered
their own customers' questions: each FAQ-style question of the period with the
customer's facts and conversation as they stood then, answered through the
candidate's gateway (its rate limits apply) with bounded concurrency. Nothing is
sent to anyone. Each result is stored as soon as it is done, so an interrupted
replay resumes where it stopped; the question list is fixed when a run starts.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from datetime import datetime, tzinfo
from difflib import SequenceMatcher
from typing import Any

from pydantic import SecretStr
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import InboundMessage, LLMReply, ReplayItem, ReplayRun
from db.repositories import customers, logs
from db.repositories import replay as replay_repository
from db.types import utcnow
from services.admin.figures import dont_know, streamed_dont_know
from services.faq.lookup import FaqLookupAnswerer
from services.faq.replies import answer_request, customer_facts, recent_turns
from services.llm.arms import ArmAnswerer
from services.llm.config import LLMRoles
from services.llm.gateway import LLMGateway
from services.llm.reply import ReplyMode
from services.llm.speculative import ReplyReport
from services.rollout.arm_stats import AnswerSample, ArmStats, summarize
from services.shop.sources.base import ShopData
from services.text.normalize import detect_language
from services.text.sentences import Language

MOST_DIFFERENT = 10
GUARD_REASONS = 10
"""The most frequent reasons listed per side."""
ORIGINAL, CANDIDATE = "original", "candidate"

ShopSource = Callable[[AsyncSession], ShopData]
Progress = Callable[[int, int], None]


def config_hash(roles: LLMRoles) -> str:
    """Identifies a candidate configuration for resuming (keys count, but only their hash is kept)."""

    def reveal(value: object) -> str:
        return value.get_secret_value() if isinstance(value, SecretStr) else str(value)

    return hashlib.sha256(json.dumps(roles.model_dump(), sort_keys=True, default=reveal).encode()).hexdigest()


@dataclass
class Answer:
    """One side of a comparison: the text and how it was made."""

    text: str
    mode: str = "none"
    acceptance: float | None = None
    relevance: str | None = None
    """confirmed / rejected when the target judged whether the FAQ text answers the question."""
    guard: str | None = None
    fallback: str | None = None
    ttft_ms: float | None = None
    total_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    dont_know: bool = False

    @classmethod
    def of_report(cls, text: str, report: ReplyReport) -> Answer:
        ledger = report.ledger
        return cls(
            text=text,
            mode=report.mode.label,
            acceptance=report.acceptance_rate,
            relevance=_relevance(report.mode.label),
            guard=report.guard,
            fallback=report.fallback_reason,
            ttft_ms=report.ttft_ms,
            total_ms=report.total_ms,
            prompt_tokens=ledger.prompt_tokens,
            completion_tokens=ledger.completion_tokens,
            cost_usd=ledger.cost_usd,
            dont_know=streamed_dont_know(text, report),
        )

    @classmethod
    def of_log(cls, text: str, reply: LLMReply, recorded: bool | None = None) -> Answer:
        """`recorded`: the message's `dont_know`, as the answering path recorded it."""
        return cls(
            text=text,
            mode=reply.mode,
            acceptance=reply.accepted_tokens / reply.draft_tokens if reply.draft_tokens else None,
            relevance=_relevance(reply.mode),
            guard=reply.guard,
            fallback=reply.fallback_reason,
            ttft_ms=reply.ttft_ms,
            total_ms=reply.total_ms,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            cost_usd=reply.cost_usd,
            dont_know=dont_know(recorded, text),
        )

    def sample(self, arm: str, draft_tokens: int = 0, accepted_tokens: int = 0) -> AnswerSample:
        return AnswerSample(
            arm=arm,
            draft_tokens=draft_tokens,
            accepted_tokens=accepted_tokens,
            ttft_ms=self.ttft_ms,
            total_ms=self.total_ms,
            cost_usd=self.cost_usd,
            guard=bool(self.guard),
            fallback=bool(self.fallback),
            dont_know=self.dont_know,
        )


def _relevance(label: str) -> str | None:
    mode = ReplyMode.from_label(label)
    if mode.faq_rejected:
        return "rejected"
    return "confirmed" if mode.faq_confirmed else None


@dataclass
class Comparison:
    inbound_id: int
    asked_at: str
    question: str
    language: Language
    original: Answer
    candidate: Answer
    original_arm: str | None = None
    difference: float = 0.0
    """0 for the same answer; higher the more they differ (text, guard, "I don't know")."""
    drafted: dict[str, list[int]] = field(default_factory=dict)
    """(draft, accepted) tokens per side, for the totals' acceptance."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Comparison:
        return cls(
            **{
                **data,
                ORIGINAL: Answer(**data[ORIGINAL]),
                CANDIDATE: Answer(**data[CANDIDATE]),
            }
        )


def difference(original: Answer, candidate: Answer) -> float:
    text = 1.0 - SequenceMatcher(None, original.text, candidate.text).ratio()
    return round(
        text
        + 0.5 * (bool(original.guard) != bool(candidate.guard))
        + 0.5 * (original.dont_know != candidate.dont_know),
        4,
    )


@dataclass
class Report:
    run_id: int
    since: str
    questions: int
    comparisons: list[Comparison]
    totals: dict[str, ArmStats]

    @property
    def most_different(self) -> list[Comparison]:
        ranked = sorted(self.comparisons, key=lambda c: c.difference, reverse=True)
        return [c for c in ranked[:MOST_DIFFERENT] if c.difference > 0]

    @property
    def identical(self) -> int:
        """Questions both sides answered with the same words."""
        return sum(1 for c in self.comparisons if _same_words(c.original.text, c.candidate.text))

    def guard_reasons(self, side: str) -> list[tuple[str, int]]:
        """Why the fact guard refused a side's answers, most frequent first."""
        reasons = Counter(getattr(c, side).guard for c in self.comparisons if getattr(c, side).guard)
        return reasons.most_common()

    def tokens(self, side: str) -> tuple[int, int]:
        answers = [getattr(c, side) for c in self.comparisons]
        return sum(a.prompt_tokens for a in answers), sum(a.completion_tokens for a in answers)

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "since": self.since,
            "questions": self.questions,
            "answered": len(self.comparisons),
            "identical": self.identical,
            "guard_reasons": {side: dict(self.guard_reasons(side)) for side in (ORIGINAL, CANDIDATE)},
            "totals": {
                side: {
                    **stats.as_dict(),
                    "prompt_tokens": self.tokens(side)[0],
                    "completion_tokens": self.tokens(side)[1],
                }
                for side, stats in self.totals.items()
            },
            "most_different": [c.inbound_id for c in self.most_different],
            "comparisons": [asdict(c) for c in self.comparisons],
        }

    def render(self) -> str:
        original, candidate = self.totals[ORIGINAL], self.totals[CANDIDATE]
        rows = [
            ("answers", str(original.answers), str(candidate.answers)),
            ("draft acceptance", _pct(original.acceptance_rate), _pct(candidate.acceptance_rate)),
            *(
                (
                    label,
                    f"{getattr(original, count)} ({_pct(getattr(original, rate))})",
                    f"{getattr(candidate, count)} ({_pct(getattr(candidate, rate))})",
                )
                for label, count, rate in (
                    ("guard rejections", "guard_rejections", "guard_rejection_rate"),
                    ("fallbacks", "fallbacks", "error_rate"),
                    ('"I don\'t know"', "dont_knows", "dont_know_rate"),
                )
            ),
            ("latency p50", _ms(original.total_p50_ms), _ms(candidate.total_p50_ms)),
            ("latency p95", _ms(original.total_p95_ms), _ms(candidate.total_p95_ms)),
            ("first text p50", _ms(original.ttft_p50_ms), _ms(candidate.ttft_p50_ms)),
            ("first text p95", _ms(original.ttft_p95_ms), _ms(candidate.ttft_p95_ms)),
            ("cost per answer", _usd(original.cost_per_answer_usd), _usd(candidate.cost_per_answer_usd)),
            ("tokens in/out", _pair(self.tokens(ORIGINAL)), _pair(self.tokens(CANDIDATE))),
        ]
        lines = [
            f"Replay #{self.run_id}: {len(self.comparisons)} of {self.questions} questions "
            f"since {self.since}",
            f"{'':22}{'original':>18}{'candidate':>18}",
            *(f"{label:22}{left:>18}{right:>18}" for label, left, right in rows),
        ]
        lines.append(f"Same words as the original: {self.identical} of {len(self.comparisons)} answers")
        for side in (ORIGINAL, CANDIDATE):
            reasons = self.guard_reasons(side)
            if reasons:
                lines.append(f"Fact guard refused the {side}'s answers ({sum(n for _, n in reasons)}):")
                lines.extend(f"  {count} x {_clip(reason)}" for reason, count in reasons[:GUARD_REASONS])
        different = self.most_different
        if different:
            lines.append(f"Most different ({len(different)}):")
            for c in different:
                lines.append(f"#{c.inbound_id} ({c.difference:.2f}) {_clip(c.question)}")
                lines.append(f"  original:  {_flags(c.original)}{_clip(c.original.text)}")
                lines.append(f"  candidate: {_flags(c.candidate)}{_clip(c.candidate.text)}")
        return "\n".join(lines)


def _pair(tokens: tuple[int, int]) -> str:
    return f"{tokens[0]}/{tokens[1]}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def _usd(value: float | None) -> str:
    return "-" if value is None else f"${value:.5f}"


def _clip(text: str, limit: int = 140) -> str:
    flat = " ".join(text.split()) or "(nothing)"
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _same_words(left: str, right: str) -> bool:
    return " ".join(left.split()) == " ".join(right.split())


def _flags(answer: Answer) -> str:
    flags = [f"GUARD: {_clip(answer.guard, 60)}"] if answer.guard else []
    flags += ["FALLBACK"] if answer.fallback else []
    if answer.dont_know:
        flags.append("DON'T-KNOW")
    return f"[{' '.join(flags)}] " if flags else ""


class Replayer:
    """Answers a run's questions with the candidate; stores each comparison as it completes."""

    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        candidate: LLMRoles,
        lookup: FaqLookupAnswerer,
        shop: ShopSource,
        *,
        zone: tzinfo,
        temperature: float = 0.0,
        concurrency: int = 4,
        exclude_users: Collection[int] = (),
    ) -> None:
        self._zone = zone
        self._session_factory = session_factory
        self._candidate = candidate
        self._lookup = lookup
        self._shop = shop
        self._gateway = LLMGateway(candidate) if candidate.target else None
        self._answerer = ArmAnswerer(
            "candidate",
            lookup,
            self._gateway,
            temperature=temperature,
            retrieval_check=candidate.retrieval_check,
        )
        self._limit = asyncio.Semaphore(concurrency)
        self._exclude = list(exclude_users)

    async def close(self) -> None:
        await self._answerer.settled()
        if self._gateway is not None:
            await self._gateway.close()

    async def open_run(
        self, since: datetime, limit: int | None, *, restart: bool
    ) -> tuple[ReplayRun, set[int]]:
        """The unfinished run of this candidate (resumed), or a new one with the period's questions."""
        digest = config_hash(self._candidate)
        async with self._session_factory() as session:
            if not restart:
                run = await replay_repository.unfinished_run(session, config_hash=digest)
                if run is not None:
                    return run, await replay_repository.replayed_questions(session, run_id=run.id)
            run = ReplayRun(
                config_hash=digest, since=since, question_ids=await self._questions(session, since, limit)
            )
            session.add(run)
            await session.commit()
            await session.refresh(run)
            return run, set()

    async def _questions(self, session: AsyncSession, since: datetime, limit: int | None) -> list[int]:
        """Customers' questions the answer service answered (retrieval or model), oldest first."""
        return await replay_repository.answered_questions(
            session, since=since, exclude_users=self._exclude, limit=limit
        )

    async def run(self, run: ReplayRun, done: set[int], progress: Progress | None = None) -> Report:
        assert run.id is not None
        todo = [inbound_id for inbound_id in run.question_ids if inbound_id not in done]
        total, finished = len(run.question_ids), len(run.question_ids) - len(todo)
        if progress is not None:
            progress(finished, total)

        async def one(inbound_id: int) -> None:
            nonlocal finished
            async with self._limit:  # storing too: else the next question starts meanwhile, and an
                # interruption reported after this one is stored would cut that one off mid-call
                comparison = await self._compare(inbound_id)
                if comparison is not None:
                    await self._store(run.id or 0, comparison)
            finished += 1
            if progress is not None:
                progress(finished, total)

        tasks = [asyncio.create_task(one(inbound_id)) for inbound_id in todo]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            # An interruption stops the questions still waiting too (gather alone leaves them
            # running): what is stored is exactly what a resumed run skips.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        async with self._session_factory() as session:
            stored = await session.get(ReplayRun, run.id)
            if stored is not None:
                stored.finished_at = utcnow()
                session.add(stored)
                await session.commit()
        return await self.report(run)

    async def _compare(self, inbound_id: int) -> Comparison | None:
        async with self._session_factory() as session:
            row = await session.get(InboundMessage, inbound_id)
            reply = await replay_repository.llm_reply_to(session, inbound_id=inbound_id)
            if row is None or reply is None:
                return None
            sent = await logs.sent_text(session, inbound_id=inbound_id, chat_id=row.chat_id)
            user_id = row.telegram_user_id
            customer = await customers.by_telegram_user(session, user_id) if user_id is not None else None
            facts = await customer_facts(
                session, customer, self._shop(session), zone=self._zone, as_of=row.created_at
            )
            history = await recent_turns(session, user_id, until=row.created_at)
        language = detect_language(row.text)
        found = await self._lookup.answer(row.text, language=language)
        request = answer_request(row.text, language, found, self._lookup, facts=facts, history=history)
        answer = self._answerer.stream(request)
        async for _ in answer:
            pass
        original = Answer.of_log(sent, reply, row.dont_know)
        candidate = Answer.of_report(answer.final_text, answer.report)
        return Comparison(
            inbound_id=inbound_id,
            asked_at=row.created_at.isoformat(),
            question=row.text,
            language=language,
            original=original,
            candidate=candidate,
            original_arm=reply.arm,
            difference=difference(original, candidate),
            drafted={
                ORIGINAL: [reply.draft_tokens, reply.accepted_tokens],
                CANDIDATE: [answer.report.draft_tokens, answer.report.accepted_tokens],
            },
        )

    async def _store(self, run_id: int, comparison: Comparison) -> None:
        async with self._session_factory() as session:
            session.add(
                ReplayItem(run_id=run_id, inbound_id=comparison.inbound_id, result=asdict(comparison))
            )
            try:
                await session.commit()
            except IntegrityError:  # stored by an earlier, interrupted attempt at this very moment
                await session.rollback()

    async def report(self, run: ReplayRun) -> Report:
        async with self._session_factory() as session:
            items = await replay_repository.run_items(session, run_id=run.id)
        comparisons = sorted(
            (Comparison.from_dict(item.result) for item in items), key=lambda c: c.inbound_id
        )
        totals = {
            side: summarize(
                side,
                [getattr(c, side).sample(side, *c.drafted.get(side, [0, 0])) for c in comparisons],
            )
            for side in (ORIGINAL, CANDIDATE)
        }
        return Report(run.id or 0, run.since.isoformat(), len(run.question_ids), comparisons, totals)
