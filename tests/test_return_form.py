"""The return form's decisions (services/returns/form.py), without Telegram: what a typed
answer does at each step."""

from __future__ import annotations

import pytest

from services.returns.form import Act, AskAgain, FormAction, FormStep, OwnReason, ReasonTooLong, read_typed
from services.returns.typed_input import Option

ORDERS = [
    Option("11", ("20240115-001234 (delivered)", "20240115-001234")),
    Option("12", ("20240201-000077",)),
]
REASONS = [Option("size", ("Wrong size", "사이즈가 안 맞아요")), Option("damaged", ("Arrived damaged",))]


@pytest.mark.parametrize(
    ("step", "text", "offered", "outcome"),
    [
        (FormStep.CONFIRM, "네 신청해 주세요", [], Act(FormAction.CONFIRM)),
        (FormStep.CONFIRM, "no thanks", [], Act(FormAction.CANCEL)),
        (FormStep.CONFIRM, "maybe later?", [], AskAgain("return_reprompt_confirm")),
        (FormStep.ORDER, "취소할게요", ORDERS, Act(FormAction.CANCEL)),
        (FormStep.ORDER, "20240201-000077", ORDERS, Act(FormAction.ORDER, "12")),
        (FormStep.ORDER, "the blue one", ORDERS, AskAgain("return_reprompt_choice")),
        (FormStep.REASON, "사이즈가 안 맞아요", REASONS, Act(FormAction.REASON, "size")),
        (
            FormStep.REASON,
            "  the colour is not as pictured ",
            REASONS,
            OwnReason("the colour is not as pictured"),
        ),
        (FormStep.REASON, "x" * 501, REASONS, ReasonTooLong()),
    ],
)
def test_a_typed_answer_does_what_its_step_means(
    step: FormStep, text: str, offered: list[Option], outcome: object
) -> None:
    assert read_typed(step, text, offered) == outcome


def test_every_choice_step_names_its_action() -> None:
    """A typed choice at any step but the last stands for that step's button."""
    from services.returns.form import CHOICE_ACTIONS

    assert set(CHOICE_ACTIONS) == set(FormStep) - {FormStep.CONFIRM}
