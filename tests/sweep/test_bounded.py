"""Memory that lasts stays bounded: two months of one person's real notifications
(LifeBench, the bundled copy) through the public Runtime on a FakeClock with the default
configuration (bench/lifebench.py's harness; the whole year of every user is in
docs/benchmarks.md). The daily sweep consolidates every day; what the store keeps at
each month end is measured against the raw text of the notifications received so far.

The bounds are loose ceilings on what the year runs measured (docs/benchmarks.md,
"Memory that lasts"), so a change that makes the store grow with the notifications
instead of with what is worth keeping fails here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from blockbuster import BlockBuster

from bench.lifebench import Source, run_user, slice_days

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

START = datetime(2025, 1, 1, tzinfo=UTC)
DAYS = 62
LONG_TERM_SHARE = 0.5
"""Long-Term text and search words per byte of raw notification text received."""
DATABASE_PER_RAW_BYTE = 40
"""The database file (and its WAL) per byte of raw notification text received."""


async def test_two_months_of_notifications_are_consolidated_and_stay_bounded(
    blockbuster: BlockBuster,
) -> None:
    blockbuster.deactivate()  # the harness reads its data and temp folders on the loop
    data = slice_days(Source("bundled").load("fenghaoran"), DAYS, START)
    result = await run_user(data, progress=False)
    assert result["failing_rounds"] == 0, (result["first_failure"], result["errors_by_code"])
    assert result["round_gaps"] == 0 and result["gaps"] == {}
    assert result["sweep"]["days_swept"] >= DAYS - 2
    outcomes = result["sweep"]["outcomes"]
    assert outcomes.get("added", 0) > 0 and outcomes.get("reinforced", 0) > 0
    assert result["long_term_per_person_week"] >= 1
    assert result["long_term_with_secret"] == 0
    assert result["long_term_without_sources"] == 0
    months = {m["month"]: m for m in result["months"]}
    assert set(months) == {"2025-01", "2025-02"}
    for month in months.values():
        assert month["memories"].get("long_term", 0) > 0, month
        assert month["long_term_ratio"] <= LONG_TERM_SHARE, month
        assert month["db_bytes"] <= DATABASE_PER_RAW_BYTE * month["raw_bytes_so_far"], month
