"""A small file system to fill up: a tmpfs of a few hundred kilobytes mounted for the bench.

`fill(leave=...)` writes a filler file until only `leave` bytes are free (0: full,
so the next write fails with ENOSPC); `empty()` deletes it. Mounting needs root
(or CAP_SYS_ADMIN); `SmallFileSystem.mount` returns None with the reason when
the machine does not allow it, and the bench says it skipped the fault.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from pathlib import Path


class SmallFileSystem:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.filler = path / "filler"

    @classmethod
    def mount(cls, path: Path, size_kib: int = 512) -> tuple[SmallFileSystem | None, str]:
        path.mkdir(parents=True, exist_ok=True)
        try:
            done = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k,mode=0700", "tmpfs", str(path)],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as error:
            return None, f"cannot mount a tmpfs: {error}"
        if done.returncode != 0:
            return None, f"cannot mount a tmpfs: {done.stderr.strip() or done.returncode}"
        return cls(path), ""

    def free(self) -> int:
        stat = os.statvfs(self.path)
        return stat.f_bavail * stat.f_frsize

    def fill(self, leave: int = 0) -> None:
        """Grow the filler until at most `leave` bytes are free (tmpfs counts whole pages)."""
        with self.filler.open("ab") as filler:
            while (free := self.free()) > leave:
                try:
                    filler.write(b"\0" * max(1, min(free - leave, 1 << 16)))
                    filler.flush()
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    return

    def empty(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.filler.unlink()

    def unmount(self) -> None:
        subprocess.run(["umount", "-l", str(self.path)], capture_output=True, timeout=10, check=False)
