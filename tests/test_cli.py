"""The `csbot` command as a user runs it (SQLite in a temporary folder).

Most cases run `bot.cli.main` in this process (tests/cli_runner.py); those about the process
itself (start-up, stdin, what an installed `csbot` imports) run it as a real one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import csbot, csbot_process


@pytest.mark.process
def test_classify_prints_one_json_object(tmp_path: Path) -> None:
    result = csbot_process(tmp_path, "classify", "주문번호 20240115-001234 배송状況教えてください")
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed.pop("confidence") > 0.5
    assert printed == {"intent": "shipping", "entities": {"order_numbers": ["20240115-001234"]}}
    assert not (tmp_path / "shop.db").exists(), "classifying must not create a database"


def test_classify_reads_stdin_line_by_line(tmp_path: Path) -> None:
    result = csbot(tmp_path, "classify", stdin="SKU-7890 재고?\n상담원 연결해 주세요\n결제 수단\n")
    assert [json.loads(line)["intent"] for line in result.stdout.splitlines()] == ["stock", "human", "faq"]


def test_evaluate_prints_precision_and_recall(tmp_path: Path) -> None:
    data = Path(__file__).parent / "data" / "intents.tsv"
    result = csbot(tmp_path, "classify", "--evaluate", str(data))
    assert result.returncode == 0
    assert result.stdout.splitlines()[0].split() == ["intent", "precision", "recall", "support"]
    assert "accuracy" in result.stdout


@pytest.mark.process
def test_scripted_chat_then_logs_and_stats(tmp_path: Path) -> None:
    chat = csbot_process(tmp_path, "chat", stdin="SKU-7890 재고 있나요?\n주문 20240115-001234 배송 조회\n")
    assert chat.returncode == 0, chat.stderr
    replies = [block for block in chat.stdout.split("\n\n") if block.strip()]
    assert len(replies) == 2
    assert "SKU-7890" in replies[0] and "6523-1188-4410" in replies[1]
    assert not (tmp_path / "shop.db").exists(), "the demo lives in its own database, never the shop's"

    demo = {"CSBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'csbot-demo.db'}"}
    logs = csbot(tmp_path, "logs", "--json", "--intent", "shipping", **demo)
    [row] = [json.loads(line) for line in logs.stdout.splitlines()]
    assert row["text"] == "주문 20240115-001234 배송 조회" and "6523-1188-4410" in row["replies"][0]

    stats = json.loads(csbot(tmp_path, "stats", "--json", **demo).stdout)
    assert stats["messages"] == 2 and stats["intents"] == {"stock": 1, "shipping": 1}


def test_seed_is_idempotent(tmp_path: Path) -> None:
    assert csbot(tmp_path, "db", "upgrade").stdout.strip() == "database is at the latest schema"
    assert csbot(tmp_path, "db", "seed-demo").stdout.strip() == "demo data created"
    assert csbot(tmp_path, "db", "seed-demo").stdout.strip() == "demo data already present"


def test_run_without_token_names_the_variable(tmp_path: Path) -> None:
    result = csbot(tmp_path, "run")
    assert result.returncode == 2
    assert "CSBOT_BOT_TOKEN is not set" in result.stderr


@pytest.mark.parametrize(("variable", "value"), [("CSBOT_ADMIN_IDS", "one,two"), ("CSBOT_LOG_FORMAT", "xml")])
def test_bad_configuration_stops_at_start(tmp_path: Path, variable: str, value: str) -> None:
    result = csbot(tmp_path, "chat", **{variable: value})
    assert result.returncode == 2
    assert variable in result.stderr and "Traceback" not in result.stderr


def test_unreachable_database_is_one_clear_line(tmp_path: Path) -> None:
    result = csbot(tmp_path, "stats", CSBOT_DATABASE_URL="postgresql://nobody@127.0.0.1:1/none")
    assert result.returncode == 2
    assert "CSBOT_DATABASE_URL: cannot reach the database" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.process
def test_the_quick_start_needs_no_local_extra(tmp_path: Path) -> None:
    """`./dev chat` installs without the `local` extra: nothing on its path may import llama_cpp.

    (numpy is a core dependency since the sentence encoder; the compiled runtime is not.)
    """
    code = (
        "import sys; sys.modules['llama_cpp'] = None\n"
        "import bot.app, bot.local_chat, bot.cli\n"
        "from services.llm.local.availability import local_generation_available\n"
        "print(local_generation_available())"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({}, "CSBOT_WEBHOOK_URL"),
        ({"CSBOT_WEBHOOK_URL": "https://bot.example/hook"}, "CSBOT_WEBHOOK_SECRET"),
        (
            {"CSBOT_WEBHOOK_URL": "https://bot.example/hook", "CSBOT_WEBHOOK_SECRET": "no spaces!"},
            "CSBOT_WEBHOOK_SECRET",
        ),
    ],
)
def test_webhook_settings_fail_fast_in_one_line(tmp_path: Path, env: dict[str, str], named: str) -> None:
    result = csbot(tmp_path, "run", "--webhook", CSBOT_BOT_TOKEN="1:x", **env)
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert named in line
    assert not (tmp_path / "shop.db").exists(), "nothing was created before the settings were checked"
