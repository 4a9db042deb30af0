"""The container runs the commands the tests exercise (Docker itself cannot pull images here).

The Dockerfile's default command and every compose service's command must parse as csbot
commands, and be ones other tests run for real: `chat` (quick start), `run --webhook`
with and without `--set-webhook` (tests/test_run_process.py). The image must not run as
root and must not build the local model runtime.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.cli import _parser

ROOT = Path(__file__).resolve().parent.parent
EXERCISED = {("chat",), ("run", "--webhook"), ("run", "--webhook", "--set-webhook")}


def _dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text(encoding="utf-8")


def _compose_commands() -> dict[str, tuple[str, ...]]:
    commands = {}
    service = None
    for line in (ROOT / "compose.yaml").read_text(encoding="utf-8").splitlines():
        if match := re.match(r"^  ([a-z0-9-]+):\s*$", line):
            service = match.group(1)
        if (match := re.match(r"^\s+command:\s*(\[.*\])\s*$", line)) and service:
            commands[service] = tuple(json.loads(match.group(1)))
    return commands


def test_the_image_runs_csbot_as_a_non_root_user_without_the_local_extra() -> None:
    dockerfile = _dockerfile()
    assert re.search(r'^ENTRYPOINT \["csbot"\]$', dockerfile, re.MULTILINE)
    assert re.search(r"^USER csbot$", dockerfile, re.MULTILINE)
    assert "pip install ." in dockerfile and "[local]" not in dockerfile and "llama" not in dockerfile


@pytest.mark.parametrize(
    "command",
    [
        tuple(json.loads(re.search(r"^CMD (\[.*\])$", _dockerfile(), re.MULTILINE).group(1))),  # type: ignore[union-attr]
        *_compose_commands().values(),
    ],
)
def test_each_container_command_is_a_tested_csbot_command(command: tuple[str, ...]) -> None:
    _parser().parse_args(list(command))  # parses, or argparse exits
    assert command in EXERCISED


def test_two_instances_share_postgres_and_redis_and_one_sets_the_webhook() -> None:
    commands = _compose_commands()
    instances = {name: command for name, command in commands.items() if name.startswith("csbot")}
    assert len(instances) == 2
    assert sum("--set-webhook" in command for command in instances.values()) == 1
    compose = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    assert "CSBOT_DATABASE_URL: postgresql://" in compose and "CSBOT_REDIS_URL: redis://" in compose
