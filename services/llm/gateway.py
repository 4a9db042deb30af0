"""One way to call LLMs: retries, rate limits, key rotation, fallbacks, cost accounting.

Layers, each short: `_call_with_fallback` walks a role's endpoints, skipping
those cooling down; `_attempts` retries one endpoint with tenacity (the SDK's
own retries are off, so they never multiply); `_EndpointState` owns the
client, keys, limits and cooldown of one endpoint. Streaming adds one rule:
once text has reached the caller, a broken stream is finished by the next
endpoint, and the overlap is cut so no text is shown twice.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import openai
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from services.llm.config import LLMEndpoint, LLMRoles
from services.llm.limits import Clock, Cooldown, Sleep, TokenBucket

logger = logging.getLogger(__name__)

Message = dict[str, str]
T = TypeVar("T")

CONTINUE_INSTRUCTION = (
    "Your previous reply was cut off. Continue it exactly where it stops, without repeating "
    "anything already written and without any preamble."
)
MIN_OVERLAP_CHARS = 6
OVERLAP_WINDOW_CHARS = 48
RETRYABLE_STATUS = {408, 409, 429}
REASONING_REFUSES = frozenset({"max_tokens", "temperature", "logprobs"})
"""What OpenAI's reasoning models answer 400 to (unsupported parameter or value)."""


class LLMUnavailable(RuntimeError):
    """Every endpoint of a role failed; the caller falls back to the FAQ or a person."""


@dataclass
class CallRecord:
    """One API call as the logs and the bill see it."""

    role: str
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
    if response is None:
        return None
    headers = response.headers
    if value := headers.get("retry-after-ms"):
        try:
            return float(value) / 1000
        except ValueError:
            return None
    if value := headers.get("retry-after"):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def is_retryable(error: BaseException) -> bool:
    if isinstance(error, (openai.APITimeoutError, openai.APIConnectionError, asyncio.TimeoutError)):
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    # Transport errors raised mid-stream come from the SDK's HTTP library (httpx or its fork).
    return isinstance(error, json.JSONDecodeError) or type(error).__module__.startswith(("httpx", "httpcore"))


def strip_overlap(shown: str, continuation: str) -> str:
    """Drop the start of `continuation` that repeats the end of `shown`."""
    longest = min(len(shown), len(continuation))
    for size in range(longest, MIN_OVERLAP_CHARS - 1, -1):
        if shown.endswith(continuation[:size]):
            return continuation[size:]
    return continuation


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
        if self.rpm is not None:
            await self.rpm.acquire(1)
        if self.tpm is not None:
            await self.tpm.acquire(estimated_tokens)


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
        self._backoff = wait_random_exponential(multiplier=0.5, max=backoff_max)
        self._states = {
            role: [_EndpointState(endpoint, roles, clock, sleep) for endpoint in getattr(roles, role)]
            for role in ("target", "drafter")
        }

    def has(self, role: str) -> bool:
        return bool(self._states.get(role))

    def primary(self, role: str) -> LLMEndpoint:
        return self._states[role][0].config

    async def close(self) -> None:
        for states in self._states.values():
            for state in states:
                await state.close()

    # --- non-streaming calls -------------------------------------------------

    async def chat(
        self,
        role: str,
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
            alternatives = []
            if choice.logprobs is not None and choice.logprobs.content:
                alternatives = [
                    {alt.token: alt.logprob for alt in item.top_logprobs} for item in choice.logprobs.content
                ]
            return ChatResult(choice.message.content or "", alternatives)

        return await self._call_with_fallback(role, kind, _estimate(messages) + max_tokens, ledger, call)

    async def score(
        self, role: str, prompt: Sequence[int], *, ledger: CallLedger, top: int = 5, needed_from: int = 0
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
        role: str,
        kind: str,
        estimated_tokens: int,
        ledger: CallLedger,
        call: Callable[[_EndpointState, CallRecord], Awaitable[T]],
    ) -> T:
        errors = []
        for state in self._states.get(role, []):
            if state.cooldown.resting:
                errors.append(f"{state.config.name}: cooling down")
                continue
            record = CallRecord(role, state.config.name, state.config.model, kind)
            ledger.calls.append(record)
            started = time.perf_counter()
            try:
                result = await self._attempts(
                    state, record, estimated_tokens, functools.partial(call, state, record)
                )
            except Exception as error:  # one endpoint's failure must not end the chain
                record.total_ms = (time.perf_counter() - started) * 1000
                record.error = f"{type(error).__name__}: {error}"[:500]
                state.cooldown.failed()
                errors.append(f"{state.config.name}: {record.error}")
                logger.warning("llm endpoint failed", extra={"role": role, "endpoint": state.config.name})
                continue
            record.total_ms = (time.perf_counter() - started) * 1000
            record.ttft_ms = record.ttft_ms or record.total_ms
            state.cooldown.succeeded()
            return result
        raise LLMUnavailable(f"no {role} endpoint answered: " + "; ".join(errors or ["none configured"]))

    async def _attempts(
        self,
        state: _EndpointState,
        record: CallRecord,
        estimated_tokens: int,
        call: Callable[[], Awaitable[T]],
    ) -> T:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._roles.retries + 1),
            wait=self._wait,
            retry=retry_if_exception(lambda error: self._should_retry(state, error)),
            sleep=self._sleep,
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                record.retries = attempt.retry_state.attempt_number - 1
                await state.admit(estimated_tokens)
                async with state.semaphore:
                    return await self._without_refused(state, call)
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

    def _wait(self, retry_state: RetryCallState) -> float:
        """Honour Retry-After when the server sends one; jittered exponential backoff otherwise."""
        error = retry_state.outcome.exception() if retry_state.outcome else None
        hinted = _retry_after(error) if error is not None else None
        return hinted if hinted is not None else self._backoff(retry_state)

    # --- streaming -----------------------------------------------------------

    async def stream_chat(
        self,
        role: str,
        messages: Sequence[Message],
        *,
        ledger: CallLedger,
        max_tokens: int,
        temperature: float = 0.0,
    ) -> AsyncIterator[str]:
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
                messages=request,  # type: ignore[arg-type]
                stream=True,
                stream_options={"include_usage": True},
                **state.chat_options(max_tokens=max_tokens, temperature=temperature, top_logprobs=None),
            )

        async for delta in self._stream(role, "stream", _estimate(messages) + max_tokens, ledger, open_chat):
            yield delta

    async def stream_completion(
        self,
        role: str,
        prompt: Sequence[int],
        *,
        ledger: CallLedger,
        max_tokens: int,
        temperature: float = 0.0,
    ) -> AsyncIterator[str]:
        """Continuation of token ids (/v1/completions): exactly what the model generates at `temperature`."""

        async def open_completion(state: _EndpointState, shown: str) -> AsyncIterator[Any]:
            ids = list(prompt)
            if shown:
                ids += await self.tokenize(role, text=shown)
            return await state.client.completions.create(  # type: ignore[no-any-return]
                model=state.config.model,
                prompt=ids,
                max_tokens=max(1, max_tokens - (len(ids) - len(prompt))),
                temperature=temperature,
                stream=True,
                stream_options={"include_usage": True},
            )

        async for delta in self._stream(
            role, "completion", len(prompt) + max_tokens, ledger, open_completion
        ):
            yield delta

    async def _stream(
        self,
        role: str,
        kind: str,
        estimated_tokens: int,
        ledger: CallLedger,
        open_stream: Callable[[_EndpointState, str], Awaitable[AsyncIterator[Any]]],
    ) -> AsyncIterator[str]:
        shown = ""
        errors: list[str] = []
        states = [s for s in self._states.get(role, []) if not s.cooldown.resting]
        for state in states:
            record = CallRecord(role, state.config.name, state.config.model, kind)
            ledger.calls.append(record)
            started = time.perf_counter()
            # On a continuation, hold text back until the overlap with what was shown is clear.
            pending: str | None = "" if shown else None
            try:
                stream = await self._attempts(
                    state,
                    record,
                    estimated_tokens,
                    lambda state=state, shown=shown: self._first_chunk(state, open_stream(state, shown)),  # type: ignore[misc]
                )
                async for delta, usage in _deltas(stream, state.config):
                    if usage is not None:
                        _count_usage(record, state.config, usage)
                    if not delta:
                        continue
                    if record.ttft_ms is None:
                        record.ttft_ms = (time.perf_counter() - started) * 1000
                    if pending is not None:
                        pending += delta
                        if len(pending) < OVERLAP_WINDOW_CHARS:
                            continue
                        delta, pending = strip_overlap(shown, pending), None
                    shown += delta
                    yield delta
                if pending:
                    tail = strip_overlap(shown, pending)
                    shown += tail
                    yield tail
            except Exception as error:  # a broken stream goes on at the next endpoint
                record.error = f"{type(error).__name__}: {error}"[:500]
                record.total_ms = (time.perf_counter() - started) * 1000
                state.cooldown.failed()
                errors.append(f"{state.config.name}: {record.error}")
                logger.warning(
                    "llm stream failed",
                    extra={"role": role, "endpoint": state.config.name, "shown_chars": len(shown)},
                )
                continue
            record.total_ms = (time.perf_counter() - started) * 1000
            state.cooldown.succeeded()
            return
        raise LLMUnavailable(f"no {role} endpoint finished the stream: " + "; ".join(errors or ["none"]))

    async def _first_chunk(
        self, state: _EndpointState, opening: Awaitable[AsyncIterator[Any]]
    ) -> _Prefetched:
        """Open the stream and read its first chunk, so a hang or an early error is retried."""

        async def first() -> _Prefetched:
            iterator = (await opening).__aiter__()
            return _Prefetched(await iterator.__anext__(), iterator)

        return await asyncio.wait_for(first(), timeout=state.config.first_token_timeout)

    # --- vLLM's tokenizer endpoints (token-mode verification) ----------------

    async def tokenize(
        self, role: str, *, text: str | None = None, messages: Sequence[Message] | None = None
    ) -> list[int]:
        """Token ids from the model's own tokenizer; with messages, its chat template too."""
        body: dict[str, Any] = {"model": self.primary(role).model}
        if messages is not None:
            body.update(messages=list(messages), add_generation_prompt=True)
        else:
            body.update(prompt=text or "", add_special_tokens=False)
        response = await self._root_client(role).post("/tokenize", cast_to=object, body=body)
        return list(response["tokens"])  # type: ignore[index]

    async def detokenize(self, role: str, tokens: Sequence[int]) -> str:
        body = {"model": self.primary(role).model, "tokens": list(tokens)}
        response = await self._root_client(role).post("/detokenize", cast_to=object, body=body)
        return str(response["prompt"])  # type: ignore[index]

    def _root_client(self, role: str) -> openai.AsyncOpenAI:
        """vLLM serves /tokenize beside /v1, not under it."""
        state = next((s for s in self._states[role] if not s.cooldown.resting), self._states[role][0])
        root = state.config.base_url.rstrip("/").removesuffix("/v1")
        return state.client.with_options(base_url=root)


class _Prefetched:
    """A stream whose first chunk was already read."""

    def __init__(self, first: Any, rest: AsyncIterator[Any]) -> None:
        self._first: Any | None = first
        self._rest = rest

    def __aiter__(self) -> _Prefetched:
        return self

    async def __anext__(self) -> Any:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return await self._rest.__anext__()


class StreamIncomplete(RuntimeError):
    """The stream ended without a finish reason: the connection dropped mid-answer."""


async def _deltas(stream: AsyncIterator[Any], endpoint: LLMEndpoint) -> AsyncIterator[tuple[str, Any]]:
    finished = False
    while True:
        try:
            chunk = await asyncio.wait_for(stream.__anext__(), timeout=endpoint.timeout)
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


def _count_usage(record: CallRecord, endpoint: LLMEndpoint, usage: Any) -> None:
    if usage is None:
        return
    record.prompt_tokens = usage.prompt_tokens or 0
    record.completion_tokens = usage.completion_tokens or 0
    record.cost_usd = endpoint.cost(record.prompt_tokens, record.completion_tokens)


def _estimate(messages: Sequence[Message]) -> int:
    """A cheap upper-ish bound for rate limiting (exact counts are the trimmer's job)."""
    return sum(len(message.get("content", "")) // 2 + 4 for message in messages)


def _token_id(token: str) -> int:
    """vLLM's `return_tokens_as_token_ids` spells tokens `token_id:123`."""
    return int(token.rsplit(":", 1)[-1])
