"""Fixed text of a schema: what the decoder may feed instead of sampling.

The skeleton must never force text the schema does not admit (that would turn a valid
answer into an invalid one) and must force everything that is fixed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC
from typing import Any

import pytest

from companion_memory.agent.model.forced import Skeleton
from companion_memory.agent.model.schema_tools import validate_json
from companion_memory.agent.notifications.contract import batch_schema, output_budget
from tests.notifications.contract_items import ITEMS


def _write(schema: dict[str, Any], free: Mapping[str, Any]) -> tuple[str, int]:
    """Write an answer as a decoder would: fixed text when the cursor forces some, else
    the next character of the chosen answer `free` (by hole order). Returns the text and
    how many characters were forced."""
    skeleton = Skeleton.of(schema)
    assert skeleton is not None
    cursor = skeleton.cursor()
    answer = json.dumps(free, ensure_ascii=False, separators=(",", ":"))
    written, forced = "", 0
    while not cursor.done:
        fixed = cursor.forced()
        if fixed:
            assert answer.startswith(written + fixed), (written, fixed)
            written += fixed
            forced += len(fixed)
            cursor.advance(fixed)
            continue
        char = answer[len(written)]
        written += char
        cursor.advance(char)
        assert not cursor.lost
    return written, forced


def test_the_contract_answer_is_mostly_fixed_text_and_stays_valid() -> None:
    schema = batch_schema(ITEMS)
    skeleton = Skeleton.of(schema)
    assert skeleton is not None
    answer: dict[str, Any] = {}
    for index, item in enumerate(ITEMS, 1):
        entry = schema["properties"][str(index)]["properties"]
        answer[str(index)] = {
            "about": entry["about"]["const"], "a": "new" if not item.related else "update",
            "t": 'Dinner "at 7" with Anna\\ on 2026-03-05', "k": "event",
            "r": 1 if item.related else 0,
        }
    text, forced = _write(schema, answer)
    assert json.loads(text) == answer
    assert validate_json(json.loads(text), schema) is None
    assert forced > len(text) // 3  # keys, anchors, punctuation, enum tails


def test_an_enum_is_forced_only_once_its_prefix_decides_it() -> None:
    schema = {"type": "object", "properties": {"r": {"enum": [0, 1, 10]},
                                                "a": {"enum": ["same", "skip", "update"]}},
              "required": ["r", "a"], "additionalProperties": False}
    skeleton = Skeleton.of(schema)
    assert skeleton is not None
    cursor = skeleton.cursor()
    assert cursor.forced() == '{"r":'
    cursor.advance('{"r":1')
    assert cursor.forced() == ""  # 1 or 10: the model decides
    cursor.advance("0")
    assert cursor.forced() == ',"a":"'
    cursor.advance(',"a":"s')
    assert cursor.forced() == ""  # same or skip
    cursor.advance("k")
    assert cursor.forced() == 'ip"}'
    cursor.advance('ip"}')
    assert cursor.done


def test_text_outside_the_skeleton_stops_the_forcing() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}},
              "required": ["a"], "additionalProperties": False}
    skeleton = Skeleton.of(schema)
    assert skeleton is not None
    cursor = skeleton.cursor()
    cursor.advance("{ ")  # whitespace the grammar allows
    assert cursor.lost
    assert cursor.forced() == ""
    assert not cursor.done


@pytest.mark.parametrize("schema", [
    {"type": "array", "items": {"type": "string"}},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": []},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
     "additionalProperties": False},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
])
def test_unsupported_shapes_get_no_skeleton(schema: dict[str, Any]) -> None:
    assert Skeleton.of(schema) is None


@pytest.mark.llama
@pytest.mark.timeout(600)
def test_the_engine_feeds_fixed_text_and_the_answer_still_validates(model_path: str) -> None:
    from companion_memory.agent.model.llama_engine import Job, LlamaEngine
    from companion_memory.agent.notifications.extractor import contract_messages

    items = ITEMS[:2]
    schema = batch_schema(items)
    messages = tuple(contract_messages(items, [], UTC))
    figures = {}
    for feed in (True, False):
        engine = LlamaEngine(model_path, n_ctx=4096, n_threads=1, seed=0, feed_fixed_text=feed)
        try:
            job = Job(messages, schema, output_budget(items), deadline=float("inf"),
                      max_prompt_tokens=3072)
            generation = engine.generate(job)
        finally:
            engine.close()
        assert generation.stopped == "eog"
        assert validate_json(json.loads(generation.text), schema) is None
        figures[feed] = generation
    assert figures[False].forced_tokens == 0
    assert figures[True].forced_tokens > figures[True].completion_tokens // 3
