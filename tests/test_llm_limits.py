"""An endpoint's rest after failures in a row (`services.llm.limits.Cooldown`), on a clock the test
moves."""

from __future__ import annotations

from services.llm.limits import Cooldown
from tests.clock import ManualClock


def test_failures_in_a_row_rest_the_endpoint_and_a_success_starts_the_count_over() -> None:
    clock = ManualClock()
    cooldown = Cooldown(2, 30.0, clock=clock)
    cooldown.failed()
    cooldown.succeeded()
    cooldown.failed()
    assert not cooldown.resting, "not in a row"
    cooldown.failed()
    assert cooldown.resting
    clock.now = 29.9
    assert cooldown.resting
    clock.now = 30.0
    assert not cooldown.resting


def test_after_a_rest_the_count_starts_over() -> None:
    clock = ManualClock()
    cooldown = Cooldown(2, 30.0, clock=clock)
    cooldown.failed()
    cooldown.failed()
    clock.now = 31.0
    cooldown.failed()
    assert not cooldown.resting, "one failure after the rest is not two in a row"
    cooldown.failed()
    assert cooldown.resting


def test_a_rest_the_endpoint_asks_for_is_kept_whole_and_starts_the_count_over() -> None:
    clock = ManualClock()
    cooldown = Cooldown(2, 10.0, clock=clock)
    cooldown.failed()
    cooldown.rest_for(120.0)
    clock.now = 60.0
    cooldown.rest_for(5.0)  # a shorter ask does not cut the longer rest short
    clock.now = 119.0
    assert cooldown.resting
    clock.now = 120.0
    assert not cooldown.resting
    cooldown.failed()
    assert not cooldown.resting, "the failure before the rest is not counted again"
