"""Running a local GGUF model as the bot's target endpoint, on loopback, in this process."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from services.llm.config import LLMEndpoint, RetrievalCheck
from services.llm.tokens import GGUF_PREFIX

if TYPE_CHECKING:
    from services.llm.local.engine import LocalEngine
    from services.llm.local.server import LocalOpenAIServer

logger = logging.getLogger(__name__)


@dataclass
class LocalServer:
    engine: LocalEngine
    server: LocalOpenAIServer
    endpoint: LLMEndpoint

    retrieval_check: ClassVar[RetrievalCheck] = "draft"
    """The bundled 135M model's YES/NO is noise (measured: YES to "Can I pay with bitcoin?" against
    a FAQ that lists cards, no YES to the matching returns entry), so unless the shop chose
    otherwise its replies are its own greedy text, verified token by token."""

    @classmethod
    async def start(cls, model: str) -> LocalServer:
        """`model` is a GGUF path or 'bundled'; the import is lazy because the extra is optional."""
        from services.llm.local.engine import LocalEngine
        from services.llm.local.server import LocalOpenAIServer

        engine = await asyncio.to_thread(LocalEngine, None if model == "bundled" else model)
        server = LocalOpenAIServer(engine, model="local")
        base_url = await server.start()
        logger.info("local model serving as the target", extra={"model": engine.path.name, "url": base_url})
        endpoint = LLMEndpoint(
            base_url=base_url,
            model="local",
            verify="token",
            context_window=engine.n_ctx,
            timeout=120,
            first_token_timeout=120,
            partial_prompt_logprobs=True,
            tokenizer=f"{GGUF_PREFIX}{engine.path}",  # trimming counts with the model's own vocabulary
        )
        return cls(engine, server, endpoint)

    async def close(self) -> None:
        await self.server.stop()
        await asyncio.to_thread(self.engine.close)  # waits for a generation a dropped request left running
