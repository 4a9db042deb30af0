"""A reply's mode is stored as its label (`llm_replies.mode`) and read back by its one inverse."""

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
