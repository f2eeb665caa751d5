"""Each `[worker]` setting does what its docstring says, set in a config file and observed
through a `Runtime` on a fake clock: when the idle window opens, how many attempts a
batch gets before it is a gap, and how many related memories reach the model."""

from __future__ import annotations

from pathlib import Path

from companion_memory.agent.model.scripted import ScriptedProvider
from companion_memory.core.clock import FakeClock
from tests.settings_helpers import (
    START,
    Recording,
    configured,
    note,
    running,
    settle,
    wait_for,
)


async def test_idle_delay_s_is_the_idleness_before_memory_work(tmp_path: Path) -> None:
    cfg = await configured(tmp_path, "[worker]\nidle_delay_s = 30.0\n")
    clock = FakeClock(START)
    async with running(tmp_path, cfg, clock=clock, start_worker=True) as runtime:
        await runtime.feed([note("a", "Dinner at Luigi's on Saturday at 7")])
        runtime.foreground_ended()  # the countdown starts now
        await clock.advance(29.0)
        await settle()
        assert runtime.rounds == 0
        await clock.advance(1.0)
        await wait_for(lambda: runtime.rounds >= 1, what="the first round")
        assert len(await runtime.list_memories()) == 1


async def test_retry_budget_is_the_attempts_before_a_batch_is_a_gap(tmp_path: Path) -> None:
    """A model that always answers nonsense: with `retry_budget = 2` the second failed
    attempt records the batch as a gap and nothing stays pending; with 3 it still waits."""
    outcome = {}
    for budget in (2, 3):
        cfg = await configured(tmp_path / str(budget),
                               f"[worker]\nretry_budget = {budget}\nidle_delay_s = 10.0\n")
        clock = FakeClock(START)
        provider = ScriptedProvider(["this is not JSON"], repeat_last=True)
        async with running(tmp_path / str(budget), cfg, clock=clock,
                           provider=provider) as runtime:
            await runtime.feed([note("a", "Dinner at Luigi's on Saturday at 7")])
            for _ in range(2):
                await runtime.run_once()
                await clock.advance(10.0)  # past the failed processor's back-off
            outcome[budget] = (len(provider.requests), await runtime.pending_count(),
                               len(await runtime.gaps()))
    assert outcome == {2: (2, 0, 1), 3: (2, 1, 0)}


async def test_related_limit_is_the_related_memories_per_notification(tmp_path: Path) -> None:
    seen = {}
    for limit in (0, 1, 3):
        cfg = await configured(tmp_path / str(limit), f"[worker]\nrelated_limit = {limit}\n")
        provider = Recording()
        async with running(tmp_path / str(limit), cfg, provider=provider) as runtime:
            for text in ("Anna's dinner at Luigi's is her favourite",
                         "Luigi's dinner menu changes on Saturdays",
                         "Anna books dinner at Luigi's every month"):
                await runtime.save_memory(text)
            await runtime.feed([note("a", "Dinner at Luigi's on Saturday at 7")])
            await runtime.run_once()
        (payload,) = provider.of("notifications")
        seen[limit] = len(payload["related"])
    assert seen == {0: 0, 1: 1, 3: 3}
