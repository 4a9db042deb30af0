"""A pytest plugin for `bench.mutations`: each test's lines recorded under its node id.

Loaded with `-p bench.mutation_contexts` in a run under `coverage run`; lines run while
modules are imported keep the empty context. With `CSBOT_MUTATION_DURATIONS` set to a file name,
each test's seconds (setup, call and teardown) are written there as JSON at the end, so that a
mutant's tests get a timeout from what they took on the clean tree.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import coverage
import pytest

DURATIONS = "CSBOT_MUTATION_DURATIONS"
_took: dict[str, float] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
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
