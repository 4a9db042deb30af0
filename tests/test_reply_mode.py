"""A reply's stored labels: its mode (`llm_replies.mode`, read back by its one inverse) and its route."""

from __future__ import annotations

import itertools

import pytest

from services.llm.reply import ReplyMode, Step


@pytest.mark.parametrize(
    ("step", "rejected", "fell_back"), list(itertools.product(list(Step), [False, True], [False, True]))
)
def test_every_mode_reads_back_from_its_label(step: Step, rejected: bool, fell_back: bool) -> None:
    mode = ReplyMode(step, faq_rejected=rejected, fell_back=fell_back)
    assert ReplyMode.from_label(mode.label) == mode


@pytest.mark.parametrize(
    ("label", "checked", "confirmed"),
    [
        ("relevance", True, True),
        ("relevance+fallback", True, False),
        ("relevance>token", True, False),
        ("relevance>target+fallback", True, False),
        ("token", False, False),
        ("retrieval", False, False),
    ],
)
def test_checked_and_confirmed_faq_text(label: str, checked: bool, confirmed: bool) -> None:
    mode = ReplyMode.from_label(label)
    assert (mode.faq_checked, mode.faq_confirmed) == (checked, confirmed)


def test_the_routes_the_database_queries_name_are_reply_routes() -> None:
    """db/repositories/logs.py filters on route values it cannot import from services: they must be
    the values the handlers store."""
    from db.repositories.logs import HANDOFF_OPENED, STAFF_ROUTE, WITH_A_PERSON_ROUTES
    from services.replies import AnswerSource, ReplyRoute

    assert ReplyRoute(STAFF_ROUTE) is ReplyRoute.STAFF
    assert HANDOFF_OPENED == (ReplyRoute.HUMAN, AnswerSource.HANDOFF)
    assert {ReplyRoute(route) for route in WITH_A_PERSON_ROUTES} == {
        ReplyRoute.HUMAN,
        ReplyRoute.HANDOFF_RELAY,
    }
    assert all(route.startswith(STAFF_ROUTE) for route in ReplyRoute if "staff" in route)
