"""Token mode (vLLM-style /v1/completions with echo and logprobs): lossless verification of a draft.

One call scores a block of draft tokens; the shared acceptance loop
(`acceptance.accept_block`) keeps the prefix the target agrees with and gives
the target's own next token: its correction, or after a fully accepted block
the extra token, which is matched against the draft like any other. After a
correction the draft is picked up again where the target rejoins it (n-gram
re-sync, or a one-for-one substitution). What is shown is the text of all the
target's token ids decoded together, released up to its last whole character;
when the draft runs out the target continues from the last whole character,
so a Hangul syllable or an emoji split across tokens is never cut or doubled.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Sequence

from services.llm.acceptance import DraftPolicy, TopScores, accept_block, ngram_lookup
from services.llm.config import LLMRole
from services.llm.gateway import CallLedger, Message, ScoreResult
from services.llm.model_api import ModelAPI
from services.llm.reply import ReplyReport

logger = logging.getLogger(__name__)

TOKEN_MODE_RECHECK_SECONDS = 300.0
"""After a refused /tokenize probe, judge mode is used this long before the endpoint is asked again."""
RESYNC_WINDOW = 8
"""How far past a rejected draft token the target's words are looked for in the draft."""
MIN_RESYNC_TOKENS = 16
"""Draft left after a correction below which the target just writes the rest: each scoring call
re-sends the prompt, so a short remainder costs more (and saves less time) than it is worth."""
MAX_MISSES = 3
"""Blocks in a row rejected at their first token before the target is left to write the rest."""
_PARTIAL = "\ufffd"
"""What a decoder shows for the bytes of a character whose other bytes are in the next token."""


class TokenModeProbe:
    """Whether the target's endpoint serves /tokenize, so token mode can be used; asked again later if not."""

    def __init__(
        self,
        *,
        recheck_after: float = TOKEN_MODE_RECHECK_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._recheck_after = recheck_after
        self._clock = clock
        self._supported: bool | None = None
        self._ask_again_at = 0.0

    async def supported(self, model: ModelAPI) -> bool:
        configured = model.primary(LLMRole.TARGET).verify
        if configured != "auto":
            return configured == "token"
        probed = model.capabilities(LLMRole.TARGET)
        if probed is not None and not probed.token_mode:
            return False  # it showed at start that it cannot score token ids: judge mode, no 404s
        if self._supported is None or (not self._supported and self._clock() >= self._ask_again_at):
            try:
                await model.tokenize(LLMRole.TARGET, text="ok")
            except Exception as error:  # any refusal means no tokenizer API, for now
                if self._supported is not False:
                    logger.info(
                        "the target has no tokenizer API: judge mode; asking again in %g s",
                        self._recheck_after,
                        extra={"error": f"{type(error).__name__}: {error}"[:200]},
                    )
                self._supported = False
                self._ask_again_at = self._clock() + self._recheck_after
            else:
                if self._supported is False:
                    logger.info("the target's tokenizer API answers again: token mode")
                self._supported = True
        return self._supported


class _Assembly:
    """The text of the target's token ids, decoded together, released up to its last whole character."""

    def __init__(self, model: ModelAPI, ledger: CallLedger) -> None:
        self._model = model
        self._ledger = ledger
        """The reply's: its /detokenize calls are billed and shown with the rest of it."""
        self.shown = ""
        self.whole = 0
        """How many of the ids the shown text is made of (it ends on a whole character)."""

    async def update(self, tokens: Sequence[int]) -> str:
        text = await self._model.detokenize(LLMRole.TARGET, tokens, ledger=self._ledger)
        if text.endswith(_PARTIAL):
            return ""  # the rest of the character comes with the next token
        return self._release(text, len(tokens))

    async def settle(self, tokens: Sequence[int]) -> str:
        """Before the target continues alone: release up to the last whole character of `tokens`.

        A character is at most 4 bytes, so its pieces end within the last 3 tokens; a run of bytes
        that makes no character is looked past to the text before it.
        """
        for count in range(len(tokens), self.whole, -1):
            text = await self._model.detokenize(LLMRole.TARGET, tokens[:count], ledger=self._ledger)
            if not text.endswith(_PARTIAL):
                return self._release(text, count)
        return ""

    async def flush(self, tokens: Sequence[int]) -> str:
        """The answer ended here: whatever the ids say."""
        text = await self._model.detokenize(LLMRole.TARGET, tokens, ledger=self._ledger)
        return self._release(text, len(tokens))

    def _release(self, text: str, count: int) -> str:
        delta = text[len(self.shown) :] if text.startswith(self.shown) else ""
        if delta:
            self.shown = text
        self.whole = count
        return delta


class TokenVerifier:
    def __init__(
        self,
        model: ModelAPI,
        *,
        temperature: float,
        reply_budget: int,
        block_tokens: int,
        rng: random.Random,
    ) -> None:
        self._model = model
        self._temperature = temperature
        self._reply_budget = reply_budget
        self._block_tokens = block_tokens
        self._rng = rng

    def _policy(self) -> DraftPolicy:
        """Long blocks first (a call costs a round trip and the prompt); shorter after rejections."""
        return DraftPolicy(max_tokens=self._block_tokens, run=float(self._block_tokens), skip_below=0.0)

    async def verify(self, messages: list[Message], draft: str, report: ReplyReport) -> AsyncIterator[str]:
        model = self._model
        prompt = await model.tokenize(LLMRole.TARGET, messages=messages, ledger=report.ledger)
        draft_ids = await model.tokenize(LLMRole.TARGET, text=draft, ledger=report.ledger)
        policy = self._policy()
        out: list[int] = []
        """The target's own tokens so far."""
        assembly = _Assembly(model, report.ledger)
        position = 0
        anchor = 0
        misses = 0
        while position < len(draft_ids) and len(out) < self._reply_budget:
            length = min(policy.length(), len(draft_ids) - position, self._reply_budget - len(out))
            block = draft_ids[position : position + length]
            base = len(prompt) + len(out)
            scored = await model.score(
                LLMRole.TARGET, [*prompt, *out, *block], ledger=report.ledger, needed_from=base
            )
            report.verify_calls += 1
            report.draft_tokens += len(block)
            rows = [scored.top[base + offset] or {} for offset in range(len(block))] + [scored.next_top]
            outcome = accept_block(TopScores(rows), block, temperature=self._temperature, rng=self._rng)
            kept, token, corrected = outcome.kept, outcome.next_token, outcome.corrected
            assert token is not None  # no end test is passed to the loop: drafts hold no end token
            out += block[:kept]
            report.accepted_tokens += kept
            policy.update(len(block), kept)
            position += kept
            if len(out) >= self._reply_budget:
                break  # the budget is spent: the pass's extra token is not the reply's
            if not corrected and position < len(draft_ids):
                # The extra token after a fully accepted block: the draft's next token, or a correction of it.
                report.draft_tokens += 1
                if token == draft_ids[position]:
                    report.accepted_tokens += 1
                    position += 1
                else:
                    corrected = True
            if await self._ends_answer(token, scored, corrected, report.ledger):
                if delta := await assembly.flush(out):
                    yield delta
                return
            out.append(token)
            if corrected:
                misses = misses + 1 if kept == 0 or misses == 0 else 1
                if misses == 1:
                    anchor = position
                position = _resync(draft_ids, out, anchor=anchor, rejected_at=position, misses=misses)
                if len(draft_ids) - position < MIN_RESYNC_TOKENS:
                    position = len(draft_ids)
            else:
                misses = 0
            if delta := await assembly.update(out):
                yield delta
        if delta := await assembly.settle(out):
            yield delta
        budget = self._reply_budget - assembly.whole
        if budget <= 0:
            return
        # The target goes on from the last whole character: the pieces of a split one are its to redo.
        async for delta in model.stream_completion(
            LLMRole.TARGET,
            [*prompt, *out[: assembly.whole]],
            ledger=report.ledger,
            max_tokens=budget,
            temperature=self._temperature,
        ):
            yield delta

    async def _ends_answer(
        self, token: int, scored: ScoreResult, corrected: bool, ledger: CallLedger
    ) -> bool:
        """Whether the target's token is its end of text.

        Greedy after a whole block, the server's own generated token is ours and its finish
        reason says; otherwise an end token is the one that decodes to nothing.
        """
        if not corrected and self._temperature <= 0:
            return scored.finished
        return await self._model.detokenize(LLMRole.TARGET, [token], ledger=ledger) == ""


def _resync(draft: Sequence[int], out: Sequence[int], *, anchor: int, rejected_at: int, misses: int) -> int:
    """Where the draft picks up again after the target corrected the draft token at `rejected_at`.

    `anchor` is where the current run of corrections began. First guess: the target inserted or
    dropped a token or two (its last tokens are found right there), else it replaced one word
    ("3 days" -> "2 days") and the draft goes on after the replaced token. When that guess fails too,
    the target's last tokens are looked for a little further on; then the draft is given up.
    """
    if misses == 1:
        near = ngram_lookup(
            draft, out, ngram=2, min_ngram=1, start=anchor, stop=rejected_at + 3, latest=False
        )
        return near if near is not None else rejected_at + 1
    if misses <= MAX_MISSES:
        found = ngram_lookup(
            draft, out, ngram=2, min_ngram=1, start=anchor, stop=anchor + RESYNC_WINDOW, latest=False
        )
        if found is not None:
            return found
    return len(draft)
