"""A process appending to a journal (and, when asked, reading and discarding it), for the
two-process test in tests/test_journal.py: a module of its own, so a spawned child imports
only the journal."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from db.journal import Journal


def appender(path: str, name: str, count: int, discard_every: int, taken_path: str, start: Any) -> None:
    async def run() -> list[str]:
        journal = Journal(Path(path))
        taken: list[str] = []
        start.wait()
        for n in range(count):
            await journal.append({"type": "test", "by": name, "n": n})
            if discard_every and n % discard_every == discard_every - 1:
                batch = await journal.read()
                assert await journal.discard(batch)
                taken.extend(json.dumps(entry.record) for entry in batch.entries)
        return taken

    Path(taken_path).write_text("".join(line + "\n" for line in asyncio.run(run())))
