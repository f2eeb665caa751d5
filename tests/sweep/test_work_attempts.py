"""The sweep counts a day's invalid answers in the one work ledger (`work_attempts`,
scenario `sweep`, key `<window id>|<namespace>`); past the budget the window is poisoned
there and the day is staged as an empty `invalid_output` page."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from companion_memory.agent.model.scripted import ScriptedProvider
from companion_memory.agent.sweep import day_window
from companion_memory.memory import sweep_ledger as L
from companion_memory.memory.store import MemoryStore
from companion_memory.memory.work_ledger import Scenario
from tests.sweep import test_processor
from tests.sweep.test_processor import NY, World, utc

world = test_processor.world
"""The sweep's test world (a store on a fake clock and a processed log)."""


async def work_rows(store: MemoryStore) -> list[tuple[Any, ...]]:
    """(scenario, key, attempts, poisoned) of every unit, read from the table."""
    return await store.read(lambda conn: conn.execute(
        "SELECT scenario, work_key, attempts, poisoned_us IS NOT NULL "
        "FROM work_attempts ORDER BY scenario, work_key").fetchall())


async def test_a_day_retries_then_is_poisoned_in_the_work_ledger(world: World) -> None:
    await world.day_with_reinforced(date(2026, 3, 2), "a")
    world.clock.set_wall(utc(2026, 3, 4, 12))
    key = f"{day_window(date(2026, 3, 2), NY).window_id}|1"
    provider = ScriptedProvider(["this is not json"], repeat_last=True)
    codes = []
    for tries in (1, 2):
        outcome = await world.sweep(provider, retry_budget=3).run_batch()
        day = outcome.report.extra["dates"][0]
        assert day["status"] == "incomplete"
        codes.append(day["reason"])
        assert await work_rows(world.store) == [("sweep", key, tries, 0)]
    outcome = await world.sweep(provider, retry_budget=3).run_batch()
    # the model is given up on for this day (poisoned); the rules consolidate it instead
    assert outcome.report.gaps == 0
    assert outcome.report.extra["dates"][0]["status"] == "swept"
    assert outcome.report.extra["rules_for_invalid_days"] == 1
    assert await work_rows(world.store) == [("sweep", key, 3, 1)]
    poisoned = await world.store.poisoned_work(Scenario.SWEEP)
    assert [(w.key, w.attempts, w.last_code) for w in poisoned] == [(key, 3, codes[-1])]
    # the row goes with the window's stage once the cursor left it far behind
    day = date(2026, 3, 2) + timedelta(days=L.STAGE_RETENTION_DAYS + 1)
    await world.store.transaction(lambda conn: L.prune(conn, day))
    assert await work_rows(world.store) == []
