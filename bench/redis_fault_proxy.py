"""A TCP proxy in front of Redis that can freeze, refuse and recover, for the fault bench.

Point `CSBOT_REDIS_URL` at `proxy.url`. `freeze()`: connections stay open and
accepted, but no byte goes either way (a Redis stuck in a long fork or a
network partition: every command waits for its timeout). `refuse()`: open
connections are dropped and new ones are closed at once (Redis restarting).
`restore()`: bytes flow again; a frozen connection resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import contextlib


class RedisFaultProxy:
    def __init__(self, upstream_host: str = "127.0.0.1", upstream_port: int = 6379) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.mode = "open"
        """open, frozen or refusing."""
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.url

    def freeze(self) -> None:
        self.mode = "frozen"
        self._flowing.clear()

    def refuse(self) -> None:
        self.mode = "refusing"
        self._flowing.set()  # frozen bytes are not kept for later: the connections go
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    def restore(self) -> None:
        self.mode = "open"
        self._flowing.set()

    async def close(self) -> None:
        self.refuse()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mode == "refusing":
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.transport.abort()
            return
        self._writers.update((writer, up_writer))
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            for each in (writer, up_writer):
                self._writers.discard(each)
                each.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while chunk := await reader.read(65536):
                await self._flowing.wait()
                if self.mode == "refusing" or writer.transport.is_closing():
                    break
                writer.write(chunk)
                await writer.drain()
        writer.transport.abort()
