"""Replay `NotificationEvent`s through an emulated iPhone and the real ANCS session.

`replay_over_ancs()` is what the demo uses: it starts two bumble devices on one
in-process link, lets an emulated iPhone post each event (added / modified /
removed) over ANCS, and runs `AncsSession` so the events reach `ring` exactly
as from a phone. Keys in the ring are ANCS content keys (`ancs:<digest>`), not
the keys of the input events. Cancelling it disconnects and powers both
devices off.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion_memory.ble.ancs.session import AncsSession
from companion_memory.ble.emulator.iphone_model import ancs_date
from companion_memory.ble.events import EventKind, NotificationEvent
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import Clock

REPLAY_STEP_TIMEOUT_S = 30.0
"""One event crosses the in-process link in milliseconds; 30 s means something hung."""


@dataclass(frozen=True, slots=True)
class ReplayStats:
    """What a replay did (counts only)."""

    sent: int
    published: int
    duplicates: int
    removed: int
    errors: dict[str, int] = field(default_factory=dict)
    elapsed_s: float = 0.0


def _as_event(item: NotificationEvent | Mapping[str, Any]) -> NotificationEvent:
    if isinstance(item, NotificationEvent):
        return item
    return NotificationEvent.from_dict(dict(item))


async def replay_over_ancs(
    events: Sequence[NotificationEvent | Mapping[str, Any]],
    ring: EventRing,
    *,
    zone: str,
    mtu: int = 185,
    clock: Clock | None = None,
) -> ReplayStats:
    """Post `events` on an emulated iPhone and carry them over ANCS into `ring`."""
    # bumble is the optional `emulator` extra: its modules load only when called
    from companion_memory.ble.emulator.bumble_iphone import EmulatedIphone
    from companion_memory.ble.emulator.bumble_link import BumbleTestbed

    items = [_as_event(e) for e in events]
    await asyncio.to_thread(ancs_date, items[0].posted_at if items else _epoch(), zone)
    started = time.perf_counter()
    testbed = BumbleTestbed()
    await testbed.power_on()
    try:
        iphone = EmulatedIphone(testbed.phone)
        link = await testbed.connect(mtu=mtu)
        session = AncsSession(link, ring, zone=zone, clock=clock)
        task = asyncio.create_task(session.run())
        try:
            async with asyncio.timeout(REPLAY_STEP_TIMEOUT_S):
                await session.wait_subscribed()
            uids: dict[str, int] = {}
            sent = 0
            for event in items:
                date = ancs_date(event.posted_at, zone)
                if event.kind == EventKind.REMOVED:
                    uid = uids.pop(event.key, None)
                    if uid is None:
                        continue
                    await iphone.remove(uid)
                elif event.kind == EventKind.MODIFIED and event.key in uids:
                    await iphone.modify(
                        uids[event.key], title=event.title, subtitle=event.subtitle,
                        message=event.body, date=date,
                    )
                else:
                    uid, packet = iphone.model.add_event(event, zone)
                    uids[event.key] = uid
                    await iphone.send_raw_source(packet)
                sent += 1
                async with asyncio.timeout(REPLAY_STEP_TIMEOUT_S):
                    await session.wait_handled(sent)
        finally:
            await iphone.disconnect()
            stats = await task
    finally:
        await testbed.close()
    return ReplayStats(
        sent=sent,
        published=stats.published,
        duplicates=stats.duplicates,
        removed=stats.removed,
        errors=dict(stats.errors),
        elapsed_s=time.perf_counter() - started,
    )


def _epoch() -> Any:
    from datetime import UTC, datetime

    return datetime(2026, 1, 1, tzinfo=UTC)
