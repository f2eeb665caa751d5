"""kill -9 at every durable step of a sweep, then resume: no day twice, none skipped."""

from __future__ import annotations

import asyncio
import shutil
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from companion_memory.agent.sweep import day_window
from companion_memory.agent.sweep.windows import load_zone
from companion_memory.core.clock import FakeClock
from companion_memory.memory.store import MemoryStore
from tests.sweep.helpers import ProcessedLog, create_temporary, reinforce

ROOT = Path(__file__).resolve().parents[2]
ZONE = "Europe/London"
DAYS = (date(2026, 3, 28), date(2026, 3, 29))  # the second is the 23 h spring-forward day
NOW = datetime(2026, 3, 30, 12, tzinfo=UTC)
load_zone(ZONE)

# after the n-th occurrence of a step: 2 days x (stage, 2 x (claim, write, complete), advance)
CRASH_POINTS = [
    "staged:1", "claimed:1", "written:1", "completed:1", "claimed:2", "written:2",
    "completed:2", "advanced:1", "staged:2", "claimed:3", "written:4", "completed:4",
    "advanced:2",
]


async def seed(directory: Path) -> Path:
    clock = FakeClock(datetime(2026, 3, 27, tzinfo=UTC))
    log = ProcessedLog()
    await asyncio.to_thread(directory.mkdir, parents=True)
    store = await MemoryStore.open(directory / "memory.sqlite3", clock=clock)
    try:
        for day in DAYS:
            start = day_window(day, ZONE).start_utc
            clock.set_wall(start + timedelta(hours=8))
            cid = log.add(clock.now(), "Gym", f"Class booked {day}")
            await create_temporary(store, f"t-{day}", f"Goes to the gym on {day}",
                                   sources=[f"context:{cid}"])
            for n in range(2):
                clock.set_wall(start + timedelta(hours=9 + n))
                await reinforce(store, f"t-{day}", f"context:{log.add(clock.now(), 'Gym', 'x')}")
    finally:
        await store.close()
    await asyncio.to_thread(log.save, directory / "log.json")
    return directory


async def run_child(directory: Path, crash_at: str | None,
                    now: datetime = NOW) -> tuple[int, str]:
    env: dict[str, str] = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    if crash_at:
        env["SWEEP_CRASH_AT"] = crash_at
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.sweep.crash_child", str(directory / "memory.sqlite3"),
        str(directory / "log.json"), ZONE, now.isoformat(), cwd=str(ROOT), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode is not None
    if proc.returncode not in (0, -9):
        raise AssertionError(err.decode()[-2000:])
    return proc.returncode, out.decode()


async def state(directory: Path, now: datetime = NOW) -> dict[str, Any]:
    store = await MemoryStore.open(directory / "memory.sqlite3", clock=FakeClock(now))
    try:
        def read(conn: Any) -> dict[str, Any]:
            q = conn.execute
            return {
                "memories": q("SELECT memory_id, tier, text, revision, reinforced, status,"
                              " sources, authority FROM memories ORDER BY memory_id").fetchall(),
                "promotions": q("SELECT receipt_id, memory_id FROM memory_promotions"
                                " ORDER BY receipt_id").fetchall(),
                "receipts": q("SELECT window_id, candidate_digest, state, outcome FROM"
                              " sweep_receipts ORDER BY 1, 2").fetchall(),
                "stages": q("SELECT window_id, digest FROM sweep_stages ORDER BY 1").fetchall(),
                "cursor": q("SELECT zone, local_date, start_utc, end_utc, window_id, kind"
                            " FROM sweep_cursor").fetchall(),
            }
        return await store.read(read)
    finally:
        await store.close()


def copy_seed(seed_dir: Path, target: Path) -> Path:
    shutil.copytree(seed_dir, target)
    return target


@pytest.mark.crash
async def test_kill_9_at_every_step_then_resume(tmp_path: Path) -> None:
    seed_dir = await seed(tmp_path / "seed")
    reference_dir = await asyncio.to_thread(copy_seed, seed_dir, tmp_path / "reference")
    code, _ = await run_child(reference_dir, None)
    assert code == 0
    reference = await state(reference_dir)
    assert [c[1] for c in reference["cursor"]] == ["2026-03-29"]
    assert len(reference["stages"]) == 2
    assert {r[3] for r in reference["receipts"]} == {"promoted", "added"}
    assert all(r[2] == "committed" for r in reference["receipts"])
    assert len(reference["receipts"]) == 4 and len(reference["promotions"]) == 2
    tiers = {m[0]: m[1] for m in reference["memories"]}
    assert tiers["t-2026-03-28"] == tiers["t-2026-03-29"] == "long_term"

    for point in CRASH_POINTS:
        case = await asyncio.to_thread(copy_seed, seed_dir, tmp_path / point.replace(":", "-"))
        code, _ = await run_child(case, point)
        assert code == -9, f"the child did not reach {point}"
        code, _ = await run_child(case, None)
        assert code == 0
        assert await state(case) == reference, f"state differs after a crash at {point}"
        # and a further run is a no-op: nothing is swept twice
        await run_child(case, None)
        assert await state(case) == reference


LATER = NOW + timedelta(days=16)
"""When the two days' diary lines (waiting until their Temporary memories leave) are due."""
# the later run sweeps three empty days, then applies the two waiting lines
LATER_CRASH_POINTS = ["advanced:1", "claimed:1", "written:1", "completed:1", "claimed:2",
                      "written:2", "completed:2", "advanced:2"]


def memory_state(full: dict[str, Any]) -> dict[str, Any]:
    """The memories and the two days' receipts (the cursor moves on by as many empty
    days as each run sweeps: a resumed run may be further along, and rightly so)."""
    days = tuple(d.isoformat() for d in DAYS)
    return {"memories": full["memories"], "promotions": full["promotions"],
            "receipts": [r for r in full["receipts"] if str(r[0]).startswith(days)]}


@pytest.mark.crash
async def test_kill_9_while_waiting_lines_are_applied_then_resume(tmp_path: Path) -> None:
    seed_dir = await seed(tmp_path / "seed")
    assert (await run_child(seed_dir, None))[0] == 0  # both days swept; lines wait
    waiting = await state(seed_dir, LATER)
    assert len(waiting["receipts"]) == 4
    reference_dir = await asyncio.to_thread(copy_seed, seed_dir, tmp_path / "reference")
    code, _ = await run_child(reference_dir, None, LATER)
    assert code == 0
    reference = memory_state(await state(reference_dir, LATER))
    lines = [m for m in reference["memories"] if str(m[2]).startswith("2026-03-2")]
    assert len(lines) == 2 and {m[1] for m in lines} == {"long_term"}
    assert len(reference["receipts"]) == 6
    assert all(r[2] == "committed" for r in reference["receipts"])

    for point in LATER_CRASH_POINTS:
        case = await asyncio.to_thread(copy_seed, seed_dir,
                                       tmp_path / f"later-{point.replace(':', '-')}")
        code, _ = await run_child(case, point, LATER)
        assert code == -9, f"the child did not reach {point}"
        code, _ = await run_child(case, None, LATER)
        assert code == 0
        assert memory_state(await state(case, LATER)) == reference, \
            f"state differs after a crash at {point}"
        await run_child(case, None, LATER)
        assert memory_state(await state(case, LATER)) == reference
