"""The local engine behind an OpenAI-compatible HTTP API (vLLM-style extras included).

So the speculative service can use a local model exactly like a remote one:
- /v1/completions on token ids: with `echo` and `logprobs`, the top
  log-probabilities at every prompt position (token mode's one-call
  verification); otherwise a generation, streamed or not;
- /v1/chat/completions: the model's chat template, then speculative decoding;
- /tokenize and /detokenize, as vLLM serves them.
Model calls run one at a time in a worker thread, holding the engine; the
common prefix of consecutive prompts stays in the KV cache and is reused
unless someone else used the engine in between (a generation for a dropped
request runs on after it; the engine's lock keeps others out until it ends).
Bad requests get OpenAI-shaped errors, as vLLM gives them: 404 for another
model's name, 400 for a malformed body, token ids outside the vocabulary or a
prompt longer than the context, so the gateway neither retries them nor
cools the endpoint down for a caller's mistake.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from aiohttp import web

from services.llm.local.decoding import Decoder, _top_logprobs
from services.llm.local.engine import LocalEngine
from services.llm.wire import chunk_choice, envelope, send_event, serve_on_loopback, usage


class _BadRequest(Exception):
    """A request the API refuses; its message is the error's."""

    status = 400


class _NoSuchModel(_BadRequest):
    status = 404


@web.middleware
async def _openai_errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Errors in the shape the OpenAI client reads (message, type, code)."""
    try:
        return await handler(request)
    except _BadRequest as error:
        kind = "NotFoundError" if error.status == 404 else "BadRequestError"
        return _error(error.status, str(error), kind)
    except (KeyError, TypeError, ValueError) as error:  # a body without what the API requires
        return _error(400, f"malformed request: {type(error).__name__}: {error}", "BadRequestError")


def _error(status: int, message: str, kind: str) -> web.Response:
    body = {"error": {"message": message, "type": kind, "param": None, "code": status}}
    return web.json_response(body, status=status)


class LocalOpenAIServer:
    def __init__(self, engine: LocalEngine, *, model: str = "local", speculative: bool = True) -> None:
        self.engine = engine
        self.model = model
        self.speculative = speculative
        self._cached: list[int] = []
        self._cached_at: object = None
        """The engine's `writes` when `_cached` was left in its KV cache."""
        self._decoder = Decoder(engine)
        """One for the server's life: it keeps the pass costs it measured on the first answer."""
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        app = web.Application(middlewares=[_openai_errors])
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/tokenize", self._tokenize)
        app.router.add_post("/detokenize", self._detokenize)
        self._runner, self.base_url = await serve_on_loopback(app, host, port)
        return self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    # --- model work (in a thread, one at a time) -----------------------------

    def _score(self, prompt: list[int], top: int, needed_from: int) -> list[dict[int, float] | None]:
        """Top log-probabilities per position (None before `needed_from`), reusing the cached prefix.

        The output layer over the vocabulary is most of a position's cost here, so
        logits are computed only where the caller reads them.
        """
        with self.engine.exclusive():
            if self._cached_at != self.engine.writes:  # someone else's decode overwrote it
                self._cached = []
            common = 0
            for cached, new in zip(self._cached, prompt, strict=False):
                if cached != new:
                    break
                common += 1
            common = min(common, len(prompt) - 1)
            first_row = max(needed_from - 1, 0)  # the row before a position predicts it
            if common < first_row:
                self.engine.forward(prompt[common:first_row], common, all_logits=False)
                common = first_row
            start = min(common, first_row)
            rows = self.engine.forward(prompt[start:], start, all_logits=True)
            tops: list[dict[int, float] | None] = [None] * (start + 1)
            tops += [_top_logprobs(row, top) for row in rows]
            self._cached = list(prompt)
            self._cached_at = self.engine.writes
            return tops

    def _generate(self, prompt: list[int], max_tokens: int) -> tuple[list[int], bool]:
        with self.engine.exclusive():
            if self.speculative:  # the decoder's draft length follows this machine's pass costs
                tokens, _ = self._decoder.speculative(prompt, max_tokens)
            else:
                tokens, _ = self._decoder.greedy(prompt, max_tokens)
            ended = len(tokens) < max_tokens
            return tokens, ended

    # --- HTTP ----------------------------------------------------------------

    async def _body(self, request: web.Request) -> dict[str, Any]:
        """The JSON body, for this server's model (any other name is a 404, as vLLM answers)."""
        try:
            body = await request.json()
        except ValueError as error:
            raise _BadRequest(f"the body is not JSON: {error}") from None
        if not isinstance(body, dict):
            raise _BadRequest("the body must be a JSON object")
        if body.get("model", self.model) != self.model:
            raise _NoSuchModel(f"The model `{body.get('model')}` does not exist.")
        return body

    def _token_ids(self, prompt: Any, *, may_be_empty: bool = False) -> list[int]:
        if isinstance(prompt, str):
            return self.engine.tokenize(prompt, special=True)
        if not isinstance(prompt, list) or not all(type(t) is int for t in prompt):
            raise _BadRequest("prompt must be a string or a list of token ids")
        if any(not 0 <= t < self.engine.n_vocab for t in prompt):
            raise _BadRequest(f"token ids must be in [0, {self.engine.n_vocab})")
        if not prompt and not may_be_empty:
            raise _BadRequest("the prompt is empty")
        return list(prompt)

    def _room(self, prompt: Sequence[int], max_tokens: int) -> int:
        """`max_tokens`, within what the context leaves after the prompt."""
        left = self.engine.n_ctx - len(prompt)
        if left <= 0:
            raise _BadRequest(
                f"This model's maximum context length is {self.engine.n_ctx} tokens; "
                f"the prompt has {len(prompt)}."
            )
        return max(1, min(max_tokens, left))

    async def _tokenize(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        if "messages" in body:
            tokens = self.engine.render_chat(body["messages"])
        else:
            tokens = self.engine.tokenize(body.get("prompt", ""))
        return web.json_response({"tokens": tokens, "count": len(tokens), "max_model_len": self.engine.n_ctx})

    async def _detokenize(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        return web.json_response(
            {"prompt": self.engine.detokenize(self._token_ids(body["tokens"], may_be_empty=True))}
        )

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        prompt = self._token_ids(body.get("prompt"))
        max_tokens = self._room(prompt, int(body.get("max_tokens") or 16))
        if body.get("echo"):
            top = int(body.get("logprobs") or 1)
            needed_from = int(body.get("prompt_logprobs_from") or 0)
            tops = await asyncio.to_thread(self._score, list(prompt), top, needed_from)
            last = tops[-1]
            assert last is not None  # the row after the prompt is always scored
            best = max(last, key=last.__getitem__)
            names = [f"token_id:{t}" for t in [*prompt, best]]
            logprobs = {
                "tokens": names,
                "token_logprobs": [None]
                + [(tops[i] or {}).get(prompt[i]) for i in range(1, len(prompt))]
                + [last[best]],
                "top_logprobs": [
                    None if t is None else {f"token_id:{k}": v for k, v in t.items()} for t in tops
                ],
                "text_offset": list(range(len(names))),
            }
            finish = "stop" if self.engine.is_end(best) else "length"
            choice = {"index": 0, "text": "", "finish_reason": finish, "logprobs": logprobs}
            usage_ = usage(len(prompt), 1)
            return web.json_response(envelope(body, "text_completion", [choice], usage_))
        tokens, ended = await asyncio.to_thread(self._generate, list(prompt), max_tokens)
        return await self._reply(request, body, tokens, ended, len(prompt), completion=True)

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        prompt = self.engine.render_chat(body["messages"])
        max_tokens = self._room(
            prompt, int(body.get("max_tokens") or body.get("max_completion_tokens") or 256)
        )
        tokens, ended = await asyncio.to_thread(self._generate, prompt, max_tokens)
        return await self._reply(request, body, tokens, ended, len(prompt), completion=False)

    async def _reply(
        self,
        request: web.Request,
        body: dict[str, Any],
        tokens: Sequence[int],
        ended: bool,
        prompt_tokens: int,
        *,
        completion: bool,
    ) -> web.StreamResponse:
        text = self.engine.reply_text(tokens)
        finish = "stop" if ended else "length"
        usage_ = usage(prompt_tokens, len(tokens))
        if not body.get("stream"):
            if completion:
                choice: dict[str, Any] = {"index": 0, "text": text, "finish_reason": finish}
                return web.json_response(envelope(body, "text_completion", [choice], usage_))
            choice = {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": text}}
            return web.json_response(envelope(body, "chat.completion", [choice], usage_))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for piece, reason in ((text, None), ("", finish)):
            await send_event(
                response, body, [chunk_choice(piece, reason, completion=completion)], completion=completion
            )
        if (body.get("stream_options") or {}).get("include_usage"):
            await send_event(response, body, [], completion=completion, usage_=usage_)
        await response.write(b"data: [DONE]\n\n")
        return response
