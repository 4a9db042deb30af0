"""Running `csbot` for a test: in this process through `bot.cli.main(argv)` (the default: no
interpreter start, no aiogram import, no intent model fit per call), or as a real process.

In-process runs get what a process would: their own environment (no CSBOT_ variable of the
test run leaks in), the temporary folder as the working directory (for `.env` and relative
paths), stdin, and stdout/stderr of their own; logging is restored afterwards, so one run's
handlers never write into another's streams.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    stderr: str


def environment(tmp_path: Path, env: dict[str, str]) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CSBOT_", "DATABASE_URL"))}
    return {**clean, "CSBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'shop.db'}", **env}


def csbot_process(tmp_path: Path, *args: str, stdin: str = "", **env: str) -> Result:
    """`python -m bot ARGS` as a user runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment(tmp_path, env),
        timeout=120,
        check=False,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def csbot(tmp_path: Path, *args: str, stdin: str = "", **env: str) -> Result:
    """`csbot ARGS` run by `bot.cli.main` in this process, as if it were its own."""
    from bot.cli import main

    saved_environ, saved_cwd, saved_stdin = dict(os.environ), os.getcwd(), sys.stdin
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    saved_levels = {name: logging.getLogger(name).level for name in logging.root.manager.loggerDict}
    out, err = io.StringIO(), io.StringIO()
    os.environ.clear()
    os.environ.update(environment(tmp_path, env))
    os.chdir(tmp_path)
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit_:  # argparse's usage errors
                code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
        for name, level in saved_levels.items():
            logging.getLogger(name).setLevel(level)
    return Result(code, out.getvalue(), err.getvalue())
