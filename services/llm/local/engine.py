"""A GGUF model run in-process by llama-cpp-python (the optional `local` extra).

Shipped configuration, chosen so that speculative decoding is exact and not
only nearly so: the wheel is built with `-DGGML_LLAMAFILE=OFF
-DGGML_CPU_REPACK=OFF`, the tiled K-quant matmul is turned off
(GGML_CPU_TILED_MM=0) before the first decode, and flash attention is off.
With these, logits of a k-token batch are bit-identical to one-at-a-time
logits, so a speculative answer is token for token the plain greedy answer
(tests/test_local_engine.py checks it on the real model). This uses private
attributes of llama-cpp-python to get logits for exactly the positions
needed; the version is pinned in pyproject.toml for that reason.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from services.llm.local.availability import LocalModelUnavailable, bundled_model_path
from services.llm.local.native_log import route_native_log
from services.llm.local.vocabulary import GgufVocabulary

DETERMINISTIC_ENV = {"GGML_CPU_TILED_MM": "0"}


class LocalEngine:
    """Tokenizer, chat template and a forward pass with logits where they are needed."""

    def __init__(
        self, model_path: Path | str | None = None, *, n_ctx: int = 4096, n_threads: int | None = None
    ) -> None:
        """`n_threads`: default, one per core this process may run on."""
        for name, value in DETERMINISTIC_ENV.items():
            os.environ.setdefault(name, value)
        try:
            from llama_cpp import Llama
        except ImportError as error:
            raise LocalModelUnavailable(
                "llama-cpp-python is not installed (pip install 'csbot[local]')"
            ) from error
        route_native_log()
        path = Path(model_path) if model_path is not None else bundled_model_path()
        if not path.exists():
            raise LocalModelUnavailable(f"model file not found: {path}")
        self.path = path
        self.threads = len(os.sched_getaffinity(0)) if n_threads is None else n_threads
        self._llm: Any = Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=self.threads,
            n_threads_batch=self.threads,
            logits_all=False,
            flash_attn=False,
            verbose=False,
        )
        self.n_vocab: int = self._llm.n_vocab()
        self.n_ctx = n_ctx
        self.vocabulary = GgufVocabulary(self._llm)
        """The same tokenizer and template that token counting loads on its own."""
        self._eos = self.vocabulary.eos
        self._end_tokens = self.vocabulary.end_tokens
        self._lock = threading.RLock()
        self._closed = False
        self.writes = object()
        """A token of the KV cache's last change, a new one each change, so a caller keeping a
        cached prefix sees another's use."""

    @property
    def eos(self) -> int:
        return self._eos

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """The model to one caller for a whole decode: the KV cache is one state, and llama.cpp's
        context must never decode from two threads (it crashes the process).

        A generation in a worker thread can outlive the request that started it, so every user
        of the cache (the server, a bare `Decoder`, `close`) goes through here.
        """
        with self._lock:
            yield

    def close(self) -> None:
        """Frees the model once, after any decode still running; a decode queued behind it is then
        refused (`LocalModelUnavailable`) rather than run on freed memory, which kills the process."""
        with self._lock:
            if not self._closed:
                self._llm.close()
                self._closed = True

    def _refuse_if_closed(self) -> None:
        if self._closed:
            raise LocalModelUnavailable("the local model is closed")

    def is_end(self, token: int) -> bool:
        return token in self._end_tokens

    # --- text <-> tokens -----------------------------------------------------

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        return self.vocabulary.encode(text, special=special)

    def detokenize(self, tokens: Sequence[int]) -> str:
        return self.vocabulary.decode(tokens)

    def reply_text(self, tokens: Sequence[int]) -> str:
        """What a reply of `tokens` says: whole characters only."""
        return self.vocabulary.decode(tokens, whole=True)

    def render_chat(self, messages: Sequence[dict[str, str]]) -> list[int]:
        """The model's own chat template from the GGUF, with the assistant turn opened."""
        return self.vocabulary.render(messages)

    # --- the ForwardModel protocol ------------------------------------------

    def truncate(self, n: int) -> None:
        with self._lock:
            self._refuse_if_closed()
            self.writes = object()
            self._llm._ctx.kv_cache_seq_rm(-1, n, -1)

    def forward(self, tokens: Sequence[int], n_past: int, *, all_logits: bool | None = None) -> np.ndarray:
        """Logits for every given position when few (verification), only the last when many (a prompt).

        The output layer over the 49k-token vocabulary is most of the cost of a
        position on this CPU, so a prompt is evaluated without it but for its end.
        """
        if n_past + len(tokens) > self.n_ctx:
            raise ValueError(f"context of {self.n_ctx} tokens exceeded")
        with self._lock:
            return self._forward(tokens, n_past, all_logits)

    def _forward(self, tokens: Sequence[int], n_past: int, all_logits: bool | None) -> np.ndarray:
        self.truncate(n_past)
        all_rows = len(tokens) <= 64 if all_logits is None else all_logits
        rows: list[np.ndarray] = []
        batch_size = self._llm.n_batch
        for start in range(0, len(tokens), batch_size):
            chunk = list(tokens[start : start + batch_size])
            last_chunk = start + batch_size >= len(tokens)
            self._llm._batch.set_batch(batch=chunk, n_past=n_past + start, logits_all=all_rows)
            self._llm._ctx.decode(self._llm._batch)
            if all_rows or last_chunk:
                count = len(chunk) if all_rows else 1
                logits = np.ctypeslib.as_array(self._llm._ctx.get_logits(), shape=(count * self.n_vocab,))
                rows.append(logits.reshape(count, self.n_vocab).copy())
        return np.concatenate(rows) if all_rows else rows[-1]
