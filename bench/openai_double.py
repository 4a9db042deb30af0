"""A local OpenAI-compatible server for tests and benchmarks (loopback only).

It speaks the parts of the API csbot uses, over real HTTP, so the real
`openai` client is exercised end to end:
- /v1/chat/completions, streaming or not, with logprobs;
- /v1/completions with echo + logprobs on token ids (vLLM style);
- /tokenize and /detokenize (vLLM's, with a plain chat template).
Answers are scripted per model; each model has a latency profile (time to
first token, tokens per second) and a queue of faults (429 with Retry-After,
500, a hang, a stream cut mid-way, a malformed chunk, 401 for a key).
A "reference" model answers judge prompts by checking whether the judged block
is part of what it would itself have said, answers relevance prompts by
checking whether at least half of what it would say is in the quoted answer,
and scores tokens against its own scripted answer, so draft-then-verify can be
checked for exactness.
"""

from __future__ import annotations

import asyncio
import html
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from services.llm.speculative import split_sentences
from services.llm.tokens import Tokenizer, encoding
from services.llm.wire import chunk_choice, envelope, send_event, serve_on_loopback

EOS_TOKEN = 199_999  # o200k_base's <|endoftext|>
JUDGE_MARKER = "VERDICT"
BLOCK_START, BLOCK_END = "<block>", "</block>"
ANSWER_START, ANSWER_END = "<answer>", "</answer>"
CONTINUE_MARKER = "Continue it exactly where it stops"

FaultKind = Literal["400", "429", "500", "401", "hang", "cut", "malformed"]


def _unquoted(text: str) -> str:
    """The customer's words from a verdict prompt that quotes them as `<question>...</question>`."""
    if "<question>" in text:
        text = html.unescape(text.split("<question>", 1)[1].split("</question>", 1)[0])
    return text


def render_chat(messages: list[dict[str, str]]) -> str:
    """The double's chat template (vLLM would use the model's own)."""
    return "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages) + "<|assistant|>\n"


def covers(answer: str, reference: str) -> bool:
    """The reference model's relevance rule: at least half of its own sentences are in the answer."""
    sentences = [sentence.strip() for sentence in split_sentences(reference) if sentence.strip()]
    return bool(sentences) and 2 * sum(sentence in answer for sentence in sentences) >= len(sentences)


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
class Fault:
    kind: FaultKind
    retry_after: float | None = None
    after_tokens: int = 3
    api_key: str | None = None
    """For 401: only this key is refused."""


@dataclass
class ScriptedModel:
    answer: Callable[[str], str]
    """Reply to a user question (the last user message)."""
    profile: Profile = field(default_factory=Profile)
    faults: deque[Fault] = field(default_factory=deque)
    overlap_on_continue: int = 0
    """Chars of already-shown text a continuation repeats, as real models do."""
    reasoning: bool = False
    """Answer 400 to max_tokens, a temperature other than 1 and logprobs, as OpenAI's reasoning
    models do (they take max_completion_tokens)."""


@dataclass
class RecordedRequest:
    path: str
    body: dict[str, Any]
    api_key: str


class OpenAIDouble:
    def __init__(self, models: dict[str, ScriptedModel], *, time_scale: float = 1.0) -> None:
        self.models = models
        self.time_scale = time_scale
        self.requests: list[RecordedRequest] = []
        self.tokenizer: Tokenizer = encoding("o200k_base")
        self._runner: web.AppRunner | None = None
        self._stopping = asyncio.Event()
        self.base_url = ""

    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_post("/tokenize", self._tokenize)
        app.router.add_post("/detokenize", self._detokenize)
        self._runner, self.base_url = await serve_on_loopback(app, "127.0.0.1")
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

    async def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            await asyncio.sleep(seconds * self.time_scale)

    async def _read(self, request: web.Request) -> tuple[dict[str, Any], ScriptedModel | None, str]:
        body = await request.json()
        key = request.headers.get("Authorization", "").removeprefix("Bearer ")
        self.requests.append(RecordedRequest(request.path, body, key))
        return body, self.models.get(body.get("model", "")), key

    async def _admit(
        self, request: web.Request
    ) -> tuple[dict[str, Any], ScriptedModel | None, Fault | None, web.Response | None]:
        """Read a model request; the error response when the model is unknown or a fault is due."""
        body, model, key = await self._read(request)
        if model is None:
            return body, None, None, web.json_response({"error": {"message": "model not found"}}, status=404)
        fault = self._fault(model, key)
        return body, model, fault, await self._error_for(fault)

    def _fault(self, model: ScriptedModel, key: str) -> Fault | None:
        if model.faults:
            fault = model.faults[0]
            if fault.kind == "401" and fault.api_key not in (None, key):
                return None
            return model.faults.popleft()
        return None

    async def _error_for(self, fault: Fault | None) -> web.Response | None:
        if fault is None or fault.kind in ("cut", "malformed"):
            return None
        if fault.kind == "hang":
            await self._stopping.wait()
        status = int(fault.kind)
        headers = {"retry-after": str(fault.retry_after)} if fault.retry_after is not None else {}
        body = {"error": {"message": f"simulated {status}", "type": "simulated", "code": status}}
        return web.json_response(body, status=status, headers=headers)

    async def _prefill(self, model: ScriptedModel, prompt_tokens: int) -> None:
        await self._sleep(model.profile.ttft)
        if model.profile.prefill_tokens_per_second:
            await self._sleep(prompt_tokens / model.profile.prefill_tokens_per_second)

    # --- chat ----------------------------------------------------------------

    def _reply_text(self, model: ScriptedModel, messages: list[dict[str, str]]) -> tuple[str, bool]:
        """(text, is_judge) for a chat request."""
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        users = [m["content"] for m in messages if m["role"] == "user"]
        if JUDGE_MARKER in system and ANSWER_START in users[-1]:
            question = _unquoted(users[-1].split("QUESTION:", 1)[-1].split("\n", 1)[0].strip())
            quoted = html.unescape(users[-1].split(ANSWER_START, 1)[-1].split(ANSWER_END, 1)[0])
            return ("YES" if covers(quoted, model.answer(question)) else "NO"), True
        if JUDGE_MARKER in system:
            asked = users[-1] if "QUESTION:" in users[-1] else system
            question = _unquoted(asked.split("QUESTION:", 1)[-1].split("\n", 1)[0].strip())
            block = html.unescape(users[-1].split(BLOCK_START, 1)[-1].split(BLOCK_END, 1)[0].strip())
            return ("YES" if block and block in model.answer(question) else "NO"), True
        if users and CONTINUE_MARKER in users[-1]:
            question = users[-2] if len(users) > 1 else ""
            shown = next((m["content"] for m in reversed(messages) if m["role"] == "assistant"), "")
            full = model.answer(question)
            if full.startswith(shown):
                start = max(0, len(shown) - model.overlap_on_continue)
                return full[start:], False
            return full, False
        return model.answer(users[-1] if users else ""), False

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body, model, fault, error = await self._admit(request)
        if error is not None:
            return error
        assert model is not None
        if model.reasoning and (refused := _refused_by_reasoning_models(body)):
            return web.json_response({"error": refused}, status=400)
        messages = body["messages"]
        text, is_judge = self._reply_text(model, messages)
        tokens = self.tokenizer.encode(text)[
            : body.get("max_tokens") or body.get("max_completion_tokens") or None
        ]
        prompt_tokens = len(self.tokenizer.encode(render_chat(messages)))
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(tokens),
            "total_tokens": prompt_tokens + len(tokens),
        }
        await self._prefill(model, prompt_tokens)
        if not body.get("stream"):
            await self._decode_time(model, len(tokens))
            content = self.tokenizer.decode(tokens)
            choice: dict[str, Any] = {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
            if body.get("logprobs"):
                choice["logprobs"] = {"content": [self._chat_logprob(t, is_judge) for t in tokens]}
            return web.json_response(envelope(body, "chat.completion", [choice], usage))
        return await self._stream(request, body, model, tokens, usage, fault)

    def _chat_logprob(self, token: int, is_judge: bool) -> dict[str, Any]:
        text = self.tokenizer.decode([token])
        confident = math.log(0.97 if is_judge else 0.9)
        other = "NO" if text == "YES" else "YES"
        return {
            "token": text,
            "logprob": confident,
            "bytes": None,
            "top_logprobs": [
                {"token": text, "logprob": confident, "bytes": None},
                {"token": other, "logprob": math.log(0.03), "bytes": None},
            ],
        }

    async def _decode_time(self, model: ScriptedModel, count: int) -> None:
        if model.profile.tokens_per_second:
            await self._sleep(count / model.profile.tokens_per_second)

    async def _stream(
        self,
        request: web.Request,
        body: dict[str, Any],
        model: ScriptedModel,
        tokens: list[int],
        usage: dict[str, int],
        fault: Fault | None,
        *,
        completion: bool = False,
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        emitted: list[int] = []
        sent_text = ""
        for index, token in enumerate(tokens):
            if fault is not None and index == fault.after_tokens:
                if fault.kind == "malformed":
                    await response.write(b"data: {not json\n\n")
                if request.transport is not None:
                    request.transport.abort()  # the connection drops mid-answer
                return response
            await self._decode_time(model, 1)
            emitted.append(token)
            text = self.tokenizer.decode(emitted)
            if text.endswith("\ufffd"):
                continue  # wait for the rest of a multibyte character
            delta, sent_text = text[len(sent_text) :], text
            await self._send_chunk(response, body, delta, None, completion)
        await self._send_chunk(response, body, "", "stop", completion)
        if (body.get("stream_options") or {}).get("include_usage"):
            await send_event(response, body, [], completion=completion, usage_=usage)
        await response.write(b"data: [DONE]\n\n")
        return response

    async def _send_chunk(
        self,
        response: web.StreamResponse,
        body: dict[str, Any],
        text: str,
        finish: str | None,
        completion: bool,
    ) -> None:
        await send_event(
            response, body, [chunk_choice(text, finish, completion=completion)], completion=completion
        )

    # --- token scoring (vLLM style) -----------------------------------------

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body, model, fault, error = await self._admit(request)
        if error is not None:
            return error
        assert model is not None
        prompt: list[int] = body["prompt"]
        if not isinstance(prompt, list):
            return web.json_response({"error": {"message": "the double takes token ids"}}, status=400)
        head, marker, _ = self.tokenizer.decode(prompt).rpartition("<|assistant|>\n")
        question = head.rsplit("<|user|>\n", 1)[-1].removesuffix("\n") if marker else ""
        reference = [*self.tokenizer.encode(model.answer(question)), EOS_TOKEN]
        start = len(self.tokenizer.encode(head + marker)) if marker else len(prompt)
        await self._prefill(model, len(prompt))
        if not body.get("echo"):
            offset = max(0, len(prompt) - start)
            tokens = [t for t in reference[offset:] if t != EOS_TOKEN][: body.get("max_tokens") or None]
            usage = {
                "prompt_tokens": len(prompt),
                "completion_tokens": len(tokens),
                "total_tokens": len(prompt) + len(tokens),
            }
            return await self._stream(request, body, model, tokens, usage, fault, completion=True)
        await self._decode_time(model, 1)
        # For each position: what this model would put there, given the prompt so far.
        top: list[dict[str, float] | None] = [None]
        for position in range(1, len(prompt) + 1):
            offset = position - start
            if offset < 0:
                expected = prompt[position]
            else:
                expected = reference[offset] if offset < len(reference) else EOS_TOKEN
            runner_up = 0 if expected == EOS_TOKEN else EOS_TOKEN
            top.append({f"token_id:{expected}": math.log(0.9), f"token_id:{runner_up}": math.log(0.05)})
        generated = int(next(iter(top[-1] or {})).split(":")[1])
        tokens_out = [f"token_id:{t}" for t in [*prompt, generated]]
        logprobs = {
            "tokens": tokens_out,
            "token_logprobs": [None] + [math.log(0.9)] * len(prompt),
            "top_logprobs": top,
            "text_offset": list(range(len(tokens_out))),
        }
        finish = "stop" if generated == EOS_TOKEN else "length"
        choice = {"index": 0, "text": "", "finish_reason": finish, "logprobs": logprobs}
        usage = {"prompt_tokens": len(prompt), "completion_tokens": 1, "total_tokens": len(prompt) + 1}
        return web.json_response(envelope(body, "text_completion", [choice], usage))

    async def _tokenize(self, request: web.Request) -> web.Response:
        body, _, _ = await self._read(request)
        text = render_chat(body["messages"]) if "messages" in body else body["prompt"]
        tokens = self.tokenizer.encode(text)
        return web.json_response({"tokens": tokens, "count": len(tokens), "max_model_len": 32768})

    async def _detokenize(self, request: web.Request) -> web.Response:
        body, _, _ = await self._read(request)
        tokens = [t for t in body["tokens"] if t != EOS_TOKEN]
        return web.json_response({"prompt": self.tokenizer.decode(tokens)})
