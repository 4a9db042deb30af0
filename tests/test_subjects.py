"""The subject check's decision by meaning at its edges, with an encoder whose similarities are
set exactly (`services.llm.subjects`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from services.llm.subjects import MARGIN, MIN_CLOSE, SubjectCheck
from services.understanding.encoder import SentenceEncoder

SOURCES = "Gift wrapping: 2,000원 per item.\nShipping: 3,000원 per order."


class Fixed(SentenceEncoder):
    """Wrapping's unit is one axis, shipping's another; every reply text is `reply`."""

    def __init__(self, reply: np.ndarray) -> None:
        self._reply = reply

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.encode_one(text) for text in texts])

    def encode_one(self, text: str) -> np.ndarray:
        if "wrapping" in text:
            return np.array([1.0, 0.0, 0.0])
        if "Shipping" in text:
            return np.array([0.0, 1.0, 0.0])
        return self._reply


def said_near(wrapping: float, shipping: float) -> np.ndarray:
    return np.array([wrapping, shipping, math.sqrt(1 - wrapping**2 - shipping**2)])


@pytest.mark.parametrize(
    ("wrapping", "misplaced"),
    [
        (MIN_CLOSE, True),  # as near as the floor: near enough to say what the clause is about
        (MIN_CLOSE - 0.01, False),  # below it: nothing is decided
    ],
)
def test_a_number_is_said_of_another_subject_from_the_floor_up(wrapping: float, misplaced: bool) -> None:
    """ "It costs 3,000원." read nearer wrapping (2,000원) than shipping (3,000원) by more than the
    margin says the shipping fee of wrapping, once wrapping is at least `MIN_CLOSE` near."""
    shipping = wrapping - MARGIN - 0.05
    check = SubjectCheck(SOURCES, encoder=Fixed(said_near(wrapping, shipping)))
    assert [claim.text for claim in check.misplaced("It costs 3,000원.")] == (
        ["3,000원"] if misplaced else []
    )
