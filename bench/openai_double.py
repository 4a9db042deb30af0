"""A local OpenAI-compatible server for tests and benchmarks (loopback only).

It speaks the parts of the API csbot uses, over real HTTP, so the real
`openai` client is exercised end to end:
- /v1/chat/completions, streaming or not, with logprobs;
- /v1/completions with echo + logprobs on token ids (vLLM style);
- /tokenize and /detokenize (vLLM's, with the double's own chat template).

It imports nothing of csbot: its wire format, sentence rule and chat template
are its own, so a change in the code under test cannot silently change what
the double expects. Each model is a *scripted reference model*:
- it knows its answers from a reference table {cue: answer} (a cue is the
  question, found anywhere in what the model reads, newest message first) or
  from a function of the conversation text;
- asked a YES/NO question (instructions that name both words), it judges the
  last quoted span (`<tag>...</tag>`) of the last user message: YES when every
  sentence of it is in its own answer, or when it holds at least half of its
  own answer's sentences;
- asked to go on after an assistant turn that is the start of its answer, it
  continues (repeating `overlap_on_continue` characters, as real models do);
- scoring token ids, it puts its own answer's tokens after the double's
  assistant tag, so draft-then-verify can be checked for exactness.
Extra behaviours (e.g. one that follows instructions found in user text) plug
in per model as functions tried before the reference behaviour.

Faults are chosen per request, not first-in-first-out per model: a queued
fault waits for the first request it applies to (path, API key, streamed or
not, any predicate); stream faults only apply to streamed requests. Slots:
"none" (consumes a slot, answers normally), 400, 401 (for one key), 429
(with Retry-After), 500, a hang before any byte, a cut connection, a
malformed chunk, a stall mid-stream, and a clean end without a finish reason.
"""

from __future__ import annotations

import asyncio
import functools
import html
import json
import math
import re
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import bpe_openai
from aiohttp import web

EOS_TOKEN = 199_999  # o200k_base's <|endoftext|>
END_OF_TEXT = {"o200k_base": EOS_TOKEN, "cl100k_base": 100_257}
MAX_MODEL_LEN = 32_768
"""Each vocabulary's <|endoftext|>: the scripted model's end of answer."""
ASSISTANT_TAG = "<|assistant|>\n"

FaultKind = Literal["none", "400", "429", "500", "401", "hang", "cut", "malformed", "stall", "no_finish"]
STREAM_FAULTS: frozenset[str] = frozenset({"cut", "malformed", "stall", "no_finish"})
"""Faults of a stream in progress: they wait for a streamed request."""

_TEMPLATE_TURN = re.compile(r"<\|(system|user|assistant)\|>\n")
_QUOTED = re.compile(r"<([A-Za-z][\w-]*)>(.*?)</\1>", re.DOTALL)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?。！？])\s+(?=[^a-z0-9])|(?<=[。！？])|\n+")
_YES, _NO = re.compile(r"\bYES\b"), re.compile(r"\bNO\b")


class Encoding(Protocol):
    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: Sequence[int]) -> str: ...


def render_chat(messages: Sequence[Mapping[str, str]]) -> str:
    """The double's chat template (vLLM would use the model's own)."""
    return "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages) + ASSISTANT_TAG


def parse_chat(rendered: str) -> list[dict[str, str]]:
    """The messages back from the double's own template (for prompts sent as token ids)."""
    parts = _TEMPLATE_TURN.split(rendered)
    return [
        {"role": role, "content": content.removesuffix("\n")}
        for role, content in zip(parts[1::2], parts[2::2], strict=True)
    ]


def sentences(text: str) -> list[str]:
    """The double's own sentence rule: a stop, space, then no lower-case word ("2 p.m. on")."""
    return [part.strip() for part in _SENTENCE_BREAK.split(text) if part.strip()]


def _normalised(text: str) -> str:
    return " ".join(html.unescape(text).split()).casefold()


@dataclass(frozen=True)
class ChatRequest:
    """What a model reads: the messages of one chat request."""

    messages: Sequence[Mapping[str, str]]

    @property
    def instructions(self) -> str:
        return "\n".join(m["content"] for m in self.messages if m["role"] == "system")

    @property
    def last_user(self) -> str:
        return next((m["content"] for m in reversed(self.messages) if m["role"] == "user"), "")

    @property
    def text(self) -> str:
        return "\n".join(m["content"] for m in self.messages)

    @property
    def is_yes_no_task(self) -> bool:
        """The instructions ask for a YES or NO (as a real model would read them)."""
        return bool(_YES.search(self.instructions) and _NO.search(self.instructions))

    @property
    def quoted(self) -> str:
        """The last `<tag>...</tag>` span of the last user message (all of it when none), unescaped."""
        spans = _QUOTED.findall(self.last_user)
        return html.unescape(spans[-1][1] if spans else self.last_user).strip()


Behaviour = Callable[[ChatRequest], "str | None"]
"""An extra way a model may react to a request: its reply, or None to let the next one decide."""


def endorses(reference: str, candidate: str) -> bool:
    """The reference model's judgement of quoted text against what it would say itself."""
    own = [_normalised(s) for s in sentences(reference)]
    quoted = [_normalised(s) for s in sentences(candidate)]
    if not own or not quoted:
        return False
    whole = _normalised(candidate)
    if all(any(s in o for o in own) for s in quoted):
        return True
    return 2 * sum(o in whole for o in own) >= len(own)


def _refused_by_reasoning_models(body: dict[str, Any]) -> dict[str, str] | None:
    """The error object OpenAI returns for the first parameter a reasoning model does not take."""
    if "max_tokens" in body:
        message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
        return {
            "message": message,
            "type": "invalid_request_error",
            "param": "max_tokens",
            "code": "unsupported_parameter",
        }
    if body.get("temperature", 1) != 1:
        message = f"Unsupported value: 'temperature' does not support {body['temperature']} with this model. Only the default (1) value is supported."
        return {
            "message": message,
            "type": "invalid_request_error",
            "param": "temperature",
            "code": "unsupported_value",
        }
    if body.get("logprobs"):
        message = "Unsupported parameter: 'logprobs' is not supported with this model."
        return {
            "message": message,
            "type": "invalid_request_error",
            "param": "logprobs",
            "code": "unsupported_parameter",
        }
    return None


@dataclass
class Profile:
    ttft: float = 0.0
    tokens_per_second: float = 0.0
    """0 means instant."""
    prefill_tokens_per_second: float = 0.0
    """Prompt processing speed; 0 means free."""


@dataclass
class RecordedRequest:
    path: str
    body: dict[str, Any]
    api_key: str

    @property
    def streamed(self) -> bool:
        return bool(self.body.get("stream"))


@dataclass
class Fault:
    """One queued fault; it fires on the first request it applies to, then is used up."""

    kind: FaultKind
    retry_after: float | None = None
    after_tokens: int = 3
    """For stream faults: tokens sent before it strikes."""
    api_key: str | None = None
    """Only requests with this key (a refused key for 401)."""
    path: str | None = None
    """Only requests to this path, e.g. "/tokenize"."""
    when: Callable[[RecordedRequest], bool] | None = None
    """Any other condition on the request."""
    stall_seconds: float | None = None
    """For "stall": how long the stream stops (None: until the double stops)."""

    def applies_to(self, request: RecordedRequest) -> bool:
        if self.kind in STREAM_FAULTS and not request.streamed:
            return False
        if self.api_key is not None and request.api_key != self.api_key:
            return False
        if self.path is not None and request.path != self.path:
            return False
        return self.when is None or self.when(request)


Answers = Mapping[str, str] | Callable[[str], str]


@dataclass
class ScriptedModel:
    answer: Answers
    """The reference table {cue: answer}, or a function of the conversation text."""
    profile: Profile = field(default_factory=Profile)
    faults: deque[Fault] = field(default_factory=deque)
    overlap_on_continue: int = 0
    """Chars of already-shown text a continuation repeats, as real models do."""
    reasoning: bool = False
    """Answer 400 to max_tokens, a temperature other than 1 and logprobs, as OpenAI's reasoning
    models do (they take max_completion_tokens)."""
    default: str = "I don't know."
    """The answer when no cue of the table is found."""
    behaviours: list[Behaviour] = field(default_factory=list)
    """Tried in order before the reference behaviour; the first reply that is not None wins."""
    vocabulary: Literal["o200k_base", "cl100k_base"] = "o200k_base"
    """The model's own tokenizer (cl100k_base plays a model whose counts differ from o200k's)."""
    echo_alternatives: bool = True
    """Whether /v1/completions with echo gives each position's alternatives (`top_logprobs`); some
    servers echo the prompt's own log-probabilities only."""
    verdict_confidence: float = 0.97
    """The probability a chat verdict's log-probabilities give the word it answers (YES or NO)."""

    def reference(self, messages: Sequence[Mapping[str, str]]) -> str:
        """What this model would answer to the conversation it reads."""
        if callable(self.answer):
            return self.answer(ChatRequest(messages).text)
        for message in reversed(messages):
            content = _normalised(message["content"])
            found = [(content.rfind(_normalised(cue)), answer) for cue, answer in self.answer.items()]
            best = max(((at, answer) for at, answer in found if at >= 0), default=None, key=lambda f: f[0])
            if best is not None:
                return best[1]
        return self.default

    def reply(self, request: ChatRequest) -> tuple[str, bool]:
        """(text, whether it is a YES/NO verdict) for a chat request."""
        for behaviour in self.behaviours:
            if (text := behaviour(request)) is not None:
                return text, request.is_yes_no_task
        messages = list(request.messages)
        if request.is_yes_no_task:
            # The question is looked for outside the quoted text under judgement.
            last = max(i for i, m in enumerate(messages) if m["role"] == "user")
            spans = list(_QUOTED.finditer(messages[last]["content"]))
            content = messages[last]["content"]
            unquoted = content[: spans[-1].start()] + content[spans[-1].end() :] if spans else ""
            context = [*messages[:last], {"role": "user", "content": unquoted}, *messages[last + 1 :]]
            return ("YES" if endorses(self.reference(context), request.quoted) else "NO"), True
        full = self.reference(messages)
        if len(messages) >= 2 and messages[-2]["role"] == "assistant" and messages[-1]["role"] == "user":
            shown = messages[-2]["content"]
            if shown and full.startswith(shown) and full != shown:
                return full[max(0, len(shown) - self.overlap_on_continue) :], False
        return full, False


class OpenAIDouble:
    def __init__(self, models: dict[str, ScriptedModel], *, time_scale: float = 1.0) -> None:
        self.models = models
        self.time_scale = time_scale
        self.requests: list[RecordedRequest] = []
        self.tokenizer: Encoding = _load_encoding("o200k_base")
        """The default models' vocabulary (a model may have its own: `ScriptedModel.vocabulary`)."""
        self._runner: web.AppRunner | None = None
        self._stopping = asyncio.Event()
        self.base_url = ""

    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_post("/tokenize", self._tokenize)
        app.router.add_post("/detokenize", self._detokenize)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]  # aiohttp keeps the bound socket private
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self.base_url

    async def stop(self) -> None:
        self._stopping.set()
        if self._runner is not None:
            await self._runner.cleanup()

    def calls(self, path: str, model: str | None = None) -> list[RecordedRequest]:
        return [
            r for r in self.requests if r.path == path and (model is None or r.body.get("model") == model)
        ]

    # --- plumbing ------------------------------------------------------------

    def _encoding(self, model: ScriptedModel) -> tuple[Encoding, int]:
        """The model's tokenizer and its end-of-text id."""
        if model.vocabulary == "o200k_base":
            return self.tokenizer, EOS_TOKEN
        return _load_encoding(model.vocabulary), END_OF_TEXT[model.vocabulary]

    async def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            await asyncio.sleep(seconds * self.time_scale)

    async def _admit(
        self, request: web.Request
    ) -> tuple[dict[str, Any], ScriptedModel | None, Fault | None, web.Response | None]:
        """Read a request; the error response when the model is unknown or a fault is due."""
        body = await request.json()
        key = request.headers.get("Authorization", "").removeprefix("Bearer ")
        recorded = RecordedRequest(request.path, body, key)
        self.requests.append(recorded)
        model = self.models.get(body.get("model", ""))
        if model is None:
            message = f"The model `{body.get('model')}` does not exist."
            return body, None, None, _error(404, message, "NotFoundError")
        fault = self._fault(model, recorded)
        return body, model, fault, await self._error_for(fault)

    @staticmethod
    def _fault(model: ScriptedModel, request: RecordedRequest) -> Fault | None:
        for fault in model.faults:
            if fault.applies_to(request):
                model.faults.remove(fault)
                return None if fault.kind == "none" else fault
        return None

    async def _error_for(self, fault: Fault | None) -> web.Response | None:
        if fault is None or fault.kind in STREAM_FAULTS:
            return None
        if fault.kind == "hang":
            await self._stopping.wait()
            return _error(503, "the server is shutting down", "simulated")
        status = int(fault.kind)
        headers = {"retry-after": str(fault.retry_after)} if fault.retry_after is not None else {}
        return _error(status, f"simulated {status}", "simulated", headers)

    async def _prefill(self, model: ScriptedModel, prompt_tokens: int) -> None:
        await self._sleep(model.profile.ttft)
        if model.profile.prefill_tokens_per_second:
            await self._sleep(prompt_tokens / model.profile.prefill_tokens_per_second)

    async def _decode_time(self, model: ScriptedModel, count: int) -> None:
        if model.profile.tokens_per_second:
            await self._sleep(count / model.profile.tokens_per_second)

    # --- chat ----------------------------------------------------------------

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body, model, fault, error = await self._admit(request)
        if error is not None:
            return error
        assert model is not None
        if model.reasoning and (refused := _refused_by_reasoning_models(body)):
            return web.json_response({"error": refused}, status=400)
        messages = body["messages"]
        text, is_verdict = model.reply(ChatRequest(messages))
        enc, _ = self._encoding(model)
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        everything = enc.encode(text)
        tokens = everything[:limit] if limit else everything
        finish = "length" if len(tokens) < len(everything) else "stop"
        prompt_tokens = len(enc.encode(render_chat(messages)))
        if prompt_tokens >= MAX_MODEL_LEN:
            return _error(400, f"the maximum context length is {MAX_MODEL_LEN} tokens", "BadRequestError")
        usage = _usage(prompt_tokens, len(tokens))
        await self._prefill(model, prompt_tokens)
        if not body.get("stream"):
            await self._decode_time(model, len(tokens))
            choice: dict[str, Any] = {
                "index": 0,
                "finish_reason": finish,
                "message": {"role": "assistant", "content": enc.decode(tokens)},
            }
            if body.get("logprobs"):
                confident = model.verdict_confidence if is_verdict else 0.9
                choice["logprobs"] = {"content": [_chat_logprob(enc.decode([t]), confident) for t in tokens]}
            return web.json_response(_envelope(body, "chat.completion", [choice], usage))
        return await self._stream(request, body, model, tokens, finish, usage, fault)

    async def _stream(
        self,
        request: web.Request,
        body: dict[str, Any],
        model: ScriptedModel,
        tokens: list[int],
        finish: str,
        usage: dict[str, int],
        fault: Fault | None,
        *,
        completion: bool = False,
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        kind = "text_completion" if completion else "chat.completion.chunk"

        async def send(choices: list[Any], usage_: dict[str, int] | None = None) -> None:
            event = _envelope(body, kind, choices, usage_)
            await response.write(f"data: {json.dumps(event)}\n\n".encode())

        emitted: list[int] = []
        sent_text = ""
        for index, token in enumerate(tokens):
            if fault is not None and index == fault.after_tokens:
                if fault.kind == "stall":
                    await self._stall(fault)
                elif fault.kind == "no_finish":
                    break
                else:
                    if fault.kind == "malformed":
                        await response.write(b"data: {not json\n\n")
                    if request.transport is not None:
                        request.transport.abort()  # the connection drops mid-answer
                    return response
            await self._decode_time(model, 1)
            emitted.append(token)
            text = self._encoding(model)[0].decode(emitted)
            if text.endswith("\ufffd"):
                continue  # wait for the rest of a multibyte character
            delta, sent_text = text[len(sent_text) :], text
            await send([_chunk_choice(delta, None, completion)])
        if fault is None or fault.kind != "no_finish":
            await send([_chunk_choice("", finish, completion)])
        if (body.get("stream_options") or {}).get("include_usage"):
            await send([], usage)
        await response.write(b"data: [DONE]\n\n")
        return response

    async def _stall(self, fault: Fault) -> None:
        if fault.stall_seconds is None:
            await self._stopping.wait()
        else:
            await self._sleep(fault.stall_seconds)

    # --- token scoring (vLLM style) -----------------------------------------

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body, model, fault, error = await self._admit(request)
        if error is not None:
            return error
        assert model is not None
        prompt = body["prompt"]
        if not isinstance(prompt, list) or not prompt or not all(type(t) is int for t in prompt):
            return _error(400, "the double takes a non-empty list of token ids", "BadRequestError")
        if len(prompt) >= MAX_MODEL_LEN:
            return _error(400, f"the maximum context length is {MAX_MODEL_LEN} tokens", "BadRequestError")
        enc, eos = self._encoding(model)
        try:
            text = _decode(enc, prompt)
        except KeyError:
            return _error(400, "token ids outside the vocabulary", "BadRequestError")
        head, tag, _ = text.rpartition(ASSISTANT_TAG)
        reference = [*enc.encode(model.reference(parse_chat(head + tag))), eos]
        start = len(enc.encode(head + tag)) if tag else len(prompt)
        await self._prefill(model, len(prompt))
        if not body.get("echo"):
            offset = max(0, len(prompt) - start)
            limit = body.get("max_tokens") or 16
            rest = [t for t in reference[offset:] if t != eos]
            tokens = rest[:limit]
            finish = "length" if len(tokens) < len(rest) else "stop"
            usage = _usage(len(prompt), len(tokens))
            return await self._stream(request, body, model, tokens, finish, usage, fault, completion=True)
        await self._decode_time(model, 1)
        # For each position: what this model would put there, given the prompt so far.
        top: list[dict[str, float] | None] = [None]
        for position in range(1, len(prompt) + 1):
            offset = position - start
            if offset < 0:
                expected = prompt[position]
            else:
                expected = reference[offset] if offset < len(reference) else eos
            runner_up = 0 if expected == eos else eos
            top.append({f"token_id:{expected}": math.log(0.9), f"token_id:{runner_up}": math.log(0.05)})
        generated = int(next(iter(top[-1] or {})).split(":")[1])
        tokens_out = [f"token_id:{t}" for t in [*prompt, generated]]
        logprobs = {
            "tokens": tokens_out,
            "token_logprobs": [None] + [math.log(0.9)] * len(prompt),
            "top_logprobs": top if model.echo_alternatives else None,
            "text_offset": list(range(len(tokens_out))),
        }
        finish = "stop" if generated == eos else "length"
        choice = {"index": 0, "text": "", "finish_reason": finish, "logprobs": logprobs}
        return web.json_response(_envelope(body, "text_completion", [choice], _usage(len(prompt), 1)))

    async def _tokenize(self, request: web.Request) -> web.Response:
        body, model, _, error = await self._admit(request)
        if error is not None:
            return error
        assert model is not None
        text = render_chat(body["messages"]) if "messages" in body else body.get("prompt", "")
        tokens = self._encoding(model)[0].encode(text)
        return web.json_response({"tokens": tokens, "count": len(tokens), "max_model_len": MAX_MODEL_LEN})

    async def _detokenize(self, request: web.Request) -> web.Response:
        body, model, _, error = await self._admit(request)
        if error is not None:
            return error
        assert model is not None
        enc, eos = self._encoding(model)
        try:
            return web.json_response({"prompt": _decode(enc, [t for t in body["tokens"] if t != eos])})
        except KeyError:
            return _error(400, "token ids outside the vocabulary", "BadRequestError")


# --- the wire format, written out here on purpose (not shared with csbot) -------


def _error(status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> web.Response:
    body = {"error": {"message": message, "type": kind, "param": None, "code": status}}
    return web.json_response(body, status=status, headers=headers or {})


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def _envelope(
    body: dict[str, Any], kind: str, choices: list[Any], usage: dict[str, int] | None = None
) -> dict[str, Any]:
    wrapped: dict[str, Any] = {
        "id": f"double-{time.monotonic_ns()}",
        "object": kind,
        "created": int(time.time()),
        "model": body.get("model"),
        "choices": choices,
    }
    if usage is not None:
        wrapped["usage"] = usage
    return wrapped


@functools.lru_cache(maxsize=2)
def _load_encoding(name: str) -> Encoding:
    """Loading a vocabulary takes about a second: once per process."""
    encoding: Encoding = bpe_openai.get_encoding(name)
    return encoding


def _decode(encoding: Encoding, tokens: Sequence[int]) -> str:
    """Text of token ids; KeyError for an id outside the vocabulary (negative ones included)."""
    if any(type(t) is not int or t < 0 for t in tokens):
        raise KeyError("token ids are non-negative integers")
    return encoding.decode(tokens)


def _chat_logprob(text: str, probability: float) -> dict[str, Any]:
    """The token said with `probability`, the other verdict word as an alternative."""
    other = "NO" if text == "YES" else "YES"
    return {
        "token": text,
        "logprob": math.log(probability),
        "bytes": None,
        "top_logprobs": [
            {"token": text, "logprob": math.log(probability), "bytes": None},
            {"token": other, "logprob": math.log(0.03), "bytes": None},
        ],
    }


def _chunk_choice(text: str, finish: str | None, completion: bool) -> dict[str, Any]:
    if completion:
        return {"index": 0, "text": text, "finish_reason": finish}
    return {"index": 0, "delta": {"content": text} if text else {}, "finish_reason": finish}
