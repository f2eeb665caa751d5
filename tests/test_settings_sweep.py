"""Each `[sweep]` setting does what its docstring says, set in a config file and observed
through a `Runtime` on a fake clock: whether the sweep runs, where its day ends, how many
days one run takes, and how many of a model's proposals are kept and written."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from companion_memory import Runtime
from companion_memory.agent.model.provider import ModelRequest, ModelResponse
from companion_memory.agent.report import RoundReport
from companion_memory.core.clock import FakeClock
from companion_memory.memory import Tier
from tests.settings_helpers import START, Recording, configured, days, note, running

BODIES = ["Dinner at Luigi's on Saturday at 7", "I'm allergic to shellfish by the way",
          "The plumber comes on Monday morning"]


async def feed_day(runtime: Runtime, day: int = 0) -> None:
    """Three notifications on 12 March (+ `day`), 09:00 UTC, made memories at once."""
    await runtime.feed([note(f"d{day}-{i}", body, title=f"P{i}", at=START + days(day))
                        for i, body in enumerate(BODIES)])
    await runtime.run_once()


def swept_days(report: RoundReport) -> list[dict[str, Any]]:
    sweep = report.report_for("sweep")
    assert sweep is not None
    dates: list[dict[str, Any]] = sweep.extra["dates"]
    return dates


def swept(report: RoundReport) -> list[str]:
    return [d["local_date"] for d in swept_days(report)]


@pytest.mark.parametrize(("toml", "state"), [
    ("", "idle"),
    ("enabled = false\n", "disabled"),
    ("kill_switch = true\n", "kill_switch"),
    ("enabled = true\nkill_switch = true\n", "kill_switch"),
])
async def test_enabled_and_kill_switch_decide_whether_the_sweep_runs(
    tmp_path: Path, toml: str, state: str,
) -> None:
    cfg = await configured(tmp_path, f'[sweep]\nzone = "UTC"\n{toml}')
    clock = FakeClock(START)
    async with running(tmp_path, cfg, clock=clock) as runtime:
        await feed_day(runtime)
        clock.set_wall(START + days(2))
        report = await runtime.run_once()
        status = await runtime.sweep_status()
    assert status.state == state
    if state == "idle":
        assert swept(report) == ["2026-03-12", "2026-03-13"]
    else:
        assert swept(report) == []
        assert status.pending_dates == ("2026-03-12", "2026-03-13")


@pytest.mark.parametrize(("zone", "due"), [("UTC", ["2026-03-12"]),
                                           ("America/New_York", [])])
async def test_zone_is_where_the_swept_day_ends(tmp_path: Path, zone: str, due: list[str]) -> None:
    """At 03:00 UTC on 13 March the 12th is over in UTC but not in New York (23:00)."""
    cfg = await configured(tmp_path, f'[sweep]\nzone = "{zone}"\n')
    clock = FakeClock(START)
    async with running(tmp_path, cfg, clock=clock) as runtime:
        await feed_day(runtime)
        clock.set_wall(datetime(2026, 3, 13, 3, 0, tzinfo=START.tzinfo))
        report = await runtime.run_once()
        assert swept(report) == due
        assert (await runtime.sweep_status()).zone == zone


async def test_max_days_per_run_is_the_days_one_run_sweeps(tmp_path: Path) -> None:
    got = {}
    for limit in (1, 3):
        cfg = await configured(tmp_path / str(limit),
                               f'[sweep]\nzone = "UTC"\nmax_days_per_run = {limit}\n')
        clock = FakeClock(START)
        async with running(tmp_path / str(limit), cfg, clock=clock) as runtime:
            await feed_day(runtime)
            clock.set_wall(START + days(4))  # four whole days are over
            got[limit] = swept(await runtime.run_once())
    assert got == {1: ["2026-03-12"], 3: ["2026-03-12", "2026-03-13", "2026-03-14"]}


class ManyFacts(Recording):
    """The deterministic provider, except that the sweep's 'model' proposes 20 facts."""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        if request.scenario != "sweep":
            return await super().complete(request)
        self.requests.append(request)
        source = request.payload["notifications"][0]["context_id"]
        facts = [{"action": "add", "kind": "fact", "text": f"Fact number {n}",
                  "sources": [f"context:{source}"]} for n in range(20)]
        return ModelResponse(text=orjson.dumps({"candidates": facts}).decode(),
                             prompt_tokens=0, completion_tokens=0, provider=self.name)


async def sweep_of_many_facts(tmp_path: Path, toml: str) -> tuple[dict[str, Any], int]:
    cfg = await configured(tmp_path, f'[sweep]\nzone = "UTC"\n{toml}')
    clock = FakeClock(START)
    async with running(tmp_path, cfg, clock=clock, provider=ManyFacts()) as runtime:
        await feed_day(runtime)
        clock.set_wall(START + days(1))
        report = await runtime.run_once()
        facts = [r for r in await runtime.list_memories(tier=Tier.LONG_TERM)
                 if r.text.startswith("Fact number")]
    (day,) = swept_days(report)
    return day, len(facts)


async def test_max_candidates_is_the_proposals_kept_per_day(tmp_path: Path) -> None:
    day, written = await sweep_of_many_facts(tmp_path, "max_candidates = 5\n")
    assert day["candidates"] == 5 and written == 5
    day, written = await sweep_of_many_facts(tmp_path / "default", "")
    assert day["candidates"] == 20 and written == 16  # the default max_writes


async def test_max_writes_is_the_writes_per_day(tmp_path: Path) -> None:
    day, written = await sweep_of_many_facts(tmp_path, "max_writes = 3\n")
    assert day["candidates"] == 20
    assert day["writes"] == 3 and written == 3
