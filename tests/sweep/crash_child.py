"""Crash-test child: run one sweep on a real store and SIGKILL itself at a chosen step.

    python -m tests.sweep.crash_child DB LOG_JSON ZONE NOW_ISO

`SWEEP_CRASH_AT=<step>:<n>` kills the process (kill -9, no cleanup) right after the
n-th time the processor reports durable step <step> ("staged", "claimed",
"written", "completed", "advanced"). Without it the run completes and prints the
report's dates as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.agent.sweep import DailySweepProcessor, ModelSweepExtractor, sweep_fallback
from companion_memory.core.clock import FakeClock
from companion_memory.memory.store import MemoryStore
from companion_memory.testing import ScriptedProvider
from tests.sweep.helpers import ProcessedLog


def day_model(payload: dict[str, Any]) -> dict[str, Any]:
    """The fallback's promotions plus one fact per day citing its first notification."""
    answer = sweep_fallback(payload)
    notes = payload.get("notifications", [])
    if notes:
        answer["candidates"].append({
            "action": "add", "kind": "fact", "subject": f"day {payload['window']['local_date']}",
            "text": f"Fact for {payload['window']['local_date']}",
            "sources": [f"context:{notes[0]['context_id']}"],
        })
    return answer


def crash_hook() -> Any:
    spec = os.environ.get("SWEEP_CRASH_AT")
    if not spec:
        return None
    step, _, nth = spec.partition(":")
    seen: Counter[str] = Counter()

    def hook(name: str) -> None:
        seen[name] += 1
        if name == step and seen[name] == int(nth or 1):
            os.kill(os.getpid(), signal.SIGKILL)

    return hook


async def main(db: str, log_path: str, zone: str, now: str) -> None:
    clock = FakeClock(datetime.fromisoformat(now))
    store = await MemoryStore.open(db, clock=clock)
    try:
        sweep = DailySweepProcessor(
            ProcessedLog.load(Path(log_path)), store,
            ModelSweepExtractor(MemoryMergeEngine(ScriptedProvider(
                [lambda r: orjson.dumps(day_model(r.payload)).decode()], repeat_last=True))),
            clock=clock, zone=zone, enabled=True, step_hook=crash_hook(),
        )
        outcome = await sweep.run_batch()
        print(json.dumps(outcome.report.extra["dates"]))
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
