"""The connector's cache and circuit breaker, on a clock the test moves."""

from __future__ import annotations

from services.resilience import CircuitBreaker
from services.shop.sources.cache import TTLCache
from tests.clock import ManualClock


def test_cache_answers_until_the_ttl_then_forgets() -> None:
    clock = ManualClock()
    cache = TTLCache(15, max_entries=2, clock=clock)
    cache.put("a", 1)
    clock.now = 14.9
    assert cache.get("a") == (True, 1)
    clock.now = 15.0
    assert cache.get("a") == (False, None)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)  # over max_entries: the oldest goes
    assert cache.get("a") == (False, None) and cache.get("c") == (True, 3)


def test_breaker_opens_after_repeated_failures_and_one_trial_closes_it() -> None:
    clock = ManualClock()
    breaker = CircuitBreaker(threshold=3, cooldown=30, clock=clock)
    for _ in range(2):
        assert breaker.allow()
        breaker.failed()
    breaker.succeeded()  # a success resets the count
    for _ in range(3):
        assert breaker.allow()
        breaker.failed()
    assert breaker.state == "open" and not breaker.allow()
    clock.now = 30
    assert breaker.state == "half-open"
    assert breaker.allow() and not breaker.allow(), "one trial call at a time"
    breaker.failed()  # the trial failed: open for another cooldown
    assert breaker.state == "open"
    clock.now = 60
    assert breaker.allow()
    breaker.succeeded()
    assert breaker.state == "closed" and breaker.allow()
