"""Each `[intake]` setting does what its docstring says, set in a config file and observed
through a `Runtime` (the processor alone for `consume_limit`, whose effect a round hides).

`body_limit_bytes` and `noise_model` are proved elsewhere (tests/device/test_link_body_cap.py,
tests/notifications/test_noise_model.py); tests/test_settings_guard.py maps them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from companion_memory.agent.notifications.settings import IntakeSettings
from companion_memory.core.clock import FakeClock
from companion_memory.testing import event_ring, runtime_clock
from tests.notifications.harness import event, pipeline
from tests.settings_helpers import (
    START,
    Recording,
    configured,
    intake_written,
    note,
    running,
    settle,
    wait_for,
)

BODIES = [
    "Dinner at Luigi's on Saturday at 7, I booked the table",
    "The plumber comes on Monday morning to fix the kitchen sink",
    "Your dentist appointment is moved to Tuesday at 3pm",
    "Ben's birthday party is on Friday evening at his flat",
    "The car goes in for its service on Wednesday at 8",
]


async def _is(count: Any, want: int) -> bool:
    return bool(await count == want)


async def test_batch_size_is_the_notifications_per_model_call(tmp_path: Path) -> None:
    sizes = {}
    for batch_size in (2, 10):
        cfg = await configured(tmp_path / str(batch_size), f"[intake]\nbatch_size = {batch_size}\n")
        provider = Recording()
        async with running(tmp_path / str(batch_size), cfg, provider=provider) as runtime:
            await runtime.feed([note(f"k{i}", body, title=f"P{i}", at=START)
                                for i, body in enumerate(BODIES)])
            await runtime.run_once()
            assert len(await runtime.list_memories()) == len(BODIES)
        sizes[batch_size] = [len(p["items"]) for p in provider.of("notifications")]
    assert sizes == {2: [2, 2, 1], 10: [5]}


async def test_consume_limit_is_the_ring_entries_one_consume_takes(tmp_path: Path) -> None:
    """A worker round's own catch-up (ring -> log) takes at most `consume_limit` entries
    per batch and says a backlog remains; the rest comes in the next batches."""
    for limit, first in ((2, 2), (100, 5)):
        await asyncio.to_thread((tmp_path / str(limit)).mkdir)
        async with pipeline(tmp_path / str(limit),
                            settings=IntakeSettings(consume_limit=limit)) as p:
            p.publish(*(event(body, key=f"k{i}") for i, body in enumerate(BODIES)))
            outcome = await p.processor.run_batch()
            assert outcome.report.consumed == first
            assert outcome.backlog is (first < len(BODIES))
            while (await p.processor.run_batch()).backlog:
                pass
            assert await p.context.pending_count() == 0
            assert len(await p.memories()) == len(BODIES)


async def test_replay_window_is_how_many_fingerprints_the_ring_remembers(
    tmp_path: Path,
) -> None:
    """A notification the phone sends again is dropped while its fingerprint is among the
    last `replay_window` accepted ones; 0 remembers none."""
    accepted = {}
    for window in (0, 2, 4096):
        cfg = await configured(tmp_path / str(window), f"[intake]\nreplay_window = {window}\n")
        async with running(tmp_path / str(window), cfg) as runtime:
            a, b, c = (note(k, body) for k, body in zip("abc", BODIES, strict=False))
            seqs = [runtime.publish(e) for e in (a, b, c, a)]
        accepted[window] = [s is not None for s in seqs]
    assert accepted == {0: [True] * 4, 2: [True] * 4, 4096: [True, True, True, False]}
    cfg = await configured(tmp_path / "again", "[intake]\nreplay_window = 2\n")
    async with running(tmp_path / "again", cfg) as runtime:
        a, b = note("a", BODIES[0]), note("b", BODIES[1])
        assert [runtime.publish(e) is not None for e in (a, b, a)] == [True, True, False]


async def test_ring_capacity_sizes_the_ring_and_its_high_water_commit(tmp_path: Path) -> None:
    """The ring holds `ring_capacity` entries, and the writer commits at once (without
    waiting for its loss window) when half of them wait."""
    cfg = await configured(tmp_path, "[intake]\nring_capacity = 4\nloss_window_s = 60.0\n")
    async with running(tmp_path, cfg) as runtime:
        assert event_ring(runtime).statistics().capacity == 4
        runtime.publish(note("a", BODIES[0]))
        await settle()
        assert (await runtime.status()).intake["in_ring"] == 1  # waits for its window
        runtime.publish(note("b", BODIES[1]))  # half the ring: commit now
        await wait_for(lambda: _is(intake_written(runtime), 2), what="the commit")
        assert runtime_clock(runtime).monotonic() == 0.0  # no time passed


async def test_loss_window_s_bounds_how_long_a_notification_is_only_in_ram(
    tmp_path: Path,
) -> None:
    """The writer commits half a loss window after the first unwritten notification: with
    10 s, not at 4.9 s, by 5 s (on the runtime's clock)."""
    cfg = await configured(tmp_path, "[intake]\nloss_window_s = 10.0\n")
    clock = FakeClock(START)
    async with running(tmp_path, cfg, clock=clock) as runtime:
        runtime.publish(note("a", BODIES[0]))
        await settle()
        await clock.advance(4.9)
        await settle()
        status = (await runtime.status()).intake
        assert status["loss_window_s"] == 10.0 and status["in_ring"] == 1
        await clock.advance(0.1)
        await wait_for(lambda: _is(intake_written(runtime), 1), what="the commit")
