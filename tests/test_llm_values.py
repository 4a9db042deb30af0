"""What the LLM path hands from one part to another is a value: a verdict, a claim, a score, a
request. A reply's parts run as concurrent tasks and caches keep some of them, so none may be
changed after it is made."""

from __future__ import annotations

import dataclasses

import pytest

from services.llm.acceptance import BlockOutcome, TopScores
from services.llm.capabilities import Capabilities
from services.llm.commitments import Commitment
from services.llm.fact_claims import Claim
from services.llm.fact_guard import GuardVerdict
from services.llm.gateway import ChatResult, ScoreResult
from services.llm.products import Mention, Product
from services.llm.reply import AnswerRequest
from services.llm.tokens import TrimResult

VALUES = [
    AnswerRequest,
    BlockOutcome,
    Capabilities,
    ChatResult,
    Claim,
    Commitment,
    GuardVerdict,
    Mention,
    Product,
    ScoreResult,
    TopScores,
    TrimResult,
]


@pytest.mark.parametrize("value", VALUES, ids=[value.__name__ for value in VALUES])
def test_a_value_cannot_be_changed_once_made(value: type) -> None:
    made: object = object.__new__(value)
    for field in dataclasses.fields(value):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, field.name, None)
