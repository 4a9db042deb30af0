"""llama.cpp's own log lines, into Python logging.

llama-cpp-python prints llama.cpp's log to stderr by level, and reads the levels of the ggml it is
built with one off (a warning counts as an error), so even with `verbose=False` every start wrote
"llama_context: n_ctx_seq (512) > n_ctx_train (0) -- possible training context overflow" to the
console. Here every line goes to the `llama.cpp` logger at DEBUG instead: silent by default, there
for an admin who turns that logger up.
"""

from __future__ import annotations

import ctypes
import logging
from typing import Any

logger = logging.getLogger("llama.cpp")
_callback: Any = None
"""The installed callback, kept alive: llama.cpp holds only a pointer to it."""


def route_native_log() -> None:
    """Send llama.cpp's log to `logger`; call after llama_cpp is imported (its import installs its
    own printer)."""
    global _callback
    if _callback is not None:
        return
    import llama_cpp

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
    def to_logging(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        logger.debug("%s", text.decode("utf-8", "replace").rstrip("\n"))

    llama_cpp.llama_log_set(to_logging, ctypes.c_void_p(0))
    _callback = to_logging
