"""Arrays computed from texts (their embeddings, a model fitted on them), kept on disk by what
they were computed from, so a process start or an index rebuild of unchanged texts reads them.

Keys are a digest of everything the array depends on (the texts, what was done to them, the
encoder's name and version); a missing, unreadable or damaged file is computed again and
rewritten atomically, so a cache can only cost time, never change an answer. The folder is
$CSBOT_CACHE_DIR, else $XDG_CACHE_HOME/csbot, else ~/.cache/csbot; an unwritable one is one
warning line and no cache.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)


def cache_dir() -> Path:
    base = os.environ.get("CSBOT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "csbot"
    )
    return Path(base) / "vectors"


def digest(parts: Iterable[str]) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode("utf-8"))
        hasher.update(b"\0")
    return hasher.hexdigest()


_warned = False


def cached(key: str, rows: int, compute: Callable[[], np.ndarray]) -> np.ndarray:
    """The array stored under `key` when it has `rows` rows, else `compute()`, stored."""
    global _warned
    path = cache_dir() / f"{key}.npy"
    try:
        stored: np.ndarray = np.load(path, allow_pickle=False)
        if stored.shape[0] == rows:
            return np.asarray(stored)
    except (OSError, ValueError):
        pass
    array = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        with partial.open("wb") as handle:
            np.save(handle, array, allow_pickle=False)
        partial.replace(path)
    except OSError as error:
        if not _warned:
            _warned = True
            logger.warning(
                "vector cache not written", extra={"folder": str(path.parent), "error": str(error)}
            )
    return array
