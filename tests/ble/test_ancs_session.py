"""ANCS session over the PhoneLink seam with an emulated iPhone model (no radio)."""

from __future__ import annotations

import asyncio
import struct
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion_memory.ble.ancs.codec import (
    CategoryID,
    EventFlags,
    EventID,
    NotificationAttributeID,
    NotificationSourcePacket,
)
from companion_memory.ble.ancs.normalize import AncsContentIndex
from companion_memory.ble.ancs.session import AncsSession
from companion_memory.ble.emulator.fake_iphone import FakeIphoneLink
from companion_memory.ble.emulator.iphone_model import AncsPhoneModel
from companion_memory.ble.events import EventKind
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.core.errors import CompanionMemoryError
from tests.ble.helpers import ring_events, until

ZONE = "America/Sao_Paulo"  # UTC-3, no DST


async def _start(link: FakeIphoneLink, ring: EventRing, **kwargs: object) -> tuple[
    AncsSession, asyncio.Task[object]
]:
    session = AncsSession(link, ring, zone=ZONE, clock=kwargs.pop("clock", FakeClock()),  # type: ignore[arg-type]
                          **kwargs)  # type: ignore[arg-type]
    task: asyncio.Task[object] = asyncio.create_task(session.run())
    await until(lambda: len(link.subscribed) == 2)
    return session, task


async def _idle(session: AncsSession) -> None:
    await until(lambda: session.idle)
    for _ in range(20):
        await asyncio.sleep(0)


async def test_add_modify_remove_and_app_name_cache() -> None:
    ring = EventRing()
    link = FakeIphoneLink(mtu=23)
    session, task = await _start(link, ring)
    uid, packet = link.model.add(
        "com.apple.MobileSMS", title="Ana", message="Dinner at 7? " * 20,
        date="20260310T183000", category=CategoryID.SOCIAL,
    )
    link.send_source(packet)
    _, packet2 = link.model.add("com.apple.MobileSMS", title="Bo", message="ok",
                                   date="20260310T183100")
    link.send_source(packet2)
    await _idle(session)
    link.send_source(link.model.modify(uid, message="Dinner at 8?"))
    await _idle(session)
    link.send_source(link.model.remove(uid))
    await _idle(session)
    events = ring_events(ring)
    assert [e.kind for e in events] == [EventKind.ADDED, EventKind.ADDED, EventKind.MODIFIED,
                                        EventKind.REMOVED]
    first, _, modified, removed = events
    assert first.posted_at == datetime(2026, 3, 10, 21, 30, tzinfo=UTC)
    assert first.app_id == "com.apple.MobileSMS" and first.title == "Ana"
    assert first.body == "Dinner at 7? " * 20 and first.category == "social"
    assert first.source == "ancs" and not first.truncated
    assert modified.key == first.key == removed.key and modified.body == "Dinner at 8?"
    assert events[1].key != first.key
    assert session.app_names == {"com.apple.MobileSMS": "MobileSMS"}
    assert link.model.commands.count(1) == 1  # display name fetched once
    link.drop()
    stats = await asyncio.wait_for(task, 5)
    assert stats.published == 3 and stats.removed == 1 and not stats.errors  # type: ignore[attr-defined]


async def test_pre_existing_after_reconnect_is_not_duplicated() -> None:
    ring, index, model = EventRing(), AncsContentIndex(), AncsPhoneModel()
    link = FakeIphoneLink(model)
    session, task = await _start(link, ring, index=index)
    for i in range(3):
        link.send_source(model.add("com.slack", title=f"t{i}", message=f"m{i}",
                                   date="20260310T120000")[1])
    await _idle(session)
    link.drop()
    await asyncio.wait_for(task, 5)
    # While away: one new notification; then the phone re-sends all as PreExisting.
    model.add("com.slack", title="new", message="while away", date="20260310T130000")
    model.renumber()
    link2 = FakeIphoneLink(model)
    session2, task2 = await _start(link2, ring, index=index)
    for packet in model.pre_existing_packets():
        link2.send_source(packet)
    await _idle(session2)
    events = ring_events(ring)
    assert [e.title for e in events] == ["t0", "t1", "t2", "new"]
    assert session2.stats.duplicates == 3 and session2.stats.published == 1
    # A removal in the new session still finds the first session's key.
    first_uid = min(model.notifications)
    link2.send_source(model.remove(first_uid))
    await _idle(session2)
    removed = ring_events(ring)[-1]
    assert removed.kind == EventKind.REMOVED and removed.key == events[0].key
    link2.drop()
    await asyncio.wait_for(task2, 5)


async def test_refused_command_and_timeout_skip_to_next_notification() -> None:
    ring, clock = EventRing(), FakeClock()
    link = FakeIphoneLink()
    session, task = await _start(link, ring, clock=clock, command_timeout=2.0)
    link.model.refuse_next = 0xA2
    link.send_source(link.model.add("a.b", title="refused")[1])
    link.send_source(NotificationSourcePacket(EventID.ADDED, EventFlags(0), 0, 1, 999).encode())
    link.send_source(link.model.add("a.b", title="fine")[1])
    await _idle(session)
    assert session.stats.errors["ancs_invalid_parameter"] == 2
    assert [e.title for e in ring_events(ring)] == ["fine"]
    # A phone that never answers: the command times out on the injected clock.
    silent = link.model.add("a.b", title="silent")[0]
    original = link.on_write
    link.on_write = lambda uuid, data: None
    link.send_source(link.model._packet(EventID.ADDED, EventFlags(0), silent))
    await until(lambda: clock.sleepers == 1)
    await clock.advance(2.0)
    link.on_write = original
    link.send_source(link.model.add("a.b", title="after")[1])
    await _idle(session)
    assert session.stats.errors["command_timeout"] == 1
    assert [e.title for e in ring_events(ring)] == ["fine", "after"]
    link.drop()
    await asyncio.wait_for(task, 5)


async def test_bad_input_is_counted_and_the_session_goes_on() -> None:
    ring = EventRing()
    link = FakeIphoneLink()
    session, task = await _start(link, ring)
    model = link.model
    link.send_source(b"\x00\x01")  # short Notification Source
    link.send_data(b"\x00garbage")  # Data Source with nothing outstanding
    model.add("x.y", title="bad", message="z")
    bad_uid = max(model.notifications)
    model.notifications[bad_uid] = replace(
        model.notifications[bad_uid], raw=((NotificationAttributeID.TITLE, b"ok\xff\xfe"),)
    )
    link.send_source(model._packet(EventID.ADDED, EventFlags(0), bad_uid))
    _, bad_date = model.add("x.y", title="date", date="2026-03-10 18:30")
    link.send_source(bad_date)
    link.send_source(model.add("x.y", title="good", message="fine")[1])
    await _idle(session)
    assert session.stats.errors["ancs_bad_notification_source"] == 1
    assert session.stats.stray_fragments >= 1
    assert session.stats.errors["ancs_bad_date"] == 1
    assert session.stats.errors["ancs_invalid_utf8"] == 1
    assert [e.title for e in ring_events(ring)][-1] == "good"
    link.drop()
    await asyncio.wait_for(task, 5)


async def test_foreign_uid_response_is_refused_and_next_works() -> None:
    ring = EventRing()
    link = FakeIphoneLink()
    session, task = await _start(link, ring)
    uid, packet = link.model.add("a.b", title="one")
    original = link.on_write

    def wrong_uid(uuid: str, data: bytes) -> None:
        link.on_write = original
        forged = data[:1] + struct.pack("<I", uid + 100) + data[5:]
        link.model.notifications[uid + 100] = link.model.notifications[uid]
        response = link.model.handle_control_point(forged)
        assert response is not None
        link.send_data(response)

    link.on_write = wrong_uid
    link.send_source(packet)
    link.send_source(link.model.add("a.b", title="two")[1])
    await _idle(session)
    assert session.stats.errors["ancs_wrong_uid"] == 1
    assert [e.title for e in ring_events(ring)] == ["two"]
    link.drop()
    await asyncio.wait_for(task, 5)


async def test_long_message_is_capped_and_flagged() -> None:
    ring = EventRing()
    link = FakeIphoneLink(mtu=185)
    session, task = await _start(link, ring)
    link.send_source(link.model.add("a.b", title="long", message="é" * 3000)[1])
    await _idle(session)
    (event,) = ring_events(ring)
    assert event.truncated and len(event.body.encode()) <= 4096 and event.body == "é" * 2048
    link.drop()
    await asyncio.wait_for(task, 5)


async def test_bad_zone_is_refused() -> None:
    with pytest.raises(CompanionMemoryError, match="IANA"):
        await AncsSession(FakeIphoneLink(), EventRing(), zone="Mars/Olympus").run()
    with pytest.raises(ValueError, match="IANA"):
        AncsSession(FakeIphoneLink(), EventRing(), zone=" ")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["ns", "ds"]), st.binary(max_size=30)), max_size=12))
def test_fuzz_session_never_crashes(junk: list[tuple[str, bytes]]) -> None:
    async def scenario() -> None:
        ring = EventRing()
        link = FakeIphoneLink()
        session, task = await _start(link, ring)
        for channel, data in junk:
            (link.send_source if channel == "ns" else link.send_data)(data)
            await asyncio.sleep(0)
        await _idle(session)
        link.send_source(link.model.add("ok.app", title="sentinel", message="after junk")[1])
        await _idle(session)
        assert not task.done()
        assert ring_events(ring)[-1].title == "sentinel"
        link.drop()
        await asyncio.wait_for(task, 5)

    asyncio.run(scenario())
