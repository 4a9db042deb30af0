"""What every `csbot` command writes to the terminal: results on stdout, one line per problem.

Standard output is piped into `head`, `grep -m1` or `jq` as often as not, and a
reader that stops early is no error. A bad option is one line naming it, like
every other bad input, not argparse's usage block.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn


def emit(text: str) -> None:
    """Write to standard output; a closed pipe ends the output quietly."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's own advice: point stdout at devnull so the interpreter's final flush is quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def emit_line(text: str) -> None:
    emit(text + "\n")


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad option reported in one line (and `--help` pointed at) instead of usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def positive_int(text: str) -> int:
    """An argparse type: a count of at least one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value
