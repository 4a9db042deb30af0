"""What an OpenAI-compatible endpoint can do, found by asking it rather than by its name.

Servers that call themselves OpenAI-compatible differ where csbot depends on them: vLLM and
csbot's own local server tokenize (`/tokenize`) and score token ids (`/v1/completions` with `echo`
and `logprobs`), so the target can verify drafts in token mode; llama-cpp-python's server does
neither (its tokenizer is at `/extras/tokenize`, token-id prompts answer 500), sends no usage in
streams, and breaks one of two streams served at once. `probe` asks, with a few replies of one or
two tokens at start: a stream (and whether it carries usage), `/tokenize`, a scored token-id prompt,
two streams at once. The gateway then logs one line per endpoint with what it can and what it
gets (`LLMGateway.probe`): token or judge mode, one stream at a time where two broke each other,
tokens counted here where streams carry no usage.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import openai

from services.llm.config import LLMEndpoint

PROBE_MESSAGES = [{"role": "user", "content": "Say OK."}]
CONCURRENT_STREAMS = 2


@dataclass(frozen=True)
class Capabilities:
    chat: bool
    """A streamed chat reply arrives whole (with its finish reason)."""
    stream_usage: bool
    """Streams end with a usage chunk (`stream_options.include_usage`)."""
    tokenize: bool
    """`/tokenize` beside `/v1` answers with token ids (vLLM, csbot's local server)."""
    token_scoring: bool
    """`/v1/completions` scores a token-id prompt with `echo` and `logprobs` (token mode)."""
    concurrent_streams: bool
    """Two streams served at once both arrive whole."""

    @property
    def token_mode(self) -> bool:
        return self.tokenize and self.token_scoring

    def describe(self) -> str:
        said = {
            "chat": self.chat,
            "usage in streams": self.stream_usage,
            "/tokenize": self.tokenize,
            "token-id scoring": self.token_scoring,
            f"{CONCURRENT_STREAMS} streams at once": self.concurrent_streams,
        }
        return ", ".join(f"{name} {'yes' if able else 'no'}" for name, able in said.items())


async def _streams_whole(
    client: openai.AsyncOpenAI, endpoint: LLMEndpoint, options: dict[str, Any]
) -> tuple[bool, bool]:
    """(arrived whole, carried usage) for one short streamed reply; any error is a no."""
    finished = usage = False
    try:
        stream = await client.chat.completions.create(  # type: ignore[call-overload]
            model=endpoint.model,
            messages=PROBE_MESSAGES,
            stream=True,
            stream_options={"include_usage": True},
            **options,
        )
        async for chunk in stream:
            usage = usage or getattr(chunk, "usage", None) is not None
            finished = finished or any(choice.finish_reason is not None for choice in chunk.choices)
    except (openai.OpenAIError, ValueError):
        return False, False
    return finished, usage


async def _token_ids(root: openai.AsyncOpenAI, endpoint: LLMEndpoint) -> list[int]:
    try:
        answer = await root.post("/tokenize", cast_to=object, body={"model": endpoint.model, "prompt": "OK"})
    except openai.OpenAIError:
        return []
    tokens = answer.get("tokens") if isinstance(answer, dict) else None
    return [int(token) for token in tokens] if isinstance(tokens, list) and tokens else []


async def _scores(client: openai.AsyncOpenAI, endpoint: LLMEndpoint, ids: list[int]) -> bool:
    try:
        response = await client.completions.create(
            model=endpoint.model, prompt=ids, max_tokens=1, temperature=0.0, echo=True, logprobs=1
        )
    except openai.OpenAIError:
        return False
    logprobs = response.choices[0].logprobs if response.choices else None
    return bool(logprobs is not None and logprobs.top_logprobs)


async def probe(
    client: openai.AsyncOpenAI,
    root: openai.AsyncOpenAI,
    endpoint: LLMEndpoint,
    options: Callable[..., dict[str, Any]],
) -> Capabilities:
    """`root`: a client for the server's root (where vLLM serves `/tokenize`); `options(max_tokens=N)`:
    the chat options for a reply of N tokens, in the form this endpoint accepts."""
    limit = endpoint.timeout
    chat, usage = await asyncio.wait_for(_streams_whole(client, endpoint, options(max_tokens=2)), limit)
    ids = await asyncio.wait_for(_token_ids(root, endpoint), limit)
    scoring = bool(ids) and await asyncio.wait_for(_scores(client, endpoint, ids), limit)
    together = chat and all(
        whole
        for whole, _ in await asyncio.wait_for(
            asyncio.gather(
                *(_streams_whole(client, endpoint, options(max_tokens=16)) for _ in range(CONCURRENT_STREAMS))
            ),
            limit,
        )
    )
    return Capabilities(chat, usage, bool(ids), scoring, together)
