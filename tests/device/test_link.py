"""The runtime runs the configured phone link: notifications from an emulated iPhone
reach the ring, the log and memory; a dropped link is reconnected with de-duplication."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from companion_memory.ble.ancs.codec import NOTIFICATION_SOURCE_UUID
from companion_memory.ble.emulator.fake_iphone import FakeIphoneLink
from companion_memory.ble.emulator.iphone_model import AncsPhoneModel
from companion_memory.ble.errors import PhoneLinkError
from companion_memory.ble.link import PhoneLink
from companion_memory.device.config import Config, parse_config
from companion_memory.device.errors import ConfigError
from companion_memory.device.results import LinkStatus
from companion_memory.device.runtime import Runtime
from companion_memory.testing import event_ring, runtime_clock


class Phone:
    """One emulated iPhone; each connect() is a new subscription (fresh UIDs, PreExisting)."""

    def __init__(self, fail_first: int = 0) -> None:
        self.model = AncsPhoneModel(app_names={"net.whatsapp.WhatsApp": "WhatsApp"})
        self.links: list[FakeIphoneLink] = []
        self.fail_first = fail_first
        self.attempts = 0

    async def connect(self) -> PhoneLink:
        self.attempts += 1
        if self.attempts <= self.fail_first:
            raise PhoneLinkError("no phone yet", code="phone_not_found")
        if self.links:
            self.model.renumber()
        link = FakeIphoneLink(self.model, mtu=23)
        self.links.append(link)
        asyncio.get_running_loop().create_task(self._after_subscribe(link))
        return link

    async def _after_subscribe(self, link: FakeIphoneLink) -> None:
        await wait_for(lambda: NOTIFICATION_SOURCE_UUID.lower() in link.subscribed)
        for packet in self.model.pre_existing_packets():
            link.send_source(packet)


async def wait_for(predicate: Callable[[], bool]) -> None:
    """Poll `predicate` (the fake link has no events to wait on); fail after a generous
    30 s: the runtime's threads and the real reconnect back-off run in between."""
    deadline = time.monotonic() + 30
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached within 30 s")
        await asyncio.sleep(0.005)


def link_config(**link: object) -> Config:
    """Parsed outside the event loop: checking the zone reads tzdata files."""
    return parse_config({
        "link": {"kind": "ancs", "advertise": False, "backoff_initial_s": 0.1,
                 "backoff_max_s": 0.2, **link},
        "sweep": {"zone": "Europe/Berlin"},
    })


@pytest.fixture
def ancs_config() -> Config:
    return link_config()


@pytest.fixture
def advertising_config() -> Config:
    return link_config(advertise=True)


@pytest.fixture
def default_config() -> Config:
    return parse_config({})


async def test_runtime_serves_an_iphone_and_reconnects_without_duplicates(
    tmp_path: Path, ancs_config: Config
) -> None:
    phone = Phone(fail_first=2)
    async with Runtime(ancs_config, root=tmp_path, start_worker=False,
                       link_connect=phone.connect) as runtime:
        await wait_for(lambda: bool(phone.links))
        link = phone.links[0]
        await wait_for(lambda: NOTIFICATION_SOURCE_UUID.lower() in link.subscribed)
        _, packet = phone.model.add(
            "net.whatsapp.WhatsApp", title="Anna", message="Dinner Saturday at 7?",
            date="20260314T183000",
        )
        link.send_source(packet)
        await wait_for(lambda: event_ring(runtime).statistics().published == 1)
        status = await runtime.status()
        assert status.link.kind == "ancs" and status.link.connected
        assert status.link.connect_failures == {"phone_not_found": 2}
        # The phone goes away and comes back: it re-sends the notification as PreExisting
        # under a new UID; the ring gets no duplicate.
        link.drop()
        await wait_for(lambda: len(phone.links) == 2 and phone.links[1].writes != [])
        # The session handles one notification at a time, in order: once a notification
        # posted after the reconnect is published, the re-sent one has been handled.
        _, packet = phone.model.add(
            "net.whatsapp.WhatsApp", title="Ben", message="Bring the tent on Sunday",
            date="20260314T184000",
        )
        phone.links[1].send_source(packet)
        await wait_for(lambda: event_ring(runtime).statistics().published == 2)
        entries = event_ring(runtime).events_since(0, 10).entries
        assert [entry.event.title for entry in entries] == ["Anna", "Ben"]
        report = await runtime.run_once()
        # The ring writer made it durable (intake persists on arrival); the round
        # read it from the log and remembered it.
        intake = (await runtime.status()).intake
        assert intake["written_persisted"] == 2 and intake["in_ring"] == 0
        notes = report.report_for("notifications")
        assert notes is not None and notes.consumed == 0 and notes.applied == 2
        hits = await runtime.recall_memory("dinner Saturday")
        assert "dinner" in hits[0].record.text.casefold()
        records = await runtime.notifications_between(
            hits[0].record.created_at.replace(year=2000), hits[0].record.created_at.replace(
                year=2100), limit=10)
        assert records[0].event.app_id == "net.whatsapp.WhatsApp"
        assert records[0].event.posted_at.isoformat() == "2026-03-14T17:30:00+00:00"
    assert runtime.link_status().sessions >= 1  # the final figures stay readable


async def test_link_none_starts_nothing(tmp_path: Path, default_config: Config) -> None:
    async with Runtime(default_config, root=tmp_path, start_worker=False) as runtime:
        assert runtime.link_status() == LinkStatus(kind="none")
        assert (await runtime.status()).link.to_dict()["kind"] == "none"


def test_link_config_errors_name_the_key() -> None:
    with pytest.raises(ConfigError, match=r"link\.kind"):
        parse_config({"link": {"kind": "zigbee"}})
    with pytest.raises(ConfigError, match=r"link\.backoff_initial_s = 30.0 must not exceed"):
        parse_config({"link": {"backoff_initial_s": 30.0, "backoff_max_s": 10.0}})


async def test_advertising_failure_is_reported_not_fatal(
    tmp_path: Path, advertising_config: Config
) -> None:
    class RefusingAdvertiser:
        async def start(self) -> None:
            raise PhoneLinkError("BlueZ refused", code="advertising_failed")

        async def stop(self) -> None:
            raise AssertionError("never registered, never stopped")

    from companion_memory.device.link import PhoneLinkService

    phone = Phone()
    runtime = Runtime(advertising_config, root=tmp_path, start_worker=False, start_link=False)
    async with runtime:
        service = PhoneLinkService(
            runtime.config.link, event_ring(runtime), zone="UTC", clock=runtime_clock(runtime),
            connect=phone.connect, advertiser=RefusingAdvertiser(),
        )
        await service.start()
        await wait_for(lambda: bool(phone.links))
        assert service.status()["advertising"] == "failed:advertising_failed"
        await service.stop()
