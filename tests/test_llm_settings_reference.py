"""docs/configuration.md lists every key of CSBOT_LLM with its default, the values it takes and what
it means, as the schema (`services/llm/config.py`) has them: a default or a bound changed in one
place and not the other fails here, with the tables as they should read."""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path

import annotated_types
from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo

from services.llm.config import (
    ARM_NAME,
    CanaryArm,
    CanarySchedule,
    GuardRails,
    GuardRule,
    LLMEndpoint,
    LLMRoles,
    known_keys,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
SECTIONS: list[tuple[str, type[BaseModel]]] = [
    ("The top level", LLMRoles),
    ("An endpoint: each item of `target` and `drafter`", LLMEndpoint),
    ("A canary arm: each item of `arms`", CanaryArm),
    ("`guard_rails`, at the top level or in an arm", GuardRails),
    (
        "A guard rule: `error_rate`, `guard_rejection_rate`, `dont_know_rate`, `p95_latency_ms`, "
        "`cost_per_answer_usd`",
        GuardRule,
    ),
    ("`schedule`", CanarySchedule),
]
_OBJECTS: dict[type, str] = {
    LLMEndpoint: "endpoints (below)",
    CanaryArm: "arms (below)",
    GuardRails: "object (below)",
    GuardRule: "a guard rule (below)",
    CanarySchedule: "object (below)",
}
_SIMPLE: dict[type, str] = {int: "integer", float: "number", str: "text", bool: "`true` / `false`"}


def kind(annotation: object) -> str:
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        [only] = [argument for argument in arguments if argument is not type(None)]
        return kind(only)
    if origin is typing.Literal:
        return " / ".join(f"`{value}`" for value in arguments)
    if origin is list:
        [inner] = arguments
        plural = {SecretStr: "secrets", float: "numbers"}.get(inner) or _OBJECTS[inner]  # type: ignore[call-overload]
        return f"list of {plural}"
    assert isinstance(annotation, type)
    return _SIMPLE.get(annotation) or _OBJECTS[annotation]


def values(field: FieldInfo) -> str:
    said = [kind(field.annotation)]
    nullable = type(None) in typing.get_args(field.annotation)
    if nullable and not field.is_required() and field.get_default(call_default_factory=True) is not None:
        said[0] += " or `null`: off"
    for rule in field.metadata:
        if isinstance(rule, annotated_types.Gt):
            said.append(f"> {rule.gt}")
        elif isinstance(rule, annotated_types.Ge):
            said.append(f"≥ {rule.ge}")
        elif isinstance(rule, annotated_types.Le):
            said.append(f"≤ {rule.le}")
        elif isinstance(rule, annotated_types.MinLen):
            said.append(f"at least {rule.min_length}")
        elif getattr(rule, "pattern", None) == ARM_NAME:
            said.append("1-40 of `A-Za-z0-9_.-`, starting with a letter or digit")
        else:
            raise AssertionError(f"a rule the reference cannot say yet: {rule!r}")
    return ", ".join(said)


def default(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "none"
    if isinstance(value, GuardRails):
        return "its keys' defaults"
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def reference() -> str:
    parts = []
    for title, model in SECTIONS:
        rows = [f"### {title}", "", "| key | default | values | meaning |", "|---|---|---|---|"]
        for name, field in model.model_fields.items():
            rows.append(f"| `{name}` | {default(field)} | {values(field)} | {field.description} |")
        parts.append("\n".join(rows))
    return "\n\n".join(parts) + "\n"


def test_the_documented_keys_are_the_schema_s() -> None:
    expected = reference()
    assert expected in DOC.read_text(encoding="utf-8"), (
        f"docs/configuration.md's CSBOT_LLM tables should read:\n\n{expected}"
    )


def test_every_key_is_in_the_reference_once_per_object_that_has_it() -> None:
    named = {name for _, model in SECTIONS for name in model.model_fields}
    assert named == known_keys(), "every object CSBOT_LLM may hold has its table"
    assert all(field.description for _, model in SECTIONS for field in model.model_fields.values())
