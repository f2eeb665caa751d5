"""JSON schema helpers for providers: a canonical key, a GBNF grammar, and validation.

`validate_json(value, schema)` checks the subset of JSON Schema our proposal
schemas use (type, properties, required, additionalProperties, items, enum,
const, minLength/maxLength, minItems/maxItems, minimum/maximum, anyOf) and
returns the first violation as a short path-and-rule reason (never the value
itself, which may carry notification text). `parse_completion(text, schema)`
parses a completion and raises `ModelOutputError` with such a reason.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from companion_memory.agent.model.provider import ModelOutputError

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "integer": (int,),
    "number": (int, float),
}


def schema_key(schema: dict[str, Any]) -> str:
    """A canonical string for `schema` (sorted keys), used to cache compiled grammars."""
    return orjson.dumps(schema, option=orjson.OPT_SORT_KEYS).decode("utf-8")


def schema_to_gbnf(schema: dict[str, Any]) -> str:
    """The llama.cpp GBNF grammar that only admits JSON matching `schema`.

    Property order is kept as written (it is the order the model must emit).
    Raises `ValueError` (or `KeyError`/`TypeError`) for a schema feature the
    converter does not support; callers turn that into a `ModelError`.
    """
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    gbnf: str = json_schema_to_gbnf(orjson.dumps(schema).decode("utf-8"))
    return gbnf


def _type_ok(value: Any, expected: str) -> bool:
    kinds = _TYPES.get(expected)
    if kinds is None:
        return False
    if expected in ("integer", "number") and isinstance(value, bool):
        return False
    if expected == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, kinds)


def validate_json(value: Any, schema: dict[str, Any], path: str = "$") -> str | None:
    """The first violation of `schema` by `value` as "path: rule", or None when valid."""
    if "anyOf" in schema and not any(
        validate_json(value, sub, path) is None for sub in schema["anyOf"]
    ):
        return f"{path}: matches none of anyOf"
    if "const" in schema and value != schema["const"]:
        return f"{path}: not the constant value"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path}: not one of the {len(schema['enum'])} allowed values"
    expected = schema.get("type")
    if expected is not None:
        options = expected if isinstance(expected, list) else [expected]
        if not any(_type_ok(value, t) for t in options):
            return f"{path}: expected {'|'.join(options)}, got {type(value).__name__}"
    if isinstance(value, str):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return f"{path}: string longer than {schema['maxLength']}"
        if "minLength" in schema and len(value) < schema["minLength"]:
            return f"{path}: string shorter than {schema['minLength']}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{path}: below minimum {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{path}: above maximum {schema['maximum']}"
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"{path}: more than {schema['maxItems']} items"
        if "minItems" in schema and len(value) < schema["minItems"]:
            return f"{path}: fewer than {schema['minItems']} items"
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(value):
                problem = validate_json(item, items, f"{path}[{index}]")
                if problem is not None:
                    return problem
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                return f"{path}: missing required field {key!r}"
        properties: dict[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                problem = validate_json(item, properties[key], f"{path}.{key}")
                if problem is not None:
                    return problem
            elif extra is False:
                return f"{path}: unexpected field {_safe_key(key)!r}"
            elif isinstance(extra, dict):
                problem = validate_json(item, extra, f"{path}.{_safe_key(key)}")
                if problem is not None:
                    return problem
    return None


_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,23}")


def _safe_key(key: str) -> str:
    """A field name when it looks like one; model-made keys could carry text (a title
    echoed as a key), so anything else is named only by its length."""
    return key if _FIELD_NAME.fullmatch(key) else f"<{len(key)}-char key>"


def parse_completion(text: str, schema: dict[str, Any]) -> Any:
    """Parse `text` as JSON and validate it; `ModelOutputError` names what is wrong."""
    if not text.strip():
        raise ModelOutputError("the model returned an empty completion")
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as err:
        raise ModelOutputError(
            f"the completion is not valid JSON ({len(text)} chars; parser: {_position(err)})"
        ) from None
    problem = validate_json(value, schema)
    if problem is not None:
        raise ModelOutputError(f"the completion does not match the schema: {problem}")
    return value


def _position(err: orjson.JSONDecodeError) -> str:
    return f"line {err.lineno} column {err.colno}"
