"""An emulated iPhone on a (mocked) BlueZ: an ANCS GATT application over dbus-fast.

Registers an ANCS service with `GattManager1` on the phone's adapter, a
discoverable advertisement with `LEAdvertisingManager1`, and a NoInputNoOutput
pairing agent, on the bus at `bus_address` (bluezoo on a private dbus-daemon in
the tests). Control Point writes are answered from an `AncsPhoneModel`; errors go
back as BlueZ's "Operation failed with ATT error: 0xNN" (bleak turns that into
`BleakGATTProtocolError`); Data Source responses are cut at (mtu - 3) bytes.
Notification Source and Data Source refuse subscriptions before pairing.

No `from __future__ import annotations`: dbus-fast reads D-Bus signatures from
the annotations. Importing this module imports dbus-fast.
"""

# mypy: disable-error-code="name-defined,valid-type,untyped-decorator,misc,no-untyped-call"

import asyncio
from typing import Any

from dbus_fast import BusType
from dbus_fast.aio import MessageBus
from dbus_fast.constants import PropertyAccess
from dbus_fast.errors import DBusError
from dbus_fast.service import ServiceInterface, dbus_property, method

from companion_memory.ble.ancs.codec import (
    ANCS_SERVICE_UUID,
    CONTROL_POINT_UUID,
    DATA_SOURCE_UUID,
    NOTIFICATION_SOURCE_UUID,
)
from companion_memory.ble.bluez_advertisement import LEAdvertisement
from companion_memory.ble.emulator.iphone_model import AncsPhoneModel, fragment
from companion_memory.ble.errors import AttWriteError

APP_PATH = "/com/example/iphone"
SERVICE_PATH = APP_PATH + "/service0"


class _Service(ServiceInterface):
    def __init__(self) -> None:
        super().__init__("org.bluez.GattService1")

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":  # noqa: F821
        return ANCS_SERVICE_UUID

    @dbus_property(access=PropertyAccess.READ)
    def Primary(self) -> "b":  # noqa: F821
        return True


class _Characteristic(ServiceInterface):
    def __init__(self, phone: "BluezIphone", uuid: str, flags: list[str]) -> None:
        super().__init__("org.bluez.GattCharacteristic1")
        self._phone = phone
        self._uuid = uuid
        self._flags = flags
        self._value = b""
        self.notifying = False

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":  # noqa: F821
        return self._uuid

    @dbus_property(access=PropertyAccess.READ)
    def Service(self) -> "o":  # noqa: F821
        return SERVICE_PATH

    @dbus_property(access=PropertyAccess.READ)
    def Flags(self) -> "as":  # noqa: F722
        return self._flags

    @dbus_property(access=PropertyAccess.READ)
    def Value(self) -> "ay":  # noqa: F821
        return self._value

    @dbus_property(access=PropertyAccess.READ)
    def Notifying(self) -> "b":  # noqa: F821
        return self.notifying

    @method()
    def ReadValue(self, options: "a{sv}") -> "ay":  # noqa: F722, F821
        raise DBusError("org.bluez.Error.NotPermitted", "Read not permitted")

    @method()
    async def WriteValue(self, value: "ay", options: "a{sv}") -> None:  # noqa: F722, F821
        await self._phone.on_write(self._uuid, bytes(value))

    @method()
    async def StartNotify(self) -> None:
        if not await self._phone.peer_paired():
            raise DBusError("org.bluez.Error.NotPermitted", "Not paired")
        self.notifying = True
        self._phone.on_subscription()

    @method()
    def StopNotify(self) -> None:
        self.notifying = False

    @method()
    def Confirm(self) -> None:
        """BlueZ (bluezoo) confirms each value it forwarded; nothing to do."""

    def send(self, value: bytes) -> None:
        self._value = value
        self.emit_properties_changed({"Value": value})


class _Agent(ServiceInterface):
    """A NoInputNoOutput agent: the phone accepts pairing (Just Works)."""

    def __init__(self, phone: "BluezIphone") -> None:
        super().__init__("org.bluez.Agent1")
        self._phone = phone

    @method()
    def Release(self) -> None:
        pass

    @method()
    def RequestAuthorization(self, device: "o") -> None:  # noqa: F821
        self._phone.paired = True


class BluezIphone:
    """The ANCS side of an iPhone registered on a BlueZ adapter over D-Bus."""

    def __init__(
        self,
        bus_address: str,
        *,
        adapter_path: str = "/org/bluez/hci1",
        model: AncsPhoneModel | None = None,
        mtu: int = 23,
        require_pairing: bool = True,
    ) -> None:
        self.bus_address = bus_address
        self.adapter_path = adapter_path
        self.model = model if model is not None else AncsPhoneModel()
        self.mtu = mtu
        self.paired = not require_pairing
        self._bus: Any = None
        self.ns = _Characteristic(self, NOTIFICATION_SOURCE_UUID, ["notify"])
        self.ds = _Characteristic(self, DATA_SOURCE_UUID, ["notify"])
        self.cp = _Characteristic(self, CONTROL_POINT_UUID, ["write"])
        self._send_lock = asyncio.Lock()

    @property
    def subscribed(self) -> bool:
        return self.ns.notifying and self.ds.notifying

    async def start(self) -> None:
        """Export the app, register it, advertise, register the agent."""
        bus = MessageBus(bus_address=self.bus_address, bus_type=BusType.SYSTEM)
        self._bus = await bus.connect()
        self._bus.export(APP_PATH + "/agent", _Agent(self))
        self._bus.export(SERVICE_PATH, _Service())
        for i, characteristic in enumerate((self.ns, self.ds, self.cp)):
            self._bus.export(f"{SERVICE_PATH}/char{i}", characteristic)
        # ServiceUUIDs stands in for the GATT service UUIDs that real BlueZ lists in
        # Device1.UUIDs once it resolved the phone's services; bluezoo takes a
        # device's UUIDs from its advertisement only.
        self._bus.export(APP_PATH + "/adv", LEAdvertisement(
            "iPhone", [], True, service_uuids=[ANCS_SERVICE_UUID]))
        root = await self._interface("/org/bluez", "org.bluez.AgentManager1")
        await root.call_register_agent(APP_PATH + "/agent", "NoInputNoOutput")
        gatt = await self._interface(self.adapter_path, "org.bluez.GattManager1")
        await gatt.call_register_application(APP_PATH, {})
        adv = await self._interface(self.adapter_path, "org.bluez.LEAdvertisingManager1")
        await adv.call_register_advertisement(APP_PATH + "/adv", {})

    async def reregister(self) -> None:
        """The phone's side of a new connection: subscriptions reset, and the GATT
        application registered again (bluezoo then gives it fresh handles, so the
        next connection's GATT objects do not collide with the previous ones)."""
        for characteristic in (self.ns, self.ds, self.cp):
            characteristic.notifying = False
        gatt = await self._interface(self.adapter_path, "org.bluez.GattManager1")
        await gatt.call_unregister_application(APP_PATH)
        await gatt.call_register_application(APP_PATH, {})

    async def _interface(self, path: str, name: str) -> Any:
        introspection = await self._bus.introspect("org.bluez", path)
        return self._bus.get_proxy_object("org.bluez", path, introspection).get_interface(name)

    async def peer_paired(self) -> bool:
        """Whether a connected device on our adapter is paired (BlueZ's view)."""
        if self.paired:
            return True
        manager = await self._interface("/", "org.freedesktop.DBus.ObjectManager")
        objects = await manager.call_get_managed_objects()
        for path, interfaces in objects.items():
            device = interfaces.get("org.bluez.Device1")
            if (
                device
                and path.startswith(self.adapter_path + "/")
                and device["Paired"].value
                and device["Connected"].value
            ):
                return True
        return False

    def on_subscription(self) -> None:
        if self.subscribed:
            self.model.renumber()
            for packet in self.model.pre_existing_packets():
                self.ns.send(packet)

    async def on_write(self, uuid: str, value: bytes) -> None:
        if uuid != CONTROL_POINT_UUID:
            raise DBusError("org.bluez.Error.NotPermitted", "Write not permitted")
        if not await self.peer_paired():
            raise DBusError("org.bluez.Error.Failed", "Operation failed with ATT error: 0x05")
        try:
            response = self.model.handle_control_point(value)
        except AttWriteError as exc:
            raise DBusError(
                "org.bluez.Error.Failed", f"Operation failed with ATT error: 0x{exc.att_code:02x}"
            ) from exc
        if response is not None:
            asyncio.get_running_loop().call_soon(self._send_data, fragment(response, self.mtu))

    def _send_data(self, pieces: list[bytes]) -> None:
        if self.ds.notifying:
            for piece in pieces:
                self.ds.send(piece)

    def send_source(self, packet: bytes) -> None:
        if self.ns.notifying:
            self.ns.send(packet)

    def post(self, app_id: str, **fields: Any) -> int:
        uid, packet = self.model.add(app_id, **fields)
        self.send_source(packet)
        return uid

    def modify(self, uid: int, **changes: str) -> None:
        self.send_source(self.model.modify(uid, **changes))

    def remove(self, uid: int) -> None:
        self.send_source(self.model.remove(uid))

    async def stop(self) -> None:
        bus, self._bus = self._bus, None
        if bus is not None:
            bus.disconnect()
            await bus.wait_for_disconnect()



async def connect_device(
    phone: BluezIphone, address: str, *, adapter_path: str | None = None
) -> None:
    """Device1.Connect to `address` from `adapter_path` (default: the phone's)."""
    path = f"{adapter_path or phone.adapter_path}/dev_{address.upper().replace(':', '_')}"
    device = await phone._interface(path, "org.bluez.Device1")
    await device.call_connect()


async def remove_device(
    phone: BluezIphone, address: str, *, adapter_path: str | None = None
) -> None:
    """Make `adapter_path` (default: the phone's) forget `address` (Adapter1.RemoveDevice)."""
    adapter = adapter_path or phone.adapter_path
    path = f"{adapter}/dev_{address.upper().replace(':', '_')}"
    manager = await phone._interface(adapter, "org.bluez.Adapter1")
    await manager.call_remove_device(path)


async def disconnect_device(
    phone: BluezIphone, address: str, *, adapter_path: str | None = None
) -> None:
    """Drop the link to `address` as seen from `adapter_path` (default: the phone's);
    BlueZ reports Connected=False to every client, as on a real link loss."""
    path = f"{adapter_path or phone.adapter_path}/dev_{address.upper().replace(':', '_')}"
    device = await phone._interface(path, "org.bluez.Device1")
    await device.call_disconnect()
