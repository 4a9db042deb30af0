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
import re
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


SECRET_SETTINGS = ("CSBOT_BOT_TOKEN", "CSBOT_WEBHOOK_SECRET", "CSBOT_CONSOLE_SECRET", "CSBOT_SHOP_API_TOKEN")


def secrets_of(env: dict[str, str]) -> list[str]:
    """The secret values a run was given: none may appear in what it printed or logged."""
    found = [env[name] for name in SECRET_SETTINGS if env.get(name, "").strip()]
    llm = env.get("CSBOT_LLM", "")
    found += re.findall(r'"api_keys"\s*:\s*\[\s*"([^"]+)"', llm)
    return [secret.strip() for secret in found if len(secret.strip()) >= 8]


def assert_no_secrets(result: Result, env: dict[str, str]) -> Result:
    """Every run through these helpers (most of the suite's `csbot` runs) is held to it."""
    for secret in secrets_of(env):
        for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
            assert secret not in text, f"a secret ({secret[:4]}...) appears in the run's {name}"
    return result


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
    return assert_no_secrets(Result(done.returncode, done.stdout, done.stderr), env)


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
    return assert_no_secrets(Result(code, out.getvalue(), err.getvalue()), env)
