"""Unmodified bleak over a mocked BlueZ (bluezoo): the real BleakPhoneLink code path.

Covers add, modify, remove, an 0xA2 refusal, link-loss detection, and
PreExisting after a real reconnect (a second, fresh BleakClient; the phone
reconnects to the wearable, see that test's docstring for bluezoo's limits).
"""

from __future__ import annotations

import asyncio
import time

import pytest

from companion_memory.ble.ancs.codec import EventFlags, EventID, NotificationSourcePacket
from companion_memory.ble.ancs.normalize import AncsContentIndex
from companion_memory.ble.ancs.session import AncsSession
from companion_memory.ble.bleak_link import connect_phone
from companion_memory.ble.emulator.bluez_iphone import (
    BluezIphone,
    connect_device,
    disconnect_device,
    remove_device,
)
from companion_memory.ble.errors import PhoneLinkError
from companion_memory.ble.events import EventKind
from companion_memory.ble.ring import EventRing
from tests.ble.bluez_env import PHONE, WEARABLE, BluezEnv, close_bleak_manager
from tests.ble.helpers import ring_events

pytestmark = pytest.mark.bluez

ZONE = "UTC"
HEART_RATE = "0000180d-0000-1000-8000-00805f9b34fb"
LONG = "A message long enough to need many Data Source fragments at MTU 23. " * 3


async def _discover(phone: BluezIphone | None) -> None:
    """Scan on the wearable's adapter until it has seen the phone (starting the phone
    after the scanner when given: bluezoo reports an advertisement that already
    existed before the scan only on a later round)."""
    from bleak import BleakScanner

    async with BleakScanner(bluez={"adapter": "hci0"}) as scanner:
        if phone is not None:
            await phone.start()
        for _ in range(2000):
            if PHONE in scanner.discovered_devices_and_advertisement_data:
                return
            await asyncio.sleep(0.01)
    raise AssertionError("the wearable never saw the phone")


async def _connect(ring: EventRing, index: AncsContentIndex,
                   phone: BluezIphone | None = None) -> tuple[AncsSession, asyncio.Task[object]]:
    await _discover(phone)
    link = await connect_phone(PHONE, adapter="hci0")
    session = AncsSession(link, ring, zone=ZONE, index=index)
    task: asyncio.Task[object] = asyncio.create_task(session.run())
    await asyncio.wait_for(session.wait_subscribed(), 20)
    return session, task


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
        await close_bleak_manager()
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


async def test_bleak_reconnect_carries_pre_existing_without_duplicates(
    bluez_env: BluezEnv,
) -> None:
    """PreExisting after a REAL reconnect through bleak (not a re-subscription).

    Session 1 dials the phone; the wearable then ends it cleanly (the session
    unsubscribes, the fresh client disconnects). The phone reconnects to the
    wearable, as an iPhone does for ANCS (bluezoo cannot let the wearable dial the
    same device twice: it re-exports the GATT objects under the same paths and
    sd-bus refuses), and a second, fresh BleakClient attaches to that connection
    and subscribes again: the phone re-sends everything with PreExisting and new
    UIDs. Known content maps to the old keys without ring events; a notification
    posted while disconnected is published once; a removal by its new UID finds
    the old key.
    """
    phone = BluezIphone(bluez_env.address)
    ring, index = EventRing(), AncsContentIndex()
    try:
        session, task = await _connect(ring, index, phone)
        phone.post("com.apple.MobileSMS", title="Ana", message=LONG, date="20260310T183000")
        phone.post("com.mail", title="Invoice", message="due", date="20260310T183500")
        await asyncio.wait_for(session.wait_handled(2), 20)
        await disconnect_device(phone, PHONE, adapter_path="/org/bluez/hci0")  # link loss
        await asyncio.wait_for(task, 20)
        first_link = session.link
        await first_link.close()

        phone.post("com.whatsapp", title="Bo", message="while away", date="20260310T184000")
        # bluezoo workaround (see docstring): fresh GATT handles, both sides forget.
        await phone.reregister()
        await remove_device(phone, PHONE, adapter_path="/org/bluez/hci0")
        await remove_device(phone, WEARABLE)
        session2, task2 = await _connect(ring, index)
        assert session2.link is not first_link
        await asyncio.wait_for(session2.wait_handled(3), 20)  # 3 PreExisting packets
        assert session2.stats.duplicates == 2 and session2.stats.published == 1
        ana_uid = next(uid for uid, n in phone.model.notifications.items() if n.title == "Ana")
        assert ana_uid > 3  # fresh UIDs in the new subscription
        phone.remove(ana_uid)
        await asyncio.wait_for(session2.wait_handled(4), 20)
        phone.post("com.apple.MobileSMS", title="Ana", message="new one", date="20260310T184500")
        await asyncio.wait_for(session2.wait_handled(5), 20)
        await disconnect_device(phone, PHONE, adapter_path="/org/bluez/hci0")
        await asyncio.wait_for(task2, 20)
        await session2.link.close()
    finally:
        await phone.stop()
        await close_bleak_manager()
    events = ring_events(ring)
    assert [(e.kind, e.title, e.body) for e in events] == [
        (EventKind.ADDED, "Ana", LONG),
        (EventKind.ADDED, "Invoice", "due"),
        (EventKind.ADDED, "Bo", "while away"),
        (EventKind.REMOVED, "", ""),
        (EventKind.ADDED, "Ana", "new one"),
    ]
    assert events[3].key == events[0].key
    assert len({e.key for e in events if e.kind is EventKind.ADDED}) == 4


async def test_connect_phone_finds_the_phone_already_connected(bluez_env: BluezEnv) -> None:
    """`connect_phone()` without an address: `BleakAdapter.get_connected_devices`.

    On real BlueZ the iPhone connects to the wearable and BlueZ resolves its GATT
    services; bluezoo resolves GATT only on the side that calls Device1.Connect,
    so a plain D-Bus Connect on the wearable's adapter stands in for that
    incoming connection (outside bleak); bleak then must find it without a scan.
    """
    phone = BluezIphone(bluez_env.address)
    ring, index = EventRing(), AncsContentIndex()
    try:
        await _discover(phone)
        with pytest.raises(PhoneLinkError) as nobody:
            await connect_phone(adapter="hci0")
        assert nobody.value.code == "phone_not_found"
        phone.post("com.apple.MobileSMS", title="Ana", message="hi", date="20260310T183000")
        await connect_device(phone, PHONE, adapter_path="/org/bluez/hci0")
        link = None
        deadline = time.monotonic() + 30  # generous: bleak learns of the connection by signal
        while link is None:
            try:
                link = await connect_phone(adapter="hci0")
            except PhoneLinkError as exc:
                assert exc.code == "phone_not_found"
                assert time.monotonic() < deadline, "bleak never saw the phone's connection"
                await asyncio.sleep(0.01)
        assert link.peer == PHONE and link.is_connected
        with pytest.raises(PhoneLinkError):  # connected, but it offers no heart-rate service
            await connect_phone(adapter="hci0", service_uuids=[HEART_RATE])
        session = AncsSession(link, ring, zone=ZONE, index=index)
        task = asyncio.create_task(session.run())
        await asyncio.wait_for(session.wait_handled(1), 20)  # the PreExisting one
        await disconnect_device(phone, PHONE, adapter_path="/org/bluez/hci0")
        await asyncio.wait_for(task, 20)
        await link.close()
    finally:
        await phone.stop()
        await close_bleak_manager()
    assert [(e.kind, e.title) for e in ring_events(ring)] == [(EventKind.ADDED, "Ana")]
