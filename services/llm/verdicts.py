"""YES/NO verdicts from the target: the relevance check of FAQ text and judge mode's block checks.

A verdict reads the YES log-probability where the API returns it (a steadier
signal than the one sampled word) and the word itself where it does not
(reasoning models refuse logprobs).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from services.llm.config import LLMRole
from services.llm.gateway import Message
from services.llm.model_api import ModelAPI
from services.llm.prompts import relevance_messages
from services.llm.reply import AnswerRequest, ReplyReport

YES_THRESHOLD = 0.5
TokenCount = Callable[[str], int]


class Verdicts:
    def __init__(self, model: ModelAPI) -> None:
        self._model = model

    async def ask(self, messages: list[Message], report: ReplyReport) -> bool:
        result = await self._model.chat(
            LLMRole.TARGET, messages, ledger=report.ledger, max_tokens=1, top_logprobs=5, kind="verdict"
        )
        report.verify_calls += 1
        if result.top_logprobs:
            first = result.top_logprobs[0]
            yes = sum(math.exp(lp) for token, lp in first.items() if token.strip().upper() == "YES")
            return yes >= YES_THRESHOLD
        return result.text.strip().upper().startswith("YES")


class RelevanceCheck:
    """Whether the target says the FAQ text answers the question; counted as a draft either way.

    Its wording and facts are the shop's own, so what the target must confirm is
    only that it answers this question: one YES/NO call that reads the question,
    the customer's facts and the FAQ text once costs a fraction of scoring the
    whole answer prompt plus the draft.
    """

    def __init__(self, verdicts: Verdicts, count_tokens: TokenCount) -> None:
        self._verdicts = verdicts
        self._count = count_tokens

    async def confirms(self, request: AnswerRequest, retrieval: str, report: ReplyReport) -> bool:
        drafted = self._count(retrieval)
        report.draft_tokens += drafted
        confirmed = await self._verdicts.ask(relevance_messages(request, retrieval), report)
        if confirmed:
            report.accepted_tokens += drafted
        return confirmed
