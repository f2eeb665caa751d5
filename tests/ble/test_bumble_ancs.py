"""End to end over bumble: emulated iPhone (ANCS server) <-> AncsSession -> EventRing."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from companion_memory.ble.ancs.codec import (
    CategoryID,
    EventFlags,
    EventID,
    NotificationSourcePacket,
)
from companion_memory.ble.ancs.normalize import AncsContentIndex
from companion_memory.ble.ancs.session import AncsSession
from companion_memory.ble.emulator.bumble_iphone import EmulatedIphone
from companion_memory.ble.emulator.bumble_link import BumbleTestbed
from companion_memory.ble.errors import AttWriteError
from companion_memory.ble.events import EventKind, NotificationEvent
from companion_memory.ble.ring import EventRing
from tests.ble.helpers import ring_events

ZONE = "Europe/Berlin"
LONG = "Long message with ümlauts, emoji \N{ROCKET} and more text. " * 5  # ~300 bytes


async def _session(testbed: BumbleTestbed, ring: EventRing, index: AncsContentIndex,
                   mtu: int) -> tuple[AncsSession, asyncio.Task[object]]:
    link = await testbed.connect(mtu=mtu)
    session = AncsSession(link, ring, zone=ZONE, index=index)
    task: asyncio.Task[object] = asyncio.create_task(session.run())
    await asyncio.wait_for(session.wait_subscribed(), 10)
    return session, task


async def test_add_modify_remove_error_reconnect_disconnect() -> None:
    ring, index = EventRing(), AncsContentIndex()
    testbed = BumbleTestbed()
    await testbed.power_on()
    iphone = EmulatedIphone(testbed.phone)
    try:
        session, task = await _session(testbed, ring, index, mtu=23)
        uid = await iphone.post("com.apple.MobileSMS", title="Ana", message=LONG,
                                date="20260310T183000", category=CategoryID.SOCIAL)
        await asyncio.wait_for(session.wait_handled(1), 10)
        await iphone.modify(uid, message="Dinner at 8?")
        await asyncio.wait_for(session.wait_handled(2), 10)
        doomed = await iphone.post("com.mail", title="Invoice", message="due",
                                   date="20260310T183500")
        await asyncio.wait_for(session.wait_handled(3), 10)
        await iphone.remove(doomed)
        await asyncio.wait_for(session.wait_handled(4), 10)
        # 0xA2: a Notification Source packet for a UID the phone does not know.
        await iphone.send_raw_source(
            NotificationSourcePacket(EventID.ADDED, EventFlags(0), 0, 1, 4242).encode())
        await asyncio.wait_for(session.wait_handled(5), 10)
        await iphone.post("com.slack", title="kept", message="stays", date="20260310T184000")
        await asyncio.wait_for(session.wait_handled(6), 10)
        assert session.stats.errors == {"ancs_invalid_parameter": 1}
        await iphone.disconnect()
        await asyncio.wait_for(task, 10)  # disconnect detected, session ends

        # While disconnected a new notification arrives; reconnect: PreExisting replay.
        iphone.model.add("com.slack", title="while away", message="hi", date="20260310T190000")
        session2, task2 = await _session(testbed, ring, index, mtu=185)
        await asyncio.wait_for(session2.wait_handled(3), 10)  # 3 on the phone now
        await iphone.remove(min(iphone.model.notifications))  # Ana's, under a new UID
        await asyncio.wait_for(session2.wait_handled(4), 10)
        await iphone.disconnect()
        await asyncio.wait_for(task2, 10)
    finally:
        await testbed.close()

    events = ring_events(ring)
    assert [(e.kind, e.title) for e in events] == [
        (EventKind.ADDED, "Ana"),
        (EventKind.MODIFIED, "Ana"),
        (EventKind.ADDED, "Invoice"),
        (EventKind.REMOVED, ""),
        (EventKind.ADDED, "kept"),
        (EventKind.ADDED, "while away"),
        (EventKind.REMOVED, ""),
    ]
    ana, modified, invoice, invoice_removed, kept, away, ana_removed = events
    assert ana.body == LONG and modified.body == "Dinner at 8?"
    assert ana.posted_at == datetime(2026, 3, 10, 17, 30, tzinfo=UTC)  # CET = UTC+1
    assert ana.key == modified.key == ana_removed.key
    assert invoice_removed.key == invoice.key and invoice_removed.app_id == "com.mail"
    assert len({ana.key, invoice.key, kept.key, away.key}) == 4
    assert session2.stats.duplicates == 2 and session2.stats.published == 1
    assert ring.statistics().duplicates == 0  # the session de-duplicated, not the ring


async def test_unpaired_client_gets_nothing() -> None:
    testbed = BumbleTestbed()
    await testbed.power_on()
    iphone = EmulatedIphone(testbed.phone)
    try:
        link = await testbed.connect(pair=False)
        got: list[bytes] = []
        await link.start_notify("22eac6e9-24d6-4bb5-be44-b36ace7c7bfb", got.append)
        await link.start_notify("9fbf120d-6301-42d9-8c58-25e699a21dbd", got.append)
        await iphone.post("a.b", title="secret")
        with pytest.raises(AttWriteError) as info:
            await link.write("69d1d8f3-45e1-49a8-9821-9bbdfdaad9d9", b"\x00\x01\x00\x00\x00\x00")
        assert info.value.att_code in (0x05, 0x0F)  # insufficient authentication/encryption
        assert got == [] and iphone.refused_unpaired >= 2
    finally:
        await testbed.close()


async def test_replay_over_ancs_helper() -> None:
    from companion_memory.ble.emulator import replay_over_ancs

    base = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    events: list[NotificationEvent | dict[str, str]] = [
        NotificationEvent.create(kind="added", key="k1", app_id="com.a", title="one",
                                 body="first", category="email", posted_at=base),
        {"kind": "added", "key": "k2", "app_id": "com.b", "title": "two", "body": "x",
         "posted_at": "2026-03-10T12:01:00Z"},
        {"kind": "modified", "key": "k1", "app_id": "com.a", "title": "one", "body": "edited",
         "posted_at": "2026-03-10T12:02:00Z"},
        {"kind": "removed", "key": "k2", "app_id": "com.b", "title": "", "body": "",
         "posted_at": "2026-03-10T12:03:00Z"},
    ]
    ring = EventRing()
    stats = await replay_over_ancs(events, ring, zone="Asia/Tokyo")
    out = ring_events(ring)
    assert [(e.kind.value, e.app_id) for e in out] == [
        ("added", "com.a"), ("added", "com.b"), ("modified", "com.a"), ("removed", "com.b")]
    assert out[0].posted_at == base and out[0].category == "email" and out[2].body == "edited"
    assert stats.sent == 4 and stats.published == 3 and stats.removed == 1 and not stats.errors
