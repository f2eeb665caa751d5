"""Completion validation: every violation is a reason (path and rule), never the text."""

from __future__ import annotations

import pytest

from companion_memory.agent.model.provider import ModelOutputError
from companion_memory.agent.model.schema_tools import parse_completion, schema_key, validate_json

SCHEMA = {
    "type": "object",
    "properties": {
        "actions": {
            "type": "array",
            "maxItems": 2,
            "items": {
                "type": "object",
                "properties": {
                    "op": {"enum": ["add", "ignore"]},
                    "id": {"type": "string", "maxLength": 4},
                    "n": {"type": "integer", "minimum": 0},
                },
                "required": ["op", "id"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["actions"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ({"actions": [{"op": "add", "id": "m1"}]}, None),
        ({}, "$: missing required field 'actions'"),
        ({"actions": [{"op": "drop", "id": "m1"}]}, "$.actions[0].op: not one of the 2"),
        ({"actions": [{"op": "add", "id": "secret-text"}]}, "$.actions[0].id: string longer"),
        ({"actions": [{"op": "add", "id": "m1", "x": 1}]}, "$.actions[0]: unexpected field 'x'"),
        ({"actions": [{"op": "add", "id": "a"}] * 3}, "$.actions: more than 2 items"),
        ({"actions": [{"op": "add", "id": "a", "n": True}]}, "$.actions[0].n: expected integer"),
        ({"actions": [{"op": "add", "id": "a", "n": -1}]}, "$.actions[0].n: below minimum 0"),
        ({"actions": "all"}, "$.actions: expected array, got str"),
    ],
)
def test_validate_json_reports_the_first_violation(value: object, reason: str | None) -> None:
    problem = validate_json(value, SCHEMA)
    if reason is None:
        assert problem is None
    else:
        assert problem is not None and problem.startswith(reason)
        assert "secret-text" not in problem


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "empty completion"), ("   ", "empty completion"), ("{'a': 1}", "not valid JSON"),
     ('{"actions": []', "not valid JSON"), ('{"actions": [], "more": 1}', "unexpected field")],
)
def test_parse_completion_raises_output_errors(text: str, message: str) -> None:
    with pytest.raises(ModelOutputError, match=message):
        parse_completion(text, SCHEMA)


def test_schema_key_is_canonical() -> None:
    first = schema_key({"b": 1, "a": {"d": 2, "c": 3}})
    assert first == schema_key({"a": {"c": 3, "d": 2}, "b": 1})


def test_a_model_made_key_with_text_never_reaches_the_error() -> None:
    """A model that echoes notification text as a field name must not leak it."""
    with pytest.raises(ModelOutputError) as caught:
        parse_completion('{"actions": [], "Pay Bob 40 EUR": 1}', SCHEMA)
    assert "Pay Bob" not in str(caught.value)
    assert "14-char key" in str(caught.value)
