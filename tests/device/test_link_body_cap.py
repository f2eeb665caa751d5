"""`intake.body_limit_bytes` reaches the phone sessions the runtime runs (ANCS and
Android), not only the feed path: a longer body lands on the ring cut at a UTF-8
character boundary and flagged `truncated`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from companion_memory.ble.ancs.codec import NOTIFICATION_SOURCE_UUID
from companion_memory.ble.android.protocol import EVENT_CHARACTERISTIC_UUID, encode_message
from companion_memory.ble.emulator.fake_iphone import FakeIphoneLink
from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.link import FakePhoneLink, PhoneLink
from companion_memory.device.config import Config, parse_config
from companion_memory.device.runtime import Runtime
from companion_memory.testing import event_ring
from tests.ble.helpers import ring_events
from tests.device.test_link import wait_for

CAP = 100
BODY = "é" * 80 + "x"
CUT = "é" * 50
POSTED = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def capped_config(kind: str) -> Config:
    """Parsed outside the event loop: checking the zone reads tzdata files."""
    return parse_config({
        "intake": {"body_limit_bytes": CAP},
        "link": {"kind": kind, "advertise": False, "backoff_initial_s": 0.1,
                 "backoff_max_s": 0.2},
    })


@pytest.fixture
def ancs_capped() -> Config:
    return capped_config("ancs")


@pytest.fixture
def android_capped() -> Config:
    return capped_config("android")


async def _published(runtime: Runtime) -> NotificationEvent:
    await wait_for(lambda: event_ring(runtime).statistics().published == 1)
    (event,) = ring_events(event_ring(runtime))
    return event


async def test_the_ancs_session_gets_the_configured_cap(
        tmp_path: Path, ancs_capped: Config) -> None:
    links: list[FakeIphoneLink] = []

    async def connect() -> PhoneLink:
        links.append(FakeIphoneLink(mtu=185))
        return links[-1]

    async with Runtime(ancs_capped, root=tmp_path, start_worker=False,
                       link_connect=connect) as runtime:
        await wait_for(lambda: bool(links)
                       and NOTIFICATION_SOURCE_UUID.lower() in links[0].subscribed)
        links[0].send_source(links[0].model.add("a.b", title="t", message=BODY)[1])
        event = await _published(runtime)
    assert event.body == CUT and event.truncated


async def test_the_android_session_gets_the_configured_cap(
        tmp_path: Path, android_capped: Config) -> None:
    links: list[FakePhoneLink] = []

    async def connect() -> PhoneLink:
        links.append(FakePhoneLink())
        return links[-1]

    sent = NotificationEvent.create(kind="added", key="k1", app_id="com.whatsapp", title="t",
                                    body=BODY, posted_at=POSTED)
    async with Runtime(android_capped, root=tmp_path, start_worker=False,
                       link_connect=connect) as runtime:
        await wait_for(lambda: bool(links)
                       and EVENT_CHARACTERISTIC_UUID.lower() in links[0].subscribed)
        for frame in encode_message(sent, 1, 185):
            links[0].notify(EVENT_CHARACTERISTIC_UUID, frame)
        event = await _published(runtime)
    assert event.body == CUT and event.truncated


async def test_the_feed_path_keeps_its_cap(tmp_path: Path, ancs_capped: Config) -> None:
    async with Runtime(ancs_capped, root=tmp_path, start_worker=False,
                       start_link=False) as runtime:
        runtime.publish(NotificationEvent.create(
            kind="added", key="k", app_id="a", body=BODY, posted_at=POSTED))
        event = await _published(runtime)
    assert event.body == CUT and event.truncated
