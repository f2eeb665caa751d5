"""Unmodified bleak over a mocked BlueZ (bluezoo): the real BleakPhoneLink code path.

Covers add, modify, remove, an 0xA2 refusal and link-loss detection. A second
connection to the same device hangs in bluezoo 1.0.2 (its GATT objects are
re-exported under the same paths), so PreExisting-after-reconnect is covered by
the bumble end-to-end test instead.
"""

from __future__ import annotations

import asyncio

import pytest

from ble.ancs.codec import EventFlags, EventID, NotificationSourcePacket
from ble.ancs.normalize import AncsContentIndex
from ble.ancs.session import AncsSession
from ble.bleak_link import connect_phone
from ble.emulator.bluez_iphone import BluezIphone, disconnect_device
from ble.errors import PhoneLinkError
from ble.events import EventKind
from ble.ring import EventRing
from tests.ble.bluez_env import PHONE, BluezEnv
from tests.ble.helpers import ring_events

pytestmark = pytest.mark.bluez

ZONE = "UTC"
LONG = "A message long enough to need many Data Source fragments at MTU 23. " * 3


async def _connect(ring: EventRing, index: AncsContentIndex,
                   phone: BluezIphone | None = None) -> tuple[AncsSession, asyncio.Task[object]]:
    if phone is not None:
        await phone.start()
    for attempt in range(3):  # bluezoo's scan can miss a round; PhoneLinkRunner retries too
        try:
            link = await connect_phone(PHONE, adapter="hci0")
            break
        except PhoneLinkError:
            if attempt == 2:
                raise
    session = AncsSession(link, ring, zone=ZONE, index=index)
    task: asyncio.Task[object] = asyncio.create_task(session.run())
    await asyncio.wait_for(session.wait_subscribed(), 20)
    return session, task


async def _close_bleak_manager() -> None:
    """bleak keeps one BlueZ manager (and its D-Bus socket) per loop; close it with the loop."""
    from bleak.backends.bluezdbus.manager import get_global_bluez_manager

    manager = await get_global_bluez_manager()
    bus = getattr(manager, "_bus", None)
    if bus is not None:
        bus.disconnect()
        await bus.wait_for_disconnect()


async def test_bleak_over_bluezoo_end_to_end(bluez_env: BluezEnv) -> None:
    phone = BluezIphone(bluez_env.address)
    ring, index = EventRing(), AncsContentIndex()
    try:
        session, task = await _connect(ring, index, phone)
        uid = phone.post("com.apple.MobileSMS", title="Ana", message=LONG, date="20260310T183000")
        await asyncio.wait_for(session.wait_handled(1), 20)
        phone.modify(uid, message="short now")
        await asyncio.wait_for(session.wait_handled(2), 20)
        gone = phone.post("com.mail", title="Invoice", message="due", date="20260310T183500")
        await asyncio.wait_for(session.wait_handled(3), 20)
        phone.remove(gone)
        await asyncio.wait_for(session.wait_handled(4), 20)
        phone.send_source(
            NotificationSourcePacket(EventID.ADDED, EventFlags(0), 0, 1, 9999).encode())
        await asyncio.wait_for(session.wait_handled(5), 20)
        assert dict(session.stats.errors) == {"ancs_invalid_parameter": 1}
        await disconnect_device(phone, PHONE, adapter_path="/org/bluez/hci0")
        await asyncio.wait_for(task, 20)
        await session.link.close()  # a fresh client per connection: release this one

    finally:
        await phone.stop()
        await _close_bleak_manager()
    events = ring_events(ring)
    assert [(e.kind, e.title) for e in events] == [
        (EventKind.ADDED, "Ana"),
        (EventKind.MODIFIED, "Ana"),
        (EventKind.ADDED, "Invoice"),
        (EventKind.REMOVED, ""),
    ]
    assert events[0].body == LONG and events[1].key == events[0].key
    assert events[3].key == events[2].key
    assert session.stats.published == 3 and session.stats.removed == 1
