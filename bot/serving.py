"""Running a csbot process until it is told to stop, then stopping without losing anything.

Polling or a webhook takes updates in; an inbox worker handles what was stored
and not answered; an optional HTTP server answers the webhook and health checks.
SIGTERM/SIGINT: stop taking updates (the webhook answers 503, polling stops
asking), let in-flight handling finish within the shutdown timeout, give back
what had to be interrupted. The exit code says which it was.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import signal
from collections.abc import Iterable

from aiogram import Bot
from aiogram.types import User
from aiohttp import web

from bot.command_menu import publish_menus
from bot.durable_dispatcher import DurableDispatcher
from bot.http_server import HttpFront
from bot.inbox_worker import InboxWorker
from bot.polling import DurablePoller
from services.settings import ConfigError

logger = logging.getLogger(__name__)


async def serve(
    dispatcher: DurableDispatcher,
    bot: Bot,
    *,
    concurrency: int,
    shutdown_timeout: float,
    poll: bool = True,
    front: HttpFront | None = None,
    listen: tuple[str, int] | None = None,
    admin_ids: Iterable[int] = (),
    me: User | None = None,
) -> int:
    """Serve until SIGTERM/SIGINT; 0 when every update in flight finished, 1 when some were
    interrupted (they stay stored and are handled after the restart). `me` is the getMe answer
    when the caller already asked (csbot run checks the token first): one call, not two."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, _request_stop, stop, signum)
    runner: web.AppRunner | None = None
    worker_task: asyncio.Task[None] | None = None
    try:
        me = me or await bot.get_me()
        await publish_menus(bot, admin_ids)
        if front is not None and listen is not None:
            runner = web.AppRunner(front.application(), access_log=None)
            await runner.setup()
            await listen_on(runner, *listen, setting="CSBOT_HTTP_PORT")
            logger.info("listening", extra={"host": listen[0], "port": listen[1]})
        worker_task = asyncio.create_task(
            InboxWorker(dispatcher, bot).run(stop)
        )  # first: what a restart left
        if poll:
            logger.info("polling Telegram", extra={"bot_id": bot.id, "username": me.username})
            await bot.delete_webhook()  # switching back from a webhook: polling is refused while one is set
            poller = DurablePoller(
                dispatcher,
                bot,
                concurrency=concurrency,
                allowed_updates=dispatcher.resolve_used_update_types(),
            )
            await poller.run(stop)
        else:
            logger.info("serving the webhook", extra={"bot_id": bot.id, "username": me.username})
            await stop.wait()
    finally:
        stop.set()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        if front is not None:
            front.draining = True  # the webhook now answers 503: Telegram sends those again
        interrupted = await dispatcher.drain(within=shutdown_timeout)  # the worker's handling included
        if worker_task is not None:
            await asyncio.wait({worker_task}, timeout=5)
            worker_task.cancel()
        if runner is not None:
            await runner.cleanup()
    if interrupted:
        logger.error(
            "shutdown deadline passed: updates interrupted; stored, they are handled after restart",
            extra={"inbound_ids": interrupted},
        )
        return 1
    logger.info("stopped cleanly: every update in flight was handled")
    return 0


def _request_stop(stop: asyncio.Event, signum: int) -> None:
    logger.info("stop requested; no new updates taken", extra={"signal": signal.Signals(signum).name})
    stop.set()


async def listen_on(runner: web.AppRunner, host: str, port: int, *, setting: str) -> None:
    """Start listening, or stop the start with one line naming the setting: a port another
    program holds, an address this machine does not have."""
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as error:
        in_use = error.errno == errno.EADDRINUSE
        reason = "is already in use" if in_use else f"cannot be used ({error.strerror})"
        raise ConfigError(f"{setting}: port {port} on {host} {reason}") from None
