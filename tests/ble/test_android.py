"""Android companion protocol: codec, fuzz, session, and end to end over bumble."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion_memory.ble.android.protocol import (
    EVENT_CHARACTERISTIC_UUID,
    AckStatus,
    AndroidCodecError,
    ControlType,
    FrameAssembler,
    decode_payload,
    encode_control,
    encode_message,
    encode_payload,
    parse_control,
)
from companion_memory.ble.android.session import AndroidSession
from companion_memory.ble.emulator.bumble_android import EmulatedAndroidPhone
from companion_memory.ble.emulator.bumble_link import BumbleTestbed
from companion_memory.ble.events import EventKind, NotificationEvent
from companion_memory.ble.link import FakePhoneLink
from companion_memory.ble.ring import EventRing
from tests.ble.helpers import ring_events, until, until_real

T0 = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def _event(
    kind: str = "added", key: str = "0|com.whatsapp|1", body: str = "hello"
) -> NotificationEvent:
    return NotificationEvent.create(kind=kind, key=key, app_id="com.whatsapp", title="Ana",
                                    body=body, category="msg", posted_at=T0)


def test_roundtrip_at_every_mtu() -> None:
    event = _event(body="olá " * 300)
    for mtu in range(23, 518, 7):
        assembler = FrameAssembler()
        frames = encode_message(event, 513, mtu)
        assert all(len(f) <= mtu - 3 for f in frames)
        results = [assembler.feed(f) for f in frames]
        assert results[:-1] == [None] * (len(frames) - 1)
        done = results[-1]
        assert done is not None and done[0] == 513
        decoded = decode_payload(done[1], 513)
        assert decoded.to_dict() | {"source": "android"} == event.to_dict() | {"source": "android"}


def test_control_records() -> None:
    record = encode_control(ControlType.NACK, 7, AckStatus.BAD_JSON)
    assert record == bytes([1, 2, 7, 0, 17])
    assert parse_control(record) == (ControlType.NACK, 7, 17)
    with pytest.raises(AndroidCodecError):
        parse_control(b"\x09\x01\x00\x00\x00")


@pytest.mark.parametrize(
    ("frames", "code"),
    [
        ([b"\x01\x00"], "android_bad_frame"),
        ([bytes([2, 1, 0, 0, 1]) + b"{}"], "android_bad_frame"),
        ([bytes([1, 1, 0, 1, 2]) + b"{}"], "android_bad_frame"),  # starts at chunk 1
        ([bytes([1, 1, 0, 0, 1]) + b"\xff{"], "android_bad_json"),
        ([bytes([1, 1, 0, 0, 1]) + b'{"kind": "added"}'], "android_invalid_event"),
    ],
)
def test_bad_frames_are_typed(frames: list[bytes], code: str) -> None:
    assembler = FrameAssembler()
    with pytest.raises(AndroidCodecError) as info:
        for frame in frames:
            done = assembler.feed(frame)
            if done is not None:
                decode_payload(done[1], done[0])
    assert info.value.code == code


def test_oversized_message_is_refused() -> None:
    assembler = FrameAssembler(max_message_bytes=100)
    frames = encode_payload(b"x" * 300, 3, 23)
    with pytest.raises(AndroidCodecError) as info:
        for frame in frames:
            assembler.feed(frame)
    assert info.value.status == AckStatus.TOO_LARGE


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=20))
def test_fuzz_assembler(frames: list[bytes]) -> None:
    assembler = FrameAssembler(max_message_bytes=200)
    for frame in frames:
        try:
            done = assembler.feed(frame)
            if done is not None:
                decode_payload(done[1], done[0])
        except AndroidCodecError as exc:
            assert exc.code.startswith("android_")


async def test_session_publishes_acks_and_nacks_over_fake_link() -> None:
    ring = EventRing()
    link = FakePhoneLink()
    session = AndroidSession(link, ring)
    task = asyncio.create_task(session.run())
    await asyncio.wait_for(session.wait_subscribed(), 5)
    for frame in encode_message(_event(), 1, 23):
        link.notify(EVENT_CHARACTERISTIC_UUID, frame)
    link.notify(EVENT_CHARACTERISTIC_UUID, bytes([1, 2, 0, 0, 1]) + b"not json")
    for frame in encode_message(_event(), 3, 23):  # a resend: ring drops it
        link.notify(EVENT_CHARACTERISTIC_UUID, frame)
    await asyncio.wait_for(session.wait_messages(3), 5)
    await until(lambda: len(link.writes) == 4)
    assert [parse_control(data) for _, data in link.writes] == [
        (ControlType.RESEND_ACTIVE, 0, AckStatus.PUBLISHED),  # first: what do you show?
        (ControlType.ACK, 1, AckStatus.PUBLISHED),
        (ControlType.NACK, 2, AckStatus.BAD_JSON),
        (ControlType.ACK, 3, AckStatus.DUPLICATE),
    ]
    assert len(ring_events(ring)) == 1 and session.stats.resend_requests == 1
    link.drop()
    await asyncio.wait_for(task, 5)


async def test_bumble_companion_end_to_end_with_reconnect() -> None:
    ring = EventRing()
    testbed = BumbleTestbed()
    await testbed.power_on()
    phone = EmulatedAndroidPhone(testbed.phone)
    try:
        session = AndroidSession(await testbed.connect(mtu=64), ring)
        task = asyncio.create_task(session.run())
        await asyncio.wait_for(session.wait_subscribed(), 10)
        # the phone sends only to a connection whose CCCD write it has seen
        await until_real(lambda: bool(phone._connections()))
        first = await phone.send(_event(body="Dinner at 7? " * 40))
        second = await phone.send(_event(kind="modified", body="Dinner at 8?"))
        await phone.send_frames([b"\x01"])  # garbage: counted, no nack (no seq)
        await asyncio.wait_for(session.wait_messages(2), 10)
        await until_real(lambda: not phone.unacked and len(phone.acks) >= 2)
        # Both are acknowledged as published. The session's resend request may reach the
        # phone after its first send (a race of the transport): what it re-sends then
        # is acknowledged as a duplicate and never reaches the ring twice.
        published = [seq for kind, seq, status in phone.acks
                     if kind is ControlType.ACK and status == AckStatus.PUBLISHED]
        assert published == [first, second]
        assert all(kind is ControlType.ACK and (seq in published or status == AckStatus.DUPLICATE)
                   for kind, seq, status in phone.acks), phone.acks
        # Disconnect before the removal is acknowledged: the phone re-sends it.
        phone.acks.clear()
        await phone.disconnect()
        await asyncio.wait_for(task, 10)
        seq = await phone.send(_event(kind="removed", body=""))
        assert seq in phone.unacked
        session2 = AndroidSession(await testbed.connect(mtu=23), ring)
        task2 = asyncio.create_task(session2.run())
        await asyncio.wait_for(session2.wait_messages(1), 10)
        await until_real(lambda: not phone.unacked)
        assert phone.unacked == {}
        await phone.disconnect()
        await asyncio.wait_for(task2, 10)
    finally:
        await testbed.close()
    events = ring_events(ring)
    assert [e.kind for e in events] == [EventKind.ADDED, EventKind.MODIFIED, EventKind.REMOVED]
    assert {e.source for e in events} == {"android"} and events[0].body.startswith("Dinner at 7?")
    assert session.stats.errors["android_bad_frame"] == 1
    assert orjson.loads(orjson.dumps(events[2].to_dict()))["key"] == "0|com.whatsapp|1"
