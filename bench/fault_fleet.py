"""The processes of the fault bench: `csbot run` children against a fake Bot API, and the
Telegram side that hands them updates (long polling, or webhook posts retried until a 200).

Each process gets its own port on the fake Bot API server, so a send tells which process
made it, its own HTTP port (`/readyz`) and its own journal file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bench.fake_bot_api import FakeBotAPI
from bench.instances import free_port

SECRET = "fault_bench_secret"
BOT_TOKEN = "123456:fault-bench"
BOT_ID = 123456


class Stuck(RuntimeError):
    """A step the bench waits for did not happen within its time."""


@dataclass
class Instance:
    index: int
    api_url: str
    api_port: int
    http_port: int
    log: Path
    process: asyncio.subprocess.Process | None = None
    starts: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None


@dataclass
class Fleet:
    telegram: FakeBotAPI
    workdir: Path
    environment: dict[str, str]
    """CSBOT_* settings every process shares (database, Redis, timeouts)."""
    webhook: bool
    journal_dir: Path
    instances: list[Instance] = field(default_factory=list)
    ready: set[int] = field(default_factory=set)
    """Indexes of the instances whose last start answered /readyz."""

    async def add(self) -> Instance:
        url = await self.telegram.listen()
        instance = Instance(
            len(self.instances), url, int(url.rsplit(":", 1)[1]), free_port(), self.workdir / "x.log"
        )
        instance.log = self.workdir / f"instance-{instance.index}.log"
        self.instances.append(instance)
        await self.start(instance)
        return instance

    async def start(self, instance: Instance) -> None:
        environment = {k: v for k, v in os.environ.items() if not k.startswith(("CSBOT_", "DATABASE_URL"))}
        environment.update(self.environment)
        environment.update(
            {
                "CSBOT_BOT_TOKEN": BOT_TOKEN,
                "CSBOT_TELEGRAM_API_URL": instance.api_url,
                "CSBOT_HTTP_HOST": "127.0.0.1",
                "CSBOT_HTTP_PORT": str(instance.http_port),
                "CSBOT_JOURNAL_PATH": str(self.journal_dir / f"journal-{instance.index}.jsonl"),
            }
        )
        # The bench's shop is the demo, seeded into its database: served as the demo.
        environment["CSBOT_DEMO_DATABASE_URL"] = environment["CSBOT_DATABASE_URL"]
        arguments = ["-m", "bot", "run", "--demo", "--no-migrate"]
        if self.webhook:
            arguments.append("--webhook")
            environment.update(
                {"CSBOT_WEBHOOK_URL": "https://bot.example/hook", "CSBOT_WEBHOOK_SECRET": SECRET}
            )
        self.ready.discard(instance.index)
        log = await asyncio.to_thread(instance.log.open, "ab")
        try:
            instance.process = await asyncio.create_subprocess_exec(
                sys.executable, *arguments, cwd=self.workdir, env=environment, stdout=log, stderr=log
            )
        finally:
            log.close()
        instance.starts += 1

    async def wait_ready(self, instance: Instance, within: float = 240) -> None:
        """Until its /readyz answers 200 (it imports, reads the catalogue and warms up first: tens of
        seconds on a busy 2-core machine)."""
        try:
            async with aiohttp.ClientSession() as http, asyncio.timeout(within):
                while True:
                    if not instance.alive:
                        raise Stuck(f"instance {instance.index} exited at start: {self.tail(instance)}")
                    with contextlib.suppress(aiohttp.ClientError):
                        async with http.get(f"{instance.base}/readyz") as response:
                            if response.status == 200:
                                self.ready.add(instance.index)
                                return
                    await asyncio.sleep(0.2)
        except TimeoutError:
            raise Stuck(f"instance {instance.index} not ready within {within:.0f} s") from None

    async def stop(self, instance: Instance, signum: int = signal.SIGTERM) -> int | None:
        self.ready.discard(instance.index)
        process = instance.process
        if process is None or process.returncode is not None:
            return process.returncode if process is not None else None
        process.send_signal(signum)
        try:
            return await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            return await process.wait()

    async def restart(self, instance: Instance, signum: int) -> int | None:
        code = await self.stop(instance, signum)
        await self.start(instance)
        await self.wait_ready(instance)
        return code

    async def close(self) -> None:
        await asyncio.gather(*(self.stop(instance) for instance in self.instances))

    def by_port(self, api_port: int) -> Instance | None:
        return next((instance for instance in self.instances if instance.api_port == api_port), None)

    @staticmethod
    def tail(instance: Instance, lines: int = 15) -> str:
        try:
            return "\n".join(instance.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@dataclass
class WebhookTelegram:
    """Telegram's webhook side: each update is posted until some instance answers 200, a chat's
    next update only once its previous one was accepted; a refused or dropped post is tried
    again after a pause on the next ready instance."""

    fleet: Fleet
    accepted: set[int] = field(default_factory=set)
    posts: int = 0
    refusals: dict[str, int] = field(default_factory=dict)
    """Posts not answered 200, by status (or the connection error)."""
    errors: list[str] = field(default_factory=list)
    """Posting tasks that failed (a bench bug, reported rather than lost)."""
    _chat_locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _turn: int = 0
    _http: aiohttp.ClientSession | None = None
    _slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(12))

    def deliver(self, *updates: dict[str, Any]) -> None:
        for update in updates:
            task = asyncio.create_task(self._post(update))
            self._tasks.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.errors.append(repr(task.exception()))

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._http is not None:
            await self._http.close()

    @property
    def waiting(self) -> int:
        return len(self._tasks)

    async def _post(self, update: dict[str, Any]) -> None:
        if self._http is None:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        chat = _chat_of(update)
        lock = self._chat_locks.setdefault(chat, asyncio.Lock())
        async with lock, self._slots:
            while True:
                ready = [i for i in self.fleet.instances if i.index in self.fleet.ready and i.alive]
                if ready:
                    self._turn += 1
                    instance = ready[self._turn % len(ready)]
                    self.posts += 1
                    try:
                        async with self._http.post(
                            f"{instance.base}/hook",
                            json=update,
                            headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
                        ) as response:
                            if response.status == 200:
                                self.accepted.add(int(update["update_id"]))
                                return
                            reason = str(response.status)
                    except (aiohttp.ClientError, TimeoutError) as error:
                        reason = type(error).__name__
                    self.refusals[reason] = self.refusals.get(reason, 0) + 1
                await asyncio.sleep(0.5)


@dataclass
class PollingTelegram:
    """Telegram's getUpdates side: the fake Bot API keeps an update until an offset confirms it."""

    telegram: FakeBotAPI

    def deliver(self, *updates: dict[str, Any]) -> None:
        self.telegram.deliver(*updates)

    @property
    def waiting(self) -> int:
        return len(self.telegram._pending)

    async def close(self) -> None:
        return None


def _chat_of(update: dict[str, Any]) -> int:
    if "message" in update:
        return int(update["message"]["chat"]["id"])
    if "callback_query" in update:
        query = update["callback_query"]
        return int((query.get("from") or query.get("from_user") or {}).get("id", 0))
    return 0
