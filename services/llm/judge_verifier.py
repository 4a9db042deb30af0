"""Judge mode (chat-only APIs): the target judges the draft block by block, in parallel as it arrives.

Agreed blocks are released in order; at the first rejected block (or when the
drafter fails) the target writes the rest itself, and whatever it repeats of
the released text is cut (`overlap.without_repeats`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable

from services.llm.gateway import CONTINUE_INSTRUCTION, LLMUnavailable, Message
from services.llm.overlap import without_repeats
from services.llm.prompts import judge_messages
from services.llm.reply import AnswerRequest, ReplyReport, split_sentences
from services.llm.verdicts import TokenCount, Verdicts

logger = logging.getLogger(__name__)

TargetWrites = Callable[[list[Message], ReplyReport], AsyncIterator[str]]


class JudgeVerifier:
    def __init__(self, verdicts: Verdicts, count_tokens: TokenCount, target_writes: TargetWrites) -> None:
        self._verdicts = verdicts
        self._count = count_tokens
        self._target_writes = target_writes

    async def verify(
        self, messages: list[Message], request: AnswerRequest, draft: AsyncIterator[str], report: ReplyReport
    ) -> AsyncIterator[str]:
        queue: asyncio.Queue[tuple[str, asyncio.Task[bool]] | None] = asyncio.Queue()
        draft_failed = False

        async def judge_as_drafted() -> None:
            nonlocal draft_failed
            before, pending = "", ""
            try:
                async for piece in draft:
                    pending += piece
                    *complete, pending = split_sentences(pending) or [""]
                    for block in complete:
                        await queue.put((block, self._judge(request, before, block, report)))
                        before += block
                if pending:
                    await queue.put((pending, self._judge(request, before, pending, report)))
            except LLMUnavailable as error:
                draft_failed = True  # what was judged stands; the target writes the rest
                logger.warning("the drafter failed mid-draft; the target writes the rest: %s", error)
            finally:
                queue.put_nowait(None)

        producer = asyncio.create_task(judge_as_drafted())
        accepted = ""
        rejected = False
        try:
            while (item := await queue.get()) is not None:
                block, verdict = item
                report.draft_tokens += self._count(block)
                if not await verdict:
                    rejected = True
                    break
                report.accepted_tokens += self._count(block)
                accepted += block
                yield block
        finally:
            producer.cancel()
            while not queue.empty():
                item = queue.get_nowait()
                if item is not None:
                    item[1].cancel()
        if not (rejected or draft_failed or not accepted):
            return
        if not accepted:
            async for delta in self._target_writes(messages, report):
                yield delta
            return
        rest = [
            *messages,
            {"role": "assistant", "content": accepted},
            {"role": "user", "content": CONTINUE_INSTRUCTION},
        ]
        async for delta in without_repeats(accepted, self._target_writes(rest, report)):
            yield delta

    def _judge(
        self, request: AnswerRequest, before: str, block: str, report: ReplyReport
    ) -> asyncio.Task[bool]:
        return asyncio.create_task(self._verdicts.ask(judge_messages(request, before, block), report))
