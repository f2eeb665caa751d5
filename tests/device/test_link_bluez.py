"""The product's real phone path end to end over a mocked BlueZ (bluezoo), one process.

An emulated iPhone registers the ANCS GATT service on bluezoo's hci1 and posts a
notification; the `Runtime`'s own `PhoneLinkService` connects with its default
connect (`ble.bleak_link.connect_phone` with the configured address and adapter:
unmodified bleak over the private system bus named by DBUS_SYSTEM_BUS_ADDRESS),
advertises the ANCS solicitation on hci0, runs an `AncsSession` into the
`EventRing`; the ring writer makes the notification durable, `run_once()` a
recallable memory.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from companion_memory.ble.emulator.bluez_iphone import BluezIphone, disconnect_device
from companion_memory.device.config import Config, parse_config
from companion_memory.device.runtime import Runtime
from companion_memory.testing import event_ring
from tests.ble.bluez_env import PHONE, BluezEnv, close_bleak_manager
from tests.ble.bluez_env import bluez_env as bluez_env  # the fixture, re-exported

pytestmark = pytest.mark.bluez

APP = "net.whatsapp.WhatsApp"


@pytest.fixture
def bluez_link_config() -> Config:
    """Parsed off the event loop (checking the zone reads tzdata). The reconnect
    back-off is long: after the test ends the session, the loop must wait, not redial
    (bluezoo cannot let the wearable dial the same device twice)."""
    return parse_config({
        "link": {"kind": "ancs", "address": PHONE, "adapter": "hci0", "advertise": True,
                 "backoff_initial_s": 60.0, "backoff_max_s": 60.0},
        "sweep": {"zone": "Europe/Berlin"},
    })


async def _until(predicate: Callable[[], bool], what: str) -> None:
    """Poll `predicate` (bluezoo's and bleak's changes arrive as signals); fail naming
    `what` after a generous 30 s."""
    deadline = time.monotonic() + 30
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within 30 s")
        await asyncio.sleep(0.01)


async def _discover(phone: BluezIphone) -> None:
    """Scan on the wearable's adapter, then start the phone (bluezoo reports an
    advertisement that existed before the scan only on a later round), until seen."""
    from bleak import BleakScanner

    async with BleakScanner(bluez={"adapter": "hci0"}) as scanner:
        await phone.start()
        await _until(lambda: PHONE in scanner.discovered_devices_and_advertisement_data,
                     "the wearable seeing the phone")


async def test_runtime_link_over_bleak_and_bluezoo_end_to_end(
    bluez_env: BluezEnv, bluez_link_config: Config, tmp_path: Path
) -> None:
    phone = BluezIphone(bluez_env.address)
    phone.model.app_names[APP] = "WhatsApp"
    try:
        await _discover(phone)
        async with Runtime(bluez_link_config, root=tmp_path / "memory",
                           start_worker=False) as runtime:
            assert runtime.link_status().kind == "ancs"
            await _until(lambda: phone.subscribed, "the runtime subscribing to ANCS")
            phone.post(APP, title="Anna", message="Dinner Saturday at 7?",
                       date="20260314T183000")
            await _until(lambda: event_ring(runtime).statistics().published == 1,
                         "the notification reaching the ring")
            link = (await runtime.status()).link
            assert link.kind == "ancs" and link.connected is True
            assert link.advertising == "on" and link.connect_failures == {}

            report = await runtime.run_once()
            # the ring writer made it durable on arrival; the round read it from the log
            assert (await runtime.status()).intake["written_persisted"] == 1
            notes = report.report_for("notifications")
            assert notes is not None and notes.consumed == 0 and notes.applied == 1
            records = await runtime.notifications_between(
                datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC), limit=10)
            assert [(r.event.app_id, r.event.title) for r in records] == [(APP, "Anna")]
            assert records[0].event.posted_at.isoformat() == "2026-03-14T17:30:00+00:00"
            hits = await runtime.recall_memory("dinner Saturday")
            assert len(hits) == 1

            # The phone drops the link: the session ends and is counted; the runtime lives on.
            await disconnect_device(phone, PHONE, adapter_path="/org/bluez/hci0")
            await _until(lambda: runtime.link_status().sessions == 1, "the session ending")
            link = (await runtime.status()).link
            assert link.connected is False and link.connect_failures == {}
            assert [s["published"] for s in link.recent_sessions] == [1]
            assert (await runtime.status()).pending == 0
        assert runtime.link_status().advertising == "off"
    finally:
        await phone.stop()
        await close_bleak_manager()
