"""`AncsAdvertiser` against bluezoo's `LEAdvertisingManager1` on a private bus.

bluezoo implements RegisterAdvertisement/UnregisterAdvertisement and counts
`ActiveInstances`; it reads the advertisement's properties from our exported
object, and its scan reports our adapter to the phone's adapter under the
advertisement's LocalName. It does not put SolicitUUIDs into what a scanner
sees, so the solicitation is read back from the exported object over the bus,
exactly as BlueZ reads it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from companion_memory.ble.advertising import ADVERTISEMENT_PATH, AncsAdvertiser
from companion_memory.ble.ancs.codec import ANCS_SERVICE_UUID
from companion_memory.ble.errors import PhoneLinkError
from tests.ble.bluez_env import WEARABLE, BluezEnv, close_bleak_manager

pytestmark = pytest.mark.bluez


async def _client(address: str) -> Any:
    from dbus_fast import BusType
    from dbus_fast.aio import MessageBus

    return await MessageBus(bus_address=address, bus_type=BusType.SYSTEM).connect()


async def _get(bus: Any, service: str, path: str, interface: str, name: str) -> Any:
    from dbus_fast import Message

    reply = await bus.call(Message(
        destination=service, path=path, interface="org.freedesktop.DBus.Properties",
        member="Get", signature="ss", body=[interface, name]))
    assert reply.message_type.name == "METHOD_RETURN", reply.body
    return reply.body[0].value


async def _add_match(bus: Any, rule: str) -> None:
    from dbus_fast import Message

    await bus.call(Message(destination="org.freedesktop.DBus", path="/org/freedesktop/DBus",
                           interface="org.freedesktop.DBus", member="AddMatch",
                           signature="s", body=[rule]))


def _watch(bus: Any, owner: str, order: list[str]) -> None:
    """Record, in arrival order, ActiveInstances dropping to 0 and `owner` leaving the bus."""

    def handler(message: Any) -> None:
        if message.member == "NameOwnerChanged" and message.body[0] == owner:
            order.append("bus closed")
        elif message.member == "PropertiesChanged":
            changed = message.body[1].get("ActiveInstances")
            if changed is not None and changed.value == 0:
                order.append("unregistered")

    bus.add_message_handler(handler)


async def test_advertiser_registers_the_ancs_solicitation_and_stop_unregisters(
    bluez_env: BluezEnv,
) -> None:
    from bleak import BleakScanner

    bus = await _client(bluez_env.address)
    advertiser = AncsAdvertiser(adapter_path="/org/bluez/hci0", local_name="companion",
                                bus_address=bluez_env.address)
    active = ("org.bluez", "/org/bluez/hci0", "org.bluez.LEAdvertisingManager1",
              "ActiveInstances")
    try:
        assert await _get(bus, *active) == 0
        async with BleakScanner(bluez={"adapter": "hci1"}) as scanner:  # the phone scans
            await advertiser.start()
            assert advertiser.registered
            assert await _get(bus, *active) == 1
            owner = advertiser._bus.unique_name
            iface = "org.bluez.LEAdvertisement1"
            solicit = await _get(bus, owner, ADVERTISEMENT_PATH, iface, "SolicitUUIDs")
            assert solicit == [ANCS_SERVICE_UUID]
            assert await _get(bus, owner, ADVERTISEMENT_PATH, iface, "Type") == "peripheral"
            for _ in range(2000):  # the phone sees the wearable under our LocalName
                seen = scanner.discovered_devices_and_advertisement_data.get(WEARABLE)
                if seen is not None and seen[0].name == "companion":
                    break
                await asyncio.sleep(0.01)
            else:
                raise AssertionError("the phone never saw the wearable's advertisement")
        order: list[str] = []
        _watch(bus, owner, order)
        await _add_match(bus, "type='signal',member='NameOwnerChanged'")
        await _add_match(bus, "type='signal',path='/org/bluez/hci0',member='PropertiesChanged'")
        await advertiser.stop()
        assert not advertiser.registered
        for _ in range(2000):
            if len(order) == 2:
                break
            await asyncio.sleep(0.01)
        # Unregistered by the call, not by bluezoo noticing that our connection went away.
        assert order == ["unregistered", "bus closed"]
        assert await _get(bus, *active) == 0
        await advertiser.stop()  # idempotent
    finally:
        await advertiser.stop()
        bus.disconnect()
        await bus.wait_for_disconnect()
        await close_bleak_manager()


async def test_advertiser_refused_leaves_nothing_registered(bluez_env: BluezEnv) -> None:
    advertiser = AncsAdvertiser(adapter_path="/org/bluez/hci7", bus_address=bluez_env.address)
    with pytest.raises(PhoneLinkError) as refused:
        await advertiser.start()
    assert refused.value.code == "advertising_failed"
    assert not advertiser.registered and advertiser._bus is None
    bus = await _client(bluez_env.address)
    try:
        assert await _get(bus, "org.bluez", "/org/bluez/hci0",
                          "org.bluez.LEAdvertisingManager1", "ActiveInstances") == 0
    finally:
        bus.disconnect()
        await bus.wait_for_disconnect()
