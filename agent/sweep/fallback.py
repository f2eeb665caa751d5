"""The sweep's deterministic fallback (no model): promote what the day reinforced.

`sweep_fallback(payload)` answers the sweep schema from the structured payload the
processor sends with its request: every Temporary memory of the day that was
reinforced at least twice during the window is proposed for promotion, citing
itself. Nothing is added or amended without a model.
"""

from __future__ import annotations

from typing import Any

REINFORCED_AT_LEAST = 2


def sweep_fallback(payload: dict[str, Any]) -> dict[str, Any]:
    """`{"candidates": [promote ...]}` for Temporary memories reinforced >= 2 times that day."""
    candidates: list[dict[str, Any]] = []
    temporaries = payload.get("temporaries", [])
    if not isinstance(temporaries, list):
        return {"candidates": []}
    for item in temporaries:
        if not isinstance(item, dict):
            continue
        memory_id = item.get("memory_id")
        reinforced = item.get("reinforced_in_window", 0)
        if not isinstance(memory_id, str) or not isinstance(reinforced, int):
            continue
        if reinforced >= REINFORCED_AT_LEAST:
            candidates.append(
                {"action": "promote", "memory_id": memory_id, "sources": [f"memory:{memory_id}"]}
            )
    return {"candidates": candidates}
