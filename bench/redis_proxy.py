"""A TCP proxy on loopback in front of a real Redis, to freeze it or make it refuse on demand.

Point the bot (or a client) at `proxy.url` instead of Redis itself; bytes are
forwarded both ways until told otherwise:

- `freeze()`: connections stay open and new ones are accepted, but no byte moves
  either way (a Redis stuck in a long command, a network partition without
  resets). Clients wait until their own timeouts. What was in flight is held and
  delivered after `restore()`, as TCP would once the network heals.
- `refuse()`: the listening socket is closed and every connection dropped
  (Redis down, the port refusing connections).
- `restore()`: forwarding again, listening again on the same port.

`accepted` counts connections made to the proxy, `forwarded` the chunks it passed
on, so a test can tell how often a client tried. Used by the outgoing limiter's
fail-open tests and the fault bench.

    proxy = RedisProxy("127.0.0.1", 6379)
    await proxy.start()
    client = redis.asyncio.Redis.from_url(proxy.url)
    proxy.freeze(); ...; await proxy.restore()
    await proxy.close()
"""

from __future__ import annotations

import asyncio
import contextlib


class RedisProxy:
    def __init__(self, upstream_host: str = "127.0.0.1", upstream_port: int = 6379, *, db: int = 0) -> None:
        self._upstream = (upstream_host, upstream_port)
        self._db = db
        self._server: asyncio.Server | None = None
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._pumps: set[asyncio.Task[None]] = set()
        self.port = 0
        self.accepted = 0
        self.forwarded = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/{self._db}"

    @property
    def frozen(self) -> bool:
        return not self._flowing.is_set()

    @property
    def refusing(self) -> bool:
        return self._server is None

    async def start(self) -> str:
        """Listen (on a free port the first time, on the same one after `refuse`); the URL."""
        self._server = await asyncio.start_server(self._connected, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.url

    def freeze(self) -> None:
        self._flowing.clear()

    async def refuse(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        await self._drop_connections()
        if server is not None:
            await server.wait_closed()

    async def restore(self) -> None:
        self._flowing.set()
        if self._server is None:
            await self.start()

    async def close(self) -> None:
        self._flowing.set()
        await self.refuse()

    async def _connected(self, client_reader: asyncio.StreamReader, client: asyncio.StreamWriter) -> None:
        self.accepted += 1
        self._writers.add(client)
        try:
            upstream_reader, upstream = await asyncio.open_connection(*self._upstream)
        except OSError:
            client.transport.abort()
            self._writers.discard(client)
            return
        self._writers.add(upstream)
        for reader, writer in ((client_reader, upstream), (upstream_reader, client)):
            pump = asyncio.create_task(self._pump(reader, writer))
            self._pumps.add(pump)
            pump.add_done_callback(self._pumps.discard)

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                await self._flowing.wait()  # frozen: held here, the connection left open
                if writer.is_closing():
                    break
                writer.write(data)
                await writer.drain()
                self.forwarded += 1
        except (ConnectionError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            writer.transport.abort()  # one side gone: the other goes too, as with a real socket

    async def _drop_connections(self) -> None:
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()
        pumps = list(self._pumps)
        for pump in pumps:
            pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*pumps, return_exceptions=True)
