"""A pytest plugin for `bench.mutations --by-coverage`: each test's lines recorded under its node id.

Loaded with `-p bench.mutation_contexts` in a run under `coverage run`; lines run while
modules are imported keep the empty context.
"""

from __future__ import annotations

from collections.abc import Iterator

import coverage
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    recording = coverage.Coverage.current()
    if recording is not None:
        recording.switch_context(item.nodeid)
    yield
    if recording is not None:
        recording.switch_context("")
