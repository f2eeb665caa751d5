"""Test helpers for the BLE tests (no timing: loops yield until a condition holds)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.ring import EventRing


async def until(condition: Callable[[], bool], *, spins: int = 20_000) -> None:
    """Yield to the loop until `condition()` holds; fail after `spins` yields."""
    for _ in range(spins):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never became true")


async def until_real(condition: Callable[[], bool], *, seconds: float = 20.0) -> None:
    """For real transports (bumble, D-Bus): poll every 10 ms up to `seconds`."""
    steps = int(seconds / 0.01)
    for _ in range(steps):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"condition not met within {seconds} s")


def ring_events(ring: EventRing) -> list[NotificationEvent]:
    return [entry.event for entry in ring.events_since(0, 10_000).entries]
