"""The sweep's rules (no model): consolidate the day without a model.

`sweep_fallback(payload)` answers the sweep schema from the day's structured input
(`DayInput.payload`; `RulesSweepExtractor` calls it in process): the day's diary lines, changed
and repeated facts, recurring lines and reinforcements (`consolidate.consolidate`, whose
docstring gives the rules), then the promotion of any other Temporary fact of the day
that was reinforced at least twice during the window.
"""

from __future__ import annotations

from typing import Any

from companion_memory.agent.sweep.consolidate import (
    FACT_KINDS,
    REINFORCED_AT_LEAST,
    consolidate,
)


def sweep_fallback(payload: dict[str, Any]) -> dict[str, Any]:
    """`{"candidates": [...]}` for the day (see the module docstring)."""
    candidates = consolidate(payload) if isinstance(payload, dict) else []
    covered = {str(c.get("memory_id")) for c in candidates if c.get("action") == "promote"}
    groups = payload.get("groups", []) if isinstance(payload, dict) else []
    for group in groups if isinstance(groups, list) else []:
        for fact in group.get("facts", []) if isinstance(group, dict) else []:
            covered.add(str(fact.get("memory_id")))
    temporaries = payload.get("temporaries", []) if isinstance(payload, dict) else []
    for item in temporaries if isinstance(temporaries, list) else []:
        if not isinstance(item, dict):
            continue
        memory_id = item.get("memory_id")
        reinforced = item.get("reinforced_in_window", 0)
        if not isinstance(memory_id, str) or not isinstance(reinforced, int) or \
                memory_id in covered:
            continue
        if item.get("kind") in FACT_KINDS and reinforced >= REINFORCED_AT_LEAST:
            covered.add(memory_id)
            candidates.append(
                {"action": "promote", "memory_id": memory_id, "sources": [f"memory:{memory_id}"]}
            )
    return {"candidates": candidates}
