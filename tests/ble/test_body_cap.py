"""The intake body cap (`intake.body_limit_bytes`) on each phone link's own path.

The ANCS session asks the phone for at most the cap (a response longer than asked
is refused whole by the reassembler, a protocol bound) and the decoder cuts any
Message longer than the cap; the Android session cuts the body of each message;
`PhoneLinkService` hands the cap to both. Every cut lands on a UTF-8 character
boundary and flags the event `truncated`.
"""

from __future__ import annotations

import asyncio
import struct

import pytest

from companion_memory.ble.ancs.codec import (
    CONTROL_POINT_UUID,
    LENGTH_PREFIXED_ATTRIBUTES,
    NOTIFICATION_SOURCE_UUID,
    CommandID,
    NotificationAttributeID,
)
from companion_memory.ble.ancs.normalize import (
    decode_notification_attributes,
    notification_attribute_specs,
)
from companion_memory.ble.ancs.reassembler import AttributeRequest, AttributeResponse
from companion_memory.ble.ancs.session import AncsSession
from companion_memory.ble.android.protocol import EVENT_CHARACTERISTIC_UUID, encode_message
from companion_memory.ble.android.session import AndroidSession
from companion_memory.ble.emulator.fake_iphone import FakeIphoneLink
from companion_memory.ble.emulator.iphone_model import AncsPhoneModel
from companion_memory.ble.events import BODY_LIMIT_BYTES, NotificationEvent, cap_body
from companion_memory.ble.link import FakePhoneLink, PhoneLink
from companion_memory.ble.ring import EventRing
from companion_memory.ble.settings import LinkSettings
from companion_memory.core.clock import FakeClock
from companion_memory.device.link import PhoneLinkService
from tests.ble.helpers import ring_events, until

CAP = 100
BODY = "é" * 80 + "x"  # 161 bytes; 100 bytes cut the 50th "é" in half
CUT = "é" * 50  # what is left at a character boundary


def message_max_lengths(request: bytes) -> list[int]:
    """The Message max lengths a Get Notification Attributes request asks for."""
    assert request[0] == CommandID.GET_NOTIFICATION_ATTRIBUTES
    out, pos = [], 5
    while pos < len(request):
        attribute_id = request[pos]
        pos += 1
        if attribute_id in LENGTH_PREFIXED_ATTRIBUTES:
            if attribute_id == NotificationAttributeID.MESSAGE:
                out.append(struct.unpack_from("<H", request, pos)[0])
            pos += 2
    return out


class GreedyPhone(AncsPhoneModel):
    """An iPhone that ignores the requested maximum lengths and sends everything."""

    def _notification_attributes(self, data: bytes) -> bytes:
        request, pos = bytearray(data), 5
        while pos < len(request):
            attribute_id = request[pos]
            pos += 1
            if attribute_id in LENGTH_PREFIXED_ATTRIBUTES:
                struct.pack_into("<H", request, pos, 0xFFFF)
                pos += 2
        return super()._notification_attributes(bytes(request))


def attribute_requests(link: FakePhoneLink) -> list[bytes]:
    return [data for uuid, data in link.writes
            if uuid == CONTROL_POINT_UUID.lower()
            and data[:1] == bytes([CommandID.GET_NOTIFICATION_ATTRIBUTES])]


async def _serve_one_ancs(link: FakeIphoneLink, ring: EventRing) -> NotificationEvent:
    session = AncsSession(link, ring, zone="UTC", clock=FakeClock(), message_limit=CAP)
    task = asyncio.create_task(session.run())
    await until(lambda: len(link.subscribed) == 2)
    link.send_source(link.model.add("a.b", title="t", message=BODY)[1])
    await until(lambda: ring.statistics().published == 1)
    link.drop()
    await asyncio.wait_for(task, 5)
    (event,) = ring_events(ring)
    return event


async def test_ancs_asks_for_at_most_the_cap() -> None:
    link = FakeIphoneLink(mtu=185)
    event = await _serve_one_ancs(link, EventRing())
    assert [message_max_lengths(r) for r in attribute_requests(link)] == [[CAP]]
    assert event.body == CUT and event.truncated


def test_ancs_decoder_cuts_a_message_longer_than_the_cap() -> None:
    specs = notification_attribute_specs(BODY_LIMIT_BYTES)  # asked for more than the cap
    request = AttributeRequest.notification(7, specs)
    raw = BODY.encode("utf-8")
    response = AttributeResponse(request, {
        NotificationAttributeID.APP_IDENTIFIER: b"a.b", NotificationAttributeID.TITLE: b"t",
        NotificationAttributeID.MESSAGE: raw,
        NotificationAttributeID.MESSAGE_SIZE: str(len(raw)).encode(),
    })
    attrs = decode_notification_attributes(response, CAP)
    assert attrs.message == CUT and attrs.truncated
    whole = decode_notification_attributes(response, BODY_LIMIT_BYTES)
    assert whole.message == BODY and not whole.truncated


async def test_ancs_refuses_a_response_longer_than_it_asked_for() -> None:
    link = FakeIphoneLink(GreedyPhone(), mtu=185)
    ring = EventRing()
    session = AncsSession(link, ring, zone="UTC", clock=FakeClock(), message_limit=CAP)
    task = asyncio.create_task(session.run())
    await until(lambda: len(link.subscribed) == 2)
    link.send_source(link.model.add("a.b", title="t", message=BODY)[1])
    await asyncio.wait_for(session.wait_handled(1), 5)
    link.drop()
    await asyncio.wait_for(task, 5)
    assert ring_events(ring) == [] and session.stats.errors["ancs_attribute_too_long"] == 1


async def test_android_session_cuts_the_body_at_a_character_boundary() -> None:
    ring, link = EventRing(), FakePhoneLink()
    session = AndroidSession(link, ring, body_limit_bytes=CAP)
    task = asyncio.create_task(session.run())
    await asyncio.wait_for(session.wait_subscribed(), 5)
    event = NotificationEvent.create(kind="added", key="k1", app_id="com.whatsapp",
                                     title="t", body=BODY, posted_at=FakeClock().now())
    for frame in encode_message(event, 1, 185):
        link.notify(EVENT_CHARACTERISTIC_UUID, frame)
    short = NotificationEvent.create(kind="added", key="k2", app_id="com.whatsapp",
                                     title="t", body="fits", posted_at=FakeClock().now())
    for frame in encode_message(short, 2, 185):
        link.notify(EVENT_CHARACTERISTIC_UUID, frame)
    await asyncio.wait_for(session.wait_messages(2), 5)
    link.drop()
    await asyncio.wait_for(task, 5)
    cut, kept = ring_events(ring)
    assert cut.body == CUT and cut.truncated
    assert kept.body == "fits" and not kept.truncated


@pytest.mark.parametrize("kind", ["ancs", "android"])
async def test_the_link_service_hands_the_cap_to_its_session(kind: str) -> None:
    ring = EventRing()
    links: list[FakePhoneLink] = []
    event = NotificationEvent.create(kind="added", key="k1", app_id="com.whatsapp",
                                     title="t", body=BODY, posted_at=FakeClock().now())

    async def connect() -> PhoneLink:
        link: FakePhoneLink = (FakeIphoneLink(mtu=185) if kind == "ancs"
                               else FakePhoneLink())
        links.append(link)
        return link

    service = PhoneLinkService(
        LinkSettings(kind=kind, advertise=False), ring, zone="UTC", clock=FakeClock(),
        connect=connect, body_limit_bytes=CAP,
    )
    await service.start()
    try:
        await until(lambda: bool(links))
        link = links[0]
        if isinstance(link, FakeIphoneLink):
            await until(lambda: NOTIFICATION_SOURCE_UUID.lower() in link.subscribed)
            link.send_source(link.model.add("a.b", title="t", message=BODY)[1])
        else:
            await until(lambda: EVENT_CHARACTERISTIC_UUID.lower() in link.subscribed)
            for frame in encode_message(event, 1, 185):
                link.notify(EVENT_CHARACTERISTIC_UUID, frame)
        await until(lambda: ring.statistics().published == 1)
    finally:
        await service.stop()
    (published,) = ring_events(ring)
    assert published.body == CUT and published.truncated


def test_cap_body_keeps_what_fits_and_refuses_a_bad_cap() -> None:
    event = NotificationEvent.create(kind="added", key="k", app_id="a", body="€uro",
                                     posted_at=FakeClock().now())
    assert cap_body(event, 6) is event
    assert cap_body(event, 2).body == "" and cap_body(event, 3).body == "€"
    for bad in (0, True, 1.5):
        with pytest.raises(ValueError, match="positive number of bytes"):
            cap_body(event, bad)  # type: ignore[arg-type]
