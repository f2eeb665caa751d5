"""Proposal validation and the deterministic fallback."""

from __future__ import annotations

import pytest

from companion_memory.agent.sweep import Candidate, DayScope, sweep_fallback, validate_page

SCOPE = DayScope(frozenset({1, 2}), frozenset({"t1"}), frozenset({"lt1"}))


def test_fallback_promotes_only_twice_reinforced_facts() -> None:
    payload = {"temporaries": [
        {"memory_id": "a", "kind": "fact", "reinforced_in_window": 2},
        {"memory_id": "b", "kind": "fact", "reinforced_in_window": 1},
        {"memory_id": "c", "kind": "preference", "reinforced_in_window": 5},
        {"memory_id": "d", "kind": "event", "reinforced_in_window": 5},
    ]}
    assert [c["memory_id"] for c in sweep_fallback(payload)["candidates"]] == ["a", "c"]
    assert sweep_fallback({}) == {"candidates": []}


def test_page_validation_drops_by_reason() -> None:
    page = {"candidates": [
        {"action": "add", "text": "Likes tea", "sources": ["context:1", "context:7"]},
        {"action": "add", "text": "Likes tea", "sources": ["context:1"]},
        {"action": "add", "text": "x", "sources": ["memory:other"]},
        {"action": "promote", "memory_id": "t9", "sources": []},
        {"action": "amend", "memory_id": "lt1", "text": "y", "sources": ["context:2"]},
        {"action": "add", "text": "pin sk-proj-abcdefghijklmnopqrstuvwxyz12",
         "sources": ["context:1"]},
        {"action": "delete", "sources": []},
        "nonsense",
    ]}
    result = validate_page(page, SCOPE)
    assert [c.action for c in result.candidates] == ["add", "amend"]
    assert result.candidates[0].sources == ("context:1",)
    assert dict(result.dropped) == {"duplicate_candidate": 1, "no_provenance": 1,
                                    "unknown_target": 1, "secret": 1, "unknown_action": 1,
                                    "not_an_object": 1}
    assert validate_page({"answer": 1}, SCOPE).error == "page_malformed"


def test_candidate_limit_and_staged_digest_check() -> None:
    page = {"candidates": [{"action": "add", "text": f"fact {n}", "sources": ["context:1"]}
                           for n in range(40)]}
    result = validate_page(page, SCOPE)
    assert len(result.candidates) == 32 and result.dropped["candidate_limit"] == 8
    staged = result.candidates[0].to_dict()
    assert Candidate.from_dict(staged) == result.candidates[0]
    with pytest.raises(ValueError, match="digest"):
        Candidate.from_dict({**staged, "text": "tampered"})
