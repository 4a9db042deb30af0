"""The console's browser tests: the system's Chromium, or a skip that says how to get one."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from bench.browser import DEFAULT_CHROMIUM, BrowserThread

CHROMIUM_ENV = "CSBOT_CHROMIUM"


def chromium_path() -> str:
    path = os.environ.get(CHROMIUM_ENV) or DEFAULT_CHROMIUM
    if not (os.path.isfile(path) and os.access(path, os.X_OK)) and shutil.which(path) is None:
        pytest.skip(
            f"browser tests skipped: no Chromium at {path} (apt-get install -y chromium, "
            f"or set {CHROMIUM_ENV} to a Chromium binary)"
        )
    return path


def browser_fixture() -> Iterator[BrowserThread]:
    browser = BrowserThread(chromium_path())
    try:
        yield browser
    finally:
        browser.close()
