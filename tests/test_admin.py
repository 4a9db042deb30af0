"""Admin commands work for admins and do not exist for anyone else."""

from __future__ import annotations

import pytest

from db.models import InboundMessage
from services.text.sentences import Language, t
from tests.harness import ADMIN_ID, DEMO_USER_ID, OTHER_USER_ID, Harness


@pytest.mark.parametrize("command", ["/stats", "/logs", f"/conversation {DEMO_USER_ID}"])
async def test_non_admins_get_the_unknown_command_reply(harness: Harness, command: str) -> None:
    assert await harness.say(OTHER_USER_ID, command) == await harness.say(OTHER_USER_ID, "/no_such_command")
    assert await harness.say(OTHER_USER_ID, command) == [t("unknown_command", Language.KO)]


async def test_stats_counts_intents_handoffs_and_latency(harness: Harness) -> None:
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    await harness.say(DEMO_USER_ID, "where is my order?")
    await harness.say(DEMO_USER_ID, "talk to a person")
    [report] = await harness.say(ADMIN_ID, "/stats 24h")
    assert "Messages: 3\n" in report  # customers only: the admin's /stats is not counted
    assert "human 1" in report and "shipping 1" in report and "stock 1" in report
    assert "Hand-offs: 1" in report and "Errors: 0" in report
    assert "p50" in report and "p95" in report


async def test_stats_rejects_a_bad_period(harness: Harness) -> None:
    assert await harness.say(ADMIN_ID, "/stats soon") == [
        "Usage: /stats [period], e.g. /stats 24h, /stats 7d"
    ]


async def test_logs_filters_by_user_and_count(harness: Harness) -> None:
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    await harness.say(OTHER_USER_ID, "hello")
    await harness.say(DEMO_USER_ID, "결제 수단은 뭐가 있나요?")
    [listing] = await harness.say(ADMIN_ID, f"/logs {DEMO_USER_ID} 1")
    assert "결제 수단은 뭐가 있나요?" in listing and "SKU-7890" not in listing
    assert "카카오페이" in listing  # the reply is shown under the message
    [listing] = await harness.say(ADMIN_ID, "/logs 2")
    assert "hello" in listing and "결제" in listing and "SKU-7890" not in listing


async def test_conversation_shows_both_directions_in_order(harness: Harness) -> None:
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    await harness.say(DEMO_USER_ID, "where is my order?")
    [view] = await harness.say(ADMIN_ID, f"/conversation {DEMO_USER_ID}")
    lines = view.splitlines()
    assert "> SKU-7890 재고 있나요?" in lines[0]
    assert "< 린넨 오버셔츠" in lines[1]
    assert "> where is my order?" in lines[2]
    assert len(lines) == 4


async def test_admin_commands_are_logged_too(harness: Harness) -> None:
    await harness.say(ADMIN_ID, "/stats")
    [row] = await harness.rows(InboundMessage)
    assert (row.telegram_user_id, row.route) == (ADMIN_ID, "admin")
