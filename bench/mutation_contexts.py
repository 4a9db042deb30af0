"""A pytest plugin for `bench.mutations`: each test's lines recorded under its node id.

Loaded with `-p bench.mutation_contexts` in a run under `coverage run`; lines run while
modules are imported keep the empty context. With `CSBOT_MUTATION_PACKAGE` set (dotted, e.g.
`services.llm`), the package's memo caches are emptied before each test: a function whose result
is kept for the same arguments would otherwise run for the first test that asks, and its lines be
recorded for that test alone. Loaders (a cache of fewer than 8 entries: a tokenizer, a vocabulary
read from disk) keep theirs. With `CSBOT_MUTATION_DURATIONS` set to a file name,
each test's seconds (setup, call and teardown) are written there as JSON at the end, so that a
mutant's tests get a timeout from what they took on the clean tree.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import coverage
import pytest

DURATIONS = "CSBOT_MUTATION_DURATIONS"
PACKAGE = "CSBOT_MUTATION_PACKAGE"
_took: dict[str, float] = {}


def empty_memo_caches(package: str) -> int:
    """Empty the memo caches of `package`'s modules' functions; how many were emptied."""
    emptied = 0
    for name, module in list(sys.modules.items()):
        if module is None or not (name == package or name.startswith(package + ".")):
            continue
        for value in list(vars(module).values()):
            parameters = getattr(value, "cache_parameters", None)
            if parameters is None or getattr(value, "__module__", None) != name:
                continue
            size = parameters()["maxsize"]
            if size is None or size >= 8:
                value.cache_clear()
                emptied += 1
    return emptied


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    package = os.environ.get(PACKAGE)
    if package:
        empty_memo_caches(package)
    recording = coverage.Coverage.current()
    if recording is not None:
        recording.switch_context(item.nodeid)
    began = time.perf_counter()
    yield
    _took[item.nodeid] = time.perf_counter() - began
    if recording is not None:
        recording.switch_context("")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    target = os.environ.get(DURATIONS)
    if target:
        Path(target).write_text(json.dumps(_took), encoding="utf-8")
