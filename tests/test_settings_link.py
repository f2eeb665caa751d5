"""`[link]` settings do what their docstrings say, set in a config file and observed
through a `Runtime` on a fake clock with an emulated phone: the reconnect back-off and
whether the ANCS solicitation is advertised. `kind`, `address` and `adapter` are proved by
the link tests (tests/device/test_link.py, test_link_body_cap.py, and over a mocked BlueZ
test_link_bluez.py); `local_name` over a mocked BlueZ here (marked `bluez`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from companion_memory.ble.advertising import ADVERTISEMENT_PATH
from companion_memory.core.clock import FakeClock
from tests.ble.bluez_env import BluezEnv
from tests.ble.bluez_env import bluez_env as bluez_env  # the fixture, re-exported
from tests.ble.test_advertising import _client, _get
from tests.device.test_link import Phone
from tests.settings_helpers import START, configured, running, settle, wait_for

ANCS = '[link]\nkind = "ancs"\n'


async def test_backoff_initial_s_and_max_s_space_the_reconnects(tmp_path: Path) -> None:
    """No phone answers: attempts at 0 s, then after 10 s (`backoff_initial_s`), then
    after 15 s, 15 s, ... (the doubling stops at `backoff_max_s`), on the runtime's clock."""
    cfg = await configured(tmp_path, ANCS + "advertise = false\nbackoff_initial_s = 10.0\n"
                                            "backoff_max_s = 15.0\n")
    clock = FakeClock(START)
    phone = Phone(fail_first=1000)
    async with running(tmp_path, cfg, clock=clock, start_link=True,
                       link_connect=phone.connect):
        await wait_for(lambda: phone.attempts == 1, what="the first attempt")
        seen = []
        for step in (9.9, 0.1, 14.9, 0.1, 14.9, 0.1):
            await clock.advance(step)
            await settle()
            seen.append(phone.attempts)
    assert seen == [1, 2, 2, 3, 3, 4]


@pytest.mark.parametrize(("advertise", "state"), [(False, "off"), (True, "failed:")])
async def test_advertise_says_whether_the_ancs_solicitation_is_advertised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, advertise: bool, state: str,
) -> None:
    """The system bus is pointed at a socket that does not exist (no radio is touched):
    with `advertise = true` registering is attempted and reported failed; with false it is
    never attempted."""
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", f"unix:path={tmp_path}/no-bus")
    cfg = await configured(tmp_path, ANCS + f"advertise = {str(advertise).lower()}\n")
    phone = Phone()
    async with running(tmp_path, cfg, start_link=True, link_connect=phone.connect) as runtime:
        await wait_for(lambda: phone.attempts >= 1, what="the first connect")
        assert (runtime.link_status().advertising or "").startswith(state)


@pytest.mark.bluez
async def test_local_name_is_the_advertised_name(tmp_path: Path, bluez_env: BluezEnv) -> None:
    """Over bluezoo: the advertisement registered on the configured adapter carries the
    configured `local_name`."""
    cfg = await configured(tmp_path, ANCS + 'adapter = "hci0"\nlocal_name = "wearable-7"\n'
                                            "backoff_initial_s = 60.0\nbackoff_max_s = 60.0\n")
    phone = Phone(fail_first=1000)
    bus = await _client(bluez_env.address)
    try:
        async with running(tmp_path, cfg, start_link=True,
                           link_connect=phone.connect) as runtime:
            await wait_for(lambda: runtime.link_status().advertising != "off",
                           what="advertising")
            assert runtime.link_status().advertising == "on"
            active = await _get(bus, "org.bluez", "/org/bluez/hci0",
                                "org.bluez.LEAdvertisingManager1", "ActiveInstances")
            assert active == 1
            owner = runtime._link._advertiser._bus.unique_name  # type: ignore[union-attr]
            name = await _get(bus, owner, ADVERTISEMENT_PATH, "org.bluez.LEAdvertisement1",
                              "LocalName")
            assert name == "wearable-7"
    finally:
        bus.disconnect()
        await asyncio.sleep(0)
