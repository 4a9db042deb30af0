"""OpenAI wire-format pieces shared by the servers we run ourselves (the local engine, the test double)."""

from __future__ import annotations

import json
import time
from typing import Any

from aiohttp import web


def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def envelope(
    body: dict[str, Any], kind: str, choices: list[Any], usage_: dict[str, int] | None = None
) -> dict[str, Any]:
    wrapped: dict[str, Any] = {
        "id": f"csbot-{time.monotonic_ns()}",
        "object": kind,
        "created": int(time.time()),
        "model": body.get("model"),
        "choices": choices,
    }
    if usage_ is not None:
        wrapped["usage"] = usage_
    return wrapped


def chunk_choice(text: str, finish: str | None, *, completion: bool) -> dict[str, Any]:
    if completion:
        return {"index": 0, "text": text, "finish_reason": finish}
    return {"index": 0, "delta": {"content": text} if text else {}, "finish_reason": finish}


async def send_event(
    response: web.StreamResponse,
    body: dict[str, Any],
    choices: list[Any],
    *,
    completion: bool,
    usage_: dict[str, int] | None = None,
) -> None:
    kind = "text_completion" if completion else "chat.completion.chunk"
    await response.write(f"data: {json.dumps(envelope(body, kind, choices, usage_))}\n\n".encode())


async def serve_on_loopback(
    app: web.Application, host: str = "127.0.0.1", port: int = 0
) -> tuple[web.AppRunner, str]:
    """Start `app`; returns its runner and the /v1 base URL with the port the OS picked."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://{host}:{bound}/v1"
