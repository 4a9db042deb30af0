"""The one retry policy (services/resilience.py): back-off bounds, a server's Retry-After, and
stopping before a wait would outlast the time left."""

from __future__ import annotations

from datetime import timedelta
from email.utils import format_datetime

import pytest
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from db.types import utcnow
from services.resilience import Backoff, OutOfTime, budget, retry_after_seconds


def test_backoff_doubles_up_to_its_cap_with_jitter_below_each_ceiling() -> None:
    lowest = Backoff(0.5, 4.0, rng=lambda low, high: low)
    highest = Backoff(0.5, 4.0, rng=lambda low, high: high)
    assert [highest.delay(n) for n in range(1, 7)] == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    assert [lowest.delay(n) for n in range(1, 5)] == [0.25, 0.5, 1.0, 2.0]
    real = Backoff(0.5, 4.0)
    assert all(1.0 <= real.delay(3) <= 2.0 for _ in range(200))


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"Retry-After": "-4"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": ""}, None),
        ({}, None),
    ],
)
def test_retry_after_is_read_in_seconds(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_seconds(headers) == expected


def test_retry_after_as_an_http_date() -> None:
    later = format_datetime(utcnow() + timedelta(seconds=120), usegmt=True)
    waited = retry_after_seconds({"Retry-After": later})
    assert waited is not None and 100 < waited <= 120
    past = format_datetime(utcnow() - timedelta(hours=1), usegmt=True)
    assert retry_after_seconds({"Retry-After": past}) == 0.0


async def test_no_wait_outlasts_the_budget() -> None:
    """Waits of 4 s against a 10 s budget: two are taken (8 s), the third would end at 12 s."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    calls = 0

    async def failing() -> None:
        nonlocal calls
        calls += 1
        raise ConnectionError("down")

    clock = iter(range(0, 1000, 4))  # each attempt starts 4 s after the previous one
    retrying = AsyncRetrying(
        stop=stop_after_attempt(10) | OutOfTime(lambda state: 10.0 - (next(clock))),
        wait=lambda state: 4.0,
        retry=retry_if_exception_type(ConnectionError),
        sleep=sleep,
        reraise=True,
    )
    with pytest.raises(ConnectionError):
        await retrying(failing)
    assert slept == [4.0, 4.0] and calls == 3


async def test_an_infinite_wait_stops_at_once_and_a_budget_counts_from_the_start() -> None:
    calls = 0

    async def failing() -> None:
        nonlocal calls
        calls += 1
        raise ConnectionError("down")

    retrying = AsyncRetrying(
        stop=OutOfTime(budget(60.0)),
        wait=lambda state: float("inf"),
        retry=retry_if_exception_type(ConnectionError),
        reraise=True,
    )
    with pytest.raises(ConnectionError):
        await retrying(failing)
    assert calls == 1
