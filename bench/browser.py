"""Playwright on the system's Chromium, driven from one thread of its own.

Playwright's sync API runs in that thread while the caller's event loop serves the
console, so one browser serves many pages (starting Chromium is the slow part).
Playwright's own browser download needs the internet; Debian's `chromium` does not
(`apt-get install -y chromium`). Used by the console's browser tests and screenshots.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

DEFAULT_CHROMIUM = "/usr/bin/chromium"
T = TypeVar("T")


class BrowserThread:
    """One headless Chromium; `run` calls a function with a fresh page (own cookies) in its thread."""

    def __init__(self, executable: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
        self._executable = executable
        self._playwright: Any = None
        self._browser: Browser | None = None
        self._pool.submit(self._launch).result()

    def _launch(self) -> None:
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(
            executable_path=self._executable, args=["--no-sandbox"], headless=True
        )

    def _with_page(self, action: Callable[[Page], T], width: int, height: int) -> T:
        assert self._browser is not None
        context = self._browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(10_000)
        try:
            return action(context.new_page())
        finally:
            context.close()

    async def run(self, action: Callable[[Page], T], *, width: int = 1280, height: int = 900) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._with_page, action, width, height)

    def close(self) -> None:
        def stop() -> None:
            if self._browser is not None:
                self._browser.close()
            if self._playwright is not None:
                self._playwright.stop()

        self._pool.submit(stop).result()
        self._pool.shutdown()
