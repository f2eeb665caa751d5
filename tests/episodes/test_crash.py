"""kill -9 at every ledger transition (and inside a trace write), then recover.

A child process (`crash_child.py`) records the workload and runs the processor on a
real SQLite store, killing itself at one transition. The parent then plays the host
(records every episode again; duplicates are idempotent) and runs the processor to
the end. Invariants: every eligible episode is done, the ineligible one ignored,
none skipped, and the Device Memory is exactly the crash-free run's (derived ids,
statuses, supersessions): no duplicate, no loss.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion_memory.memory import episode_ledger as ledger
from companion_memory.memory.records import Tier
from tests.episodes.crash_child import open_parts, workload

pytestmark = pytest.mark.crash

REPO = Path(__file__).resolve().parents[2]

KILL_POINTS = [
    "replace:3",  # inside the third trace write (tmp written, not yet renamed)
    "recorded:1",  # traces durable, ledger empty
    "registered:1",
    "processing:1",
    "proposed:1",
    "applied:1",  # first episode of batch 1 done, four still staged
    "applied:5",
    "ignored:1",
    "processing:2",
    "retry:1",  # ep-bad sent to retry, the rest of batch 2 staged
    "proposed:2",
    "applied:8",
    "processing:3",  # the conflicting episode's batch
    "applied:10",
]


def run_child(root: Path, crash_at: str | None) -> int:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("EPISODE_CRASH_AT", None)
    if crash_at:
        env["EPISODE_CRASH_AT"] = crash_at
    proc = subprocess.run(
        [sys.executable, "-m", "tests.episodes.crash_child", str(root)],
        cwd=REPO, env=env, capture_output=True, timeout=60, check=False,
    )
    assert proc.returncode in (0, -signal.SIGKILL), proc.stderr.decode()[-2000:]
    return proc.returncode


async def recover_and_snapshot(root: Path) -> dict[str, Any]:
    store, recorder, processor = await open_parts(root)
    try:
        for data in workload():
            await recorder.record(data)
        for _ in range(50):
            if not (await processor.run_batch()).backlog:
                break
        rows = await store.read(lambda c: ledger.rows(c))
        records = await store.list_records(tier=Tier.DEVICE, include_inactive=True)
    finally:
        await store.close()
    return {
        "ledger": {r.episode_id: (r.state.value, r.reason) for r in rows},
        "memory": sorted(
            (r.memory_id, r.status.value, r.superseded_by, r.kind.value, r.text)
            for r in records
        ),
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("reference")
    assert run_child(root, None) == 0
    return asyncio.run(recover_and_snapshot(root))


def test_reference_run_is_complete(reference: dict[str, Any]) -> None:
    states = dict(reference["ledger"])
    assert len(states) == len(workload())
    assert states.pop("ep-failed") == ("ignored", "status_failed")
    assert set(states.values()) == {("done", None)}
    statuses = [m[1] for m in reference["memory"]]
    assert statuses.count("superseded") == 1 and statuses.count("active") == 9


@pytest.mark.parametrize("crash_at", KILL_POINTS)
async def test_kill_at_transition_recovers_exactly(
    crash_at: str, tmp_path: Path, reference: dict[str, Any]
) -> None:
    code = await asyncio.to_thread(run_child, tmp_path, crash_at)
    assert code == -signal.SIGKILL, f"the child never reached {crash_at}"
    after = await recover_and_snapshot(tmp_path)
    assert after["ledger"].keys() == reference["ledger"].keys()  # none skipped
    assert {k: v[0] for k, v in after["ledger"].items()} == {
        k: v[0] for k, v in reference["ledger"].items()
    }
    assert after["memory"] == reference["memory"]  # no duplicate, nothing lost
    leftovers = await asyncio.to_thread(lambda: [p.name for p in tmp_path.rglob("*.tmp")])
    assert len(leftovers) <= 1  # at most the torn write's tmp file, never a trace
