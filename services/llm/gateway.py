"""One way to call LLMs: retries, rate limits, key rotation, fallbacks, cost accounting.

Layers, each short: `_call_with_fallback` walks a role's endpoints, skipping
those cooling down; `_attempts` retries one endpoint with tenacity (the SDK's
own retries are off, so they never multiply); `_EndpointState` owns the
client, keys, limits and cooldown of one endpoint. Streaming adds one rule:
once text has reached the caller, a broken stream is finished by the next
endpoint, and the overlap is cut so no text is shown twice. A stream holds
its endpoint's concurrency slot until it ends, not only until it starts.

Every wait is bounded by the current reply's deadline (`services.llm.deadline`):
backoff and Retry-After waits, rate-limit and concurrency waits, each request
and each stream read. When a wait cannot fit in the time left the endpoint is
given up at once (the fallback may still answer); when the time is gone the
gateway raises `DeadlineExceeded`, an `LLMUnavailable`, so callers fall back
the way they do for any outage. Without a deadline a Retry-After is waited
out only up to `max_retry_wait`; an endpoint asking for longer rests that long.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import openai
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_any,
)

from services.llm import deadline as deadlines
from services.llm.capabilities import Capabilities, probe
from services.llm.config import LLMEndpoint, LLMRole, LLMRoles
from services.llm.limits import Clock, Cooldown, Sleep, TokenBucket, WaitTooLong
from services.llm.overlap import OVERLAP_WINDOW_CHARS, strip_overlap, without_repeats
from services.llm.tokens import TokenCounter, counter_for
from services.resilience import Backoff, OutOfTime, retry_after_seconds

__all__ = ["OVERLAP_WINDOW_CHARS", "strip_overlap"]  # re-exported: callers imported them from here

logger = logging.getLogger(__name__)

Message = dict[str, str]
T = TypeVar("T")

CONTINUE_INSTRUCTION = (
    "Your previous reply was cut off. Continue it exactly where it stops, without repeating "
    "anything already written and without any preamble."
)
RETRYABLE_STATUS = {408, 409, 429}
REASONING_REFUSES = frozenset({"max_tokens", "temperature", "logprobs"})
"""What OpenAI's reasoning models answer 400 to (unsupported parameter or value)."""
MAX_REST_SECONDS = 900.0
"""The longest an endpoint rests for its own Retry-After: beyond that, a misconfigured proxy is
likelier than a plan, and the endpoint is tried again."""


class LLMUnavailable(RuntimeError):
    """Every endpoint of a role failed; the caller falls back to the FAQ or a person."""


class DeadlineExceeded(LLMUnavailable):
    """The reply's time budget ran out while the gateway was waiting on its behalf."""


class _GiveUpEndpoint(RuntimeError):
    """This endpoint cannot answer in time (its wait is longer than allowed): try the next one."""


async def _bounded(awaitable: Awaitable[T], what: str, seconds: float | None = None) -> T:
    """Await within `seconds` and the current deadline; past the deadline, `DeadlineExceeded`.

    `seconds` striking first raises TimeoutError, which is retried like any hung request.
    """
    deadline = deadlines.current()
    if deadline is not None and deadline.expired:
        if isinstance(awaitable, Coroutine):
            awaitable.close()
        raise DeadlineExceeded(f"reply deadline reached before {what}")
    limit = seconds if deadline is None else deadline.cap(deadline.seconds if seconds is None else seconds)
    if limit is None:
        return await awaitable
    try:
        async with asyncio.timeout(limit):
            return await awaitable
    except TimeoutError:
        if deadline is not None and deadline.expired:
            raise DeadlineExceeded(f"reply deadline reached while {what}") from None
        raise


@dataclass
class CallRecord:
    """One API call as the logs and the bill see it."""

    role: LLMRole
    endpoint: str
    model: str
    kind: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ttft_ms: float | None = None
    total_ms: float = 0.0
    retries: int = 0
    cost_usd: float = 0.0
    error: str | None = None
    counted_here: bool = False
    """The endpoint reported no usage: the tokens were counted here, with its tokenizer where csbot
    has it (`tokens.counter_for`), else estimated; the cost follows from them."""


@dataclass
class CallLedger:
    """Every call made for one reply."""

    calls: list[CallRecord] = field(default_factory=list)

    @property
    def cost_usd(self) -> float:
        return sum(call.cost_usd for call in self.calls)

    @property
    def prompt_tokens(self) -> int:
        return sum(call.prompt_tokens for call in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(call.completion_tokens for call in self.calls)


@dataclass(frozen=True)
class ChatResult:
    text: str
    top_logprobs: list[dict[str, float]]
    """Per generated token: its alternatives' log-probabilities (empty when not asked)."""


@dataclass(frozen=True)
class ScoreResult:
    """Log-probabilities of supplied tokens, as vLLM's /v1/completions echo returns them."""

    top: list[dict[int, float] | None]
    """For each prompt position: the target's top alternatives for that position (None for the first)."""
    next_top: dict[int, float]
    """Alternatives for the one token after the prompt."""
    finished: bool = False
    """The model ended its answer right after the prompt (it chose end-of-text)."""


def _retry_after(error: BaseException) -> float | None:
    response = getattr(error, "response", None)
    return None if response is None else retry_after_seconds(response.headers)


def is_retryable(error: BaseException) -> bool:
    if isinstance(error, (openai.APITimeoutError, openai.APIConnectionError, asyncio.TimeoutError)):
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    # Transport errors raised mid-stream come from the SDK's HTTP library (httpx or its fork).
    return isinstance(error, json.JSONDecodeError) or type(error).__module__.startswith(("httpx", "httpcore"))


class _EndpointState:
    def __init__(self, config: LLMEndpoint, roles: LLMRoles, clock: Clock, sleep: Sleep) -> None:
        self.config = config
        keys = [key.get_secret_value() for key in config.api_keys] or ["not-needed"]
        self._clients = [
            openai.AsyncOpenAI(
                base_url=config.base_url,
                api_key=key,
                max_retries=0,
                timeout=config.timeout,
            )
            for key in keys
        ]
        self._key = 0
        self.semaphore = asyncio.Semaphore(config.max_concurrency)
        self.rpm = TokenBucket(config.rpm, clock=clock, sleep=sleep) if config.rpm else None
        self.tpm = TokenBucket(config.tpm, clock=clock, sleep=sleep) if config.tpm else None
        self.cooldown = Cooldown(roles.cooldown_after_failures, roles.cooldown_seconds, clock=clock)
        self.refused: set[str] = set(REASONING_REFUSES) if config.is_reasoning else set()
        """Request parameters this endpoint refuses: known for reasoning models, else learned."""
        self.capabilities: Capabilities | None = None
        """What the endpoint showed it can do when probed (`LLMGateway.probe`)."""

    @functools.cached_property
    def counter(self) -> TokenCounter:
        return counter_for(self.config)

    def count_unreported(self, record: CallRecord, prompt: Callable[[], int], text: str) -> None:
        """A call the endpoint reported no usage for is counted here: its bill and TPM window are
        not zero (llama-cpp-python's server sends none in streams). `prompt` counts the prompt."""
        if record.prompt_tokens or record.completion_tokens:
            return
        record.prompt_tokens, record.completion_tokens = prompt(), self.counter.count(text) if text else 0
        record.cost_usd = self.config.cost(record.prompt_tokens, record.completion_tokens)
        record.counted_here = True

    def chat_options(
        self, *, max_tokens: int, temperature: float, top_logprobs: int | None
    ) -> dict[str, Any]:
        """Sampling options in the form this endpoint accepts."""
        options: dict[str, Any] = {}
        if "max_tokens" in self.refused:  # the limit covers hidden reasoning too: leave room for it
            options["max_completion_tokens"] = max_tokens + self.config.reasoning_budget
        else:
            options["max_tokens"] = max_tokens
        if "temperature" not in self.refused:
            options["temperature"] = temperature
        if top_logprobs and "logprobs" not in self.refused:
            options.update(logprobs=True, top_logprobs=top_logprobs)
        if self.config.reasoning_effort and self.config.is_reasoning:
            options["reasoning_effort"] = self.config.reasoning_effort
        return options

    def learn_refusal(self, error: BaseException) -> bool:
        """True when `error` refused a parameter we can do without, which is then left out."""
        if not isinstance(error, openai.BadRequestError):
            return False
        param = {"top_logprobs": "logprobs"}.get(str(error.param), str(error.param))
        if param not in REASONING_REFUSES or param in self.refused:
            return False
        self.refused.add(param)
        logger.info(
            "llm endpoint refuses a parameter; calling again without it",
            extra={"endpoint": self.config.name, "param": param},
        )
        return True

    @property
    def client(self) -> openai.AsyncOpenAI:
        return self._clients[self._key]

    def rotate_key(self) -> bool:
        if len(self._clients) == 1:
            return False
        self._key = (self._key + 1) % len(self._clients)
        return True

    async def close(self) -> None:
        for client in self._clients:
            await client.close()

    async def admit(self, estimated_tokens: int) -> None:
        """Wait for the rate limits, never past the reply's deadline."""
        deadline = deadlines.current()
        max_wait = None if deadline is None else deadline.remaining()
        try:
            if self.rpm is not None:
                await self.rpm.acquire(1, max_wait=max_wait)
            if self.tpm is not None and estimated_tokens:
                await self.tpm.acquire(estimated_tokens, max_wait=max_wait)
        except WaitTooLong as error:
            raise _GiveUpEndpoint(f"{error}, after the reply's deadline") from None

    def settle(self, estimated_tokens: int, record: CallRecord) -> None:
        """Correct the TPM window from the usage the endpoint reported (the estimate runs low for
        Korean and Japanese, high for short replies)."""
        used = record.prompt_tokens + record.completion_tokens
        if self.tpm is not None and used:
            self.tpm.settle(used - estimated_tokens)

    async def take_slot(self) -> None:
        """One of `max_concurrency` slots; the caller releases it when its call or stream ends."""
        await _bounded(self.semaphore.acquire(), "waiting for a free connection")


_TOKEN_ID_KINDS = frozenset({"score", "completion", "tokenize", "detokenize"})
"""Calls that carry token ids, which mean something only in one model's vocabulary."""


class LLMGateway:
    def __init__(
        self,
        roles: LLMRoles,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        backoff_max: float = 8.0,
    ) -> None:
        self._roles = roles
        self._sleep = sleep
        self._clock = clock
        self._backoff = Backoff(0.5, backoff_max)
        self._states = {
            role: [_EndpointState(endpoint, roles, clock, sleep) for endpoint in roles.endpoints(role)]
            for role in LLMRole
        }

    def _ms_since(self, started: float) -> float:
        """Milliseconds on the gateway's clock (the one its rate limits and waits run on)."""
        return (self._clock() - started) * 1000

    def has(self, role: LLMRole) -> bool:
        return bool(self._states.get(role))

    def primary(self, role: LLMRole) -> LLMEndpoint:
        return self._states[role][0].config

    def _serving(self, role: LLMRole, kind: str) -> list[_EndpointState]:
        """The endpoints that may take a call, in fallback order: for token ids (scoring, a completion
        of ids, /tokenize, /detokenize) only those of the primary's vocabulary (its model and
        tokenizer): another model's ids mean other words, or a 400."""
        states = self._states.get(role, [])
        if kind not in _TOKEN_ID_KINDS or not states:
            return states
        first = states[0].config
        return [s for s in states if (s.config.model, s.config.tokenizer) == (first.model, first.tokenizer)]

    def capabilities(self, role: LLMRole) -> Capabilities | None:
        """What the role's primary endpoint showed it can do, once probed (`probe`)."""
        states = self._states.get(role)
        return states[0].capabilities if states else None

    async def probe(self) -> None:
        """Ask every endpoint what it can do (`capabilities.probe`), before any customer's call, and
        act on it: one stream at a time where two at once broke, tokens counted here where streams
        carry no usage, token mode only where it can score token ids. One log line per endpoint."""
        for role, states in self._states.items():
            for state in states:
                config = state.config
                options = functools.partial(state.chat_options, temperature=0.0, top_logprobs=None)
                try:
                    found = await probe(state.client, _root_client(state), config, options)
                except TimeoutError:
                    found = None
                if found is None or not found.chat:
                    logger.warning(
                        "llm endpoint did not answer the probe: nothing known of it yet (token mode is "
                        "asked again at its first reply)",
                        extra={"role": role, "endpoint": config.name, "timeout_s": config.timeout},
                    )
                    continue
                state.capabilities = found
                streams = config.max_concurrency if found.concurrent_streams else 1
                state.semaphore = asyncio.Semaphore(streams)
                mode = (
                    config.verify if config.verify != "auto" else ("token" if found.token_mode else "judge")
                )
                logger.info(
                    "llm endpoint %s (%s): %s; verifies in %s mode, %d stream(s) at a time, tokens %s",
                    config.name,
                    role,
                    found.describe(),
                    mode,
                    streams,
                    "as it reports them" if found.stream_usage else "counted here (no usage in its streams)",
                    extra={"role": role, "endpoint": config.name, "verify": mode},
                )

    async def close(self) -> None:
        for states in self._states.values():
            for state in states:
                await state.close()

    # --- non-streaming calls -------------------------------------------------

    async def chat(
        self,
        role: LLMRole,
        messages: Sequence[Message],
        *,
        ledger: CallLedger,
        max_tokens: int,
        temperature: float = 0.0,
        top_logprobs: int | None = None,
        kind: str = "chat",
    ) -> ChatResult:
        """`kind` names the call in the ledger (verdict, summary...), so admins see what it was for."""

        async def call(state: _EndpointState, record: CallRecord) -> ChatResult:
            response = await state.client.chat.completions.create(
                model=state.config.model,
                messages=list(messages),  # type: ignore[arg-type]
                **state.chat_options(
                    max_tokens=max_tokens, temperature=temperature, top_logprobs=top_logprobs
                ),
            )
            _count_usage(record, state.config, response.usage)
            choice = response.choices[0]
            state.count_unreported(
                record, lambda: state.counter.conversation(messages), choice.message.content or ""
            )
            alternatives = []
            if choice.logprobs is not None and choice.logprobs.content:
                alternatives = [
                    {alt.token: alt.logprob for alt in item.top_logprobs} for item in choice.logprobs.content
                ]
            return ChatResult(choice.message.content or "", alternatives)

        return await self._call_with_fallback(role, kind, _estimate(messages) + max_tokens, ledger, call)

    async def score(
        self, role: LLMRole, prompt: Sequence[int], *, ledger: CallLedger, top: int = 5, needed_from: int = 0
    ) -> ScoreResult:
        """Top log-probabilities at every supplied position plus the next one, in one call.

        `needed_from`: positions before it may come back empty where the server can skip them.
        """

        async def call(state: _EndpointState, record: CallRecord) -> ScoreResult:
            extra: dict[str, Any] = {"return_tokens_as_token_ids": True}
            if state.config.partial_prompt_logprobs:
                extra["prompt_logprobs_from"] = needed_from
            response = await state.client.completions.create(
                model=state.config.model,
                prompt=list(prompt),
                max_tokens=1,
                temperature=0.0,
                echo=True,
                logprobs=top,
                extra_body=extra,
            )
            _count_usage(record, state.config, response.usage)
            logprobs = response.choices[0].logprobs
            if logprobs is None or logprobs.top_logprobs is None:
                raise LLMUnavailable(f"{state.config.name} returned no prompt log-probabilities")
            positions: list[dict[int, float] | None] = [
                None if alternatives is None else {_token_id(t): lp for t, lp in alternatives.items()}
                for alternatives in logprobs.top_logprobs
            ]
            if len(positions) < len(prompt) + 1:
                raise LLMUnavailable(f"{state.config.name} did not echo the prompt")
            next_top = positions[len(prompt)] or {}
            finished = response.choices[0].finish_reason == "stop"
            return ScoreResult(positions[: len(prompt)], next_top, finished)

        return await self._call_with_fallback(role, "score", len(prompt) + 1, ledger, call)

    async def _call_with_fallback(
        self,
        role: LLMRole,
        kind: str,
        estimated_tokens: int,
        ledger: CallLedger,
        call: Callable[[_EndpointState, CallRecord], Awaitable[T]],
    ) -> T:
        errors = []
        for state in self._serving(role, kind):
            if state.cooldown.resting:
                errors.append(f"{state.config.name}: cooling down")
                continue
            _raise_if_past_deadline(role, errors)
            record = CallRecord(role, state.config.name, state.config.model, kind)
            ledger.calls.append(record)
            started = self._clock()
            try:
                result = await self._attempts(
                    state, record, estimated_tokens, functools.partial(call, state, record)
                )
            except DeadlineExceeded as error:  # our budget, not the endpoint's fault: no cooldown
                record.total_ms = self._ms_since(started)
                record.error = f"{type(error).__name__}: {error}"[:500]
                raise DeadlineExceeded("; ".join([*errors, f"{state.config.name}: {error}"])) from error
            except Exception as error:  # one endpoint's failure must not end the chain
                record.total_ms = self._ms_since(started)
                record.error = f"{type(error).__name__}: {error}"[:500]
                if not isinstance(error, _GiveUpEndpoint):
                    state.cooldown.failed()
                errors.append(f"{state.config.name}: {record.error}")
                logger.warning(
                    "llm endpoint failed",
                    extra={"role": role, "endpoint": state.config.name, "error": record.error},
                )
                continue
            record.total_ms = self._ms_since(started)
            record.ttft_ms = record.ttft_ms or record.total_ms
            state.cooldown.succeeded()
            state.settle(estimated_tokens, record)
            return result
        raise LLMUnavailable(f"no {role} endpoint answered: " + "; ".join(errors or ["none configured"]))

    async def _attempts(
        self,
        state: _EndpointState,
        record: CallRecord,
        estimated_tokens: int,
        call: Callable[[], Awaitable[T]],
        *,
        keep_slot: bool = False,
    ) -> T:
        """Retry `call` on one endpoint. With `keep_slot` the concurrency slot taken for the
        successful attempt stays taken: the caller (a stream) releases it when it ends."""
        retrying = AsyncRetrying(
            stop=stop_any(stop_after_attempt(self._roles.retries + 1), OutOfTime(_deadline_left)),
            wait=functools.partial(self._wait, state),
            retry=retry_if_exception(lambda error: self._should_retry(state, error)),
            sleep=self._sleep,
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                record.retries = attempt.retry_state.attempt_number - 1
                await _bounded(state.admit(estimated_tokens), "waiting for the rate limit")
                await state.take_slot()
                try:
                    result = await _bounded(self._without_refused(state, call), "waiting for an answer")
                except BaseException:
                    state.semaphore.release()
                    raise
                if not keep_slot:
                    state.semaphore.release()
                return result
        raise AssertionError("unreachable: tenacity reraises")

    @staticmethod
    async def _without_refused(state: _EndpointState, call: Callable[[], Awaitable[T]]) -> T:
        """Call again at once when the endpoint refused a parameter we can leave out (at most once each)."""
        while True:
            try:
                return await call()
            except openai.BadRequestError as error:
                if not state.learn_refusal(error):
                    raise

    def _should_retry(self, state: _EndpointState, error: BaseException) -> bool:
        if isinstance(error, (openai.AuthenticationError, openai.RateLimitError)) and state.rotate_key():
            return True  # the next key may work right away
        return is_retryable(error)

    def _wait(self, state: _EndpointState, retry_state: RetryCallState) -> float:
        """Honour Retry-After when the server sends one; jittered exponential backoff otherwise.

        Capped by the time left (`OutOfTime` then stops, as a wait that uses up the budget
        leaves none for the call) and, for Retry-After, by `max_retry_wait`: an endpoint asking
        for longer rests as long as it asked, and the fallback serves meanwhile.
        """
        error = retry_state.outcome.exception() if retry_state.outcome else None
        hinted = _retry_after(error) if error is not None else None
        if hinted is not None and hinted > self._roles.max_retry_wait:
            state.cooldown.rest_for(min(hinted, MAX_REST_SECONDS))
            logger.warning(
                "llm endpoint asked to wait longer than max_retry_wait; resting it",
                extra={"endpoint": state.config.name, "retry_after": hinted},
            )
            return float("inf")
        wait = hinted if hinted is not None else self._backoff.tenacity_wait(retry_state)
        return deadlines.remaining(wait)

    # --- streaming -----------------------------------------------------------

    async def stream_chat(
        self,
        role: LLMRole,
        messages: Sequence[Message],
        *,
        ledger: CallLedger,
        max_tokens: int,
        temperature: float = 0.0,
    ) -> AsyncGenerator[str, None]:
        """Text deltas. A stream cut after partial output is finished by the next endpoint."""

        async def open_chat(state: _EndpointState, shown: str) -> AsyncIterator[Any]:
            request = list(messages)
            if shown:
                request += [
                    {"role": "assistant", "content": shown},
                    {"role": "user", "content": CONTINUE_INSTRUCTION},
                ]
            # The SDK's overloads want its own TypedDicts; ours are plain dicts of the same shape.
            return await state.client.chat.completions.create(  # type: ignore[no-any-return,call-overload]
                model=state.config.model,
                messages=request,
                stream=True,
                stream_options={"include_usage": True},
                **state.chat_options(max_tokens=max_tokens, temperature=temperature, top_logprobs=None),
            )

        async for delta in self._stream(
            role,
            "stream",
            _estimate(messages) + max_tokens,
            ledger,
            open_chat,
            prompt=lambda state: state.counter.conversation(messages),
        ):
            yield delta

    async def stream_completion(
        self,
        role: LLMRole,
        prompt: Sequence[int],
        *,
        ledger: CallLedger,
        max_tokens: int,
        temperature: float = 0.0,
    ) -> AsyncGenerator[str, None]:
        """Continuation of token ids (/v1/completions): exactly what the model generates at `temperature`."""

        async def open_completion(state: _EndpointState, shown: str) -> AsyncIterator[Any]:
            ids = list(prompt)
            if shown:  # the shown text in this endpoint's own token ids
                ids += await self._tokenize_on(state, text=shown)
            return await state.client.completions.create(
                model=state.config.model,
                prompt=ids,
                max_tokens=max(1, max_tokens - (len(ids) - len(prompt))),
                temperature=temperature,
                stream=True,
                stream_options={"include_usage": True},
            )

        async for delta in self._stream(
            role,
            "completion",
            len(prompt) + max_tokens,
            ledger,
            open_completion,
            prompt=lambda _: len(prompt),
        ):
            yield delta

    async def _stream(
        self,
        role: LLMRole,
        kind: str,
        estimated_tokens: int,
        ledger: CallLedger,
        open_stream: Callable[[_EndpointState, str], Awaitable[AsyncIterator[Any]]],
        *,
        prompt: Callable[[_EndpointState], int],
    ) -> AsyncGenerator[str, None]:
        """`prompt`: the prompt's tokens on an endpoint, counted here when it reports no usage."""
        shown = ""
        errors: list[str] = []
        for state in self._serving(role, kind):
            if state.cooldown.resting:
                errors.append(f"{state.config.name}: cooling down")
                continue
            _raise_if_past_deadline(role, errors)
            record = CallRecord(role, state.config.name, state.config.model, kind)
            ledger.calls.append(record)
            started = self._clock()
            stream: _Prefetched | None = None
            produced = ""
            try:
                stream = await self._attempts(
                    state,
                    record,
                    estimated_tokens,
                    functools.partial(self._first_chunk, state, functools.partial(open_stream, state, shown)),
                    keep_slot=True,
                )
                texts = _texts(stream, state.config, record, functools.partial(self._ms_since, started))
                # A continuation repeats some of what was shown: held back until that is clear.
                async for delta in without_repeats(shown, texts) if shown else texts:
                    shown += delta
                    produced += delta
                    yield delta
            except DeadlineExceeded as error:  # our budget, not the endpoint's fault: no cooldown
                record.error = f"{type(error).__name__}: {error}"[:500]
                record.total_ms = self._ms_since(started)
                raise DeadlineExceeded("; ".join([*errors, f"{state.config.name}: {error}"])) from error
            except Exception as error:  # a broken stream goes on at the next endpoint
                record.error = f"{type(error).__name__}: {error}"[:500]
                record.total_ms = self._ms_since(started)
                if not isinstance(error, _GiveUpEndpoint):
                    state.cooldown.failed()
                errors.append(f"{state.config.name}: {record.error}")
                logger.warning(
                    "llm stream failed",
                    extra={
                        "role": role,
                        "endpoint": state.config.name,
                        "shown_chars": len(shown),
                        "error": record.error,
                    },
                )
                continue
            finally:
                if stream is not None:  # the slot taken when the stream opened, held to its end
                    state.semaphore.release()
                    await stream.close()
            record.total_ms = self._ms_since(started)
            state.cooldown.succeeded()
            state.count_unreported(record, functools.partial(prompt, state), produced)
            state.settle(estimated_tokens, record)
            return
        raise LLMUnavailable(f"no {role} endpoint finished the stream: " + "; ".join(errors or ["none"]))

    async def _first_chunk(
        self, state: _EndpointState, opening: Callable[[], Awaitable[AsyncIterator[Any]]]
    ) -> _Prefetched:
        """Open the stream and read its first chunk, so a hang or an early error is retried."""

        async def first() -> _Prefetched:
            opened = await opening()
            iterator = opened.__aiter__()
            try:
                return _Prefetched(await iterator.__anext__(), iterator, opened)
            except BaseException:
                await _close_quietly(opened)
                raise

        return await _bounded(first(), "waiting for the first token", state.config.first_token_timeout)

    # --- vLLM's tokenizer endpoints (token-mode verification) ----------------

    async def tokenize(
        self,
        role: LLMRole,
        *,
        text: str | None = None,
        messages: Sequence[Message] | None = None,
        ledger: CallLedger | None = None,
    ) -> list[int]:
        """Token ids from the model's own tokenizer; with messages, its chat template too.

        Like every call: retried, rate-limited (a request, no model tokens), sent to the first
        endpoint not cooling down under its own model name, recorded in the ledger.
        """

        async def call(state: _EndpointState, record: CallRecord) -> list[int]:
            return await self._tokenize_on(state, text=text, messages=messages)

        return await self._call_with_fallback(role, "tokenize", 0, ledger or CallLedger(), call)

    async def prompt_tokens(
        self, role: LLMRole, messages: Sequence[Message], *, ledger: CallLedger | None = None
    ) -> int:
        """The exact size of a chat prompt as the role's endpoint renders it (for `trim_exactly`)."""
        return len(await self.tokenize(role, messages=messages, ledger=ledger))

    async def detokenize(
        self, role: LLMRole, tokens: Sequence[int], *, ledger: CallLedger | None = None
    ) -> str:
        async def call(state: _EndpointState, record: CallRecord) -> str:
            body = {"model": state.config.model, "tokens": list(tokens)}
            response = await _root_client(state).post("/detokenize", cast_to=object, body=body)
            if not isinstance(response, dict) or not isinstance(response.get("prompt"), str):
                raise _MalformedAnswer(f"{state.config.name} /detokenize answered without text")
            return str(response["prompt"])

        return await self._call_with_fallback(role, "detokenize", 0, ledger or CallLedger(), call)

    @staticmethod
    async def _tokenize_on(
        state: _EndpointState, *, text: str | None = None, messages: Sequence[Message] | None = None
    ) -> list[int]:
        body: dict[str, Any] = {"model": state.config.model}
        if messages is not None:
            body.update(messages=list(messages), add_generation_prompt=True)
        else:
            body.update(prompt=text or "", add_special_tokens=False)
        response = await _root_client(state).post("/tokenize", cast_to=object, body=body)
        tokens = response.get("tokens") if isinstance(response, dict) else None
        if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
            raise _MalformedAnswer(f"{state.config.name} /tokenize answered without token ids")
        return tokens


def _deadline_left(retry_state: RetryCallState) -> float | None:
    """The time the reply's deadline leaves (None without one)."""
    deadline = deadlines.current()
    if deadline is None:
        return None
    return 0.0 if deadline.expired else deadline.remaining()


class _MalformedAnswer(RuntimeError):
    """The endpoint answered 200 with something that is not what the API promises."""


def _root_client(state: _EndpointState) -> openai.AsyncOpenAI:
    """vLLM serves /tokenize beside /v1, not under it."""
    root = state.config.base_url.rstrip("/").removesuffix("/v1")
    return state.client.with_options(base_url=root)


def _raise_if_past_deadline(role: LLMRole, errors: Sequence[str]) -> None:
    deadline = deadlines.current()
    if deadline is not None and deadline.expired:
        tried = "; ".join(errors or ["no attempt yet"])
        raise DeadlineExceeded(f"reply deadline reached before a {role} endpoint answered: {tried}")


async def _close_quietly(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if close is None:
        return
    try:
        await close()
    except Exception:  # closing a broken connection may fail again; nothing is left to save
        logger.debug("closing a stream failed", exc_info=True)


class _Prefetched:
    """A stream whose first chunk was already read; read chunk by chunk (`__anext__`), each
    read bounded by the stall timeout."""

    def __init__(self, first: Any, rest: AsyncIterator[Any], opened: Any) -> None:
        self._first: Any | None = first
        self._rest = rest
        self._opened = opened

    async def __anext__(self) -> Any:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return await self._rest.__anext__()

    async def close(self) -> None:
        """Free the connection, however the stream ended."""
        await _close_quietly(self._opened)


class StreamIncomplete(RuntimeError):
    """The stream ended without a finish reason: the connection dropped mid-answer."""


async def _deltas(stream: _Prefetched, endpoint: LLMEndpoint) -> AsyncIterator[tuple[str, Any]]:
    """(text, usage) per chunk; a stall longer than `timeout` (or the time left) ends it."""
    finished = False
    while True:
        try:
            chunk = await _bounded(stream.__anext__(), "reading the stream", endpoint.timeout)
        except StopAsyncIteration:
            if not finished:
                raise StreamIncomplete(f"{endpoint.name} closed the stream mid-answer") from None
            return
        choice = chunk.choices[0] if chunk.choices else None
        finished = finished or (choice is not None and choice.finish_reason is not None)
        if choice is None:
            delta = None
        elif hasattr(choice, "delta"):
            delta = choice.delta.content
        else:
            delta = choice.text  # /v1/completions
        yield delta or "", getattr(chunk, "usage", None)


async def _texts(
    stream: _Prefetched, endpoint: LLMEndpoint, record: CallRecord, elapsed_ms: Callable[[], float]
) -> AsyncIterator[str]:
    """The stream's text deltas; usage and time to first text go to `record` on the way."""
    async for delta, usage in _deltas(stream, endpoint):
        if usage is not None:
            _count_usage(record, endpoint, usage)
        if delta:
            if record.ttft_ms is None:
                record.ttft_ms = elapsed_ms()
            yield delta


def _count_usage(record: CallRecord, endpoint: LLMEndpoint, usage: Any) -> None:
    if usage is None:
        return
    record.prompt_tokens = usage.prompt_tokens or 0
    record.completion_tokens = usage.completion_tokens or 0
    record.cost_usd = endpoint.cost(record.prompt_tokens, record.completion_tokens)


def _estimate(messages: Sequence[Message]) -> int:
    """A cheap estimate for rate limiting, corrected by `settle` from the usage that comes back
    (exact counts are the trimmer's job): a third of a token per ASCII character, a token for
    each other one (a Hangul syllable or a kanji is one token or more in the common vocabularies)."""
    total = 0
    for message in messages:
        content = message.get("content", "")
        ascii_chars = sum(char.isascii() for char in content)
        total += ascii_chars // 3 + (len(content) - ascii_chars) + 4
    return total


def _token_id(token: str) -> int:
    """vLLM's `return_tokens_as_token_ids` spells tokens `token_id:123`."""
    return int(token.rsplit(":", 1)[-1])
