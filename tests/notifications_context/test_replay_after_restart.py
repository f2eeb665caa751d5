"""After a restart the new ring's replay window is seeded from the durable log, so a
phone re-sending what it showed before (ANCS PreExisting) is not recorded twice."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from companion_memory.agent.notification_log.log import NotificationContext
from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)


def ev(n: int) -> NotificationEvent:
    return NotificationEvent.create(kind="added", key=f"k{n}", app_id="com.example.chat",
                                    title=f"t{n}", body=f"b{n}", posted_at=T0)


async def test_resent_events_are_dropped_after_restart(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing(64)
    ctx = await NotificationContext.open(tmp_path, ring, clock=clock)
    for n in range(3):
        assert ring.publish(ev(n)) is not None
    assert (await ctx.consume()).persisted == 3
    await ctx.close()

    ring2 = EventRing(64)  # a new process: a new ring generation, an empty window
    ctx2 = await NotificationContext.open(tmp_path, ring2, clock=clock)
    assert [ring2.publish(ev(n)) for n in range(3)] == [None, None, None]
    assert ring2.publish(ev(3)) == 1
    got = await ctx2.consume()
    assert got.persisted == 1
    pending = await ctx2.read_pending(10)
    assert [r.event.key for r in pending] == ["k0", "k1", "k2", "k3"]
    assert ring2.statistics().duplicates == 3
    await ctx2.close()


async def test_zero_replay_window_seeds_nothing(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing(64, replay_window=0)
    ctx = await NotificationContext.open(tmp_path, ring, clock=clock)
    ring.publish(ev(0))
    await ctx.consume()
    await ctx.close()
    ring2 = EventRing(64, replay_window=0)
    await NotificationContext.open(tmp_path, ring2, clock=clock)
    assert ring2.publish(ev(0)) == 1
