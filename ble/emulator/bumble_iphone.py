"""An emulated iPhone on bumble: an ANCS GATT server around `AncsPhoneModel`.

Like iOS it requires an encrypted (paired) link: an unpaired write to the
Control Point gets ATT 0x05 and an unpaired subscription receives nothing. On
every new Notification Source subscription it hands out fresh UIDs and re-sends
what is on the phone with PreExisting set. Data Source responses are cut at
(ATT_MTU - 3) bytes and sent after the write response, in order.
Importing this module imports bumble.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bumble.att import ATT_Error
from bumble.device import Connection, Device
from bumble.gatt import Characteristic, CharacteristicValue, Service

from companion_memory.ble.ancs.codec import (
    ANCS_SERVICE_UUID,
    CONTROL_POINT_UUID,
    DATA_SOURCE_UUID,
    NOTIFICATION_SOURCE_UUID,
)
from companion_memory.ble.emulator.iphone_model import AncsPhoneModel, fragment
from companion_memory.ble.errors import AttWriteError

INSUFFICIENT_AUTHENTICATION = 0x05


class EmulatedIphone:
    """The ANCS server of an emulated iPhone hosted on a bumble `Device`."""

    def __init__(self, device: Device, model: AncsPhoneModel | None = None) -> None:
        self.device = device
        self.model = model if model is not None else AncsPhoneModel()
        self._subscribed: set[int] = set()  # connection handles with NS + DS enabled
        self._sources: dict[int, set[str]] = {}
        self._send_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self.refused_unpaired = 0
        self.notification_source: Any = Characteristic(
            NOTIFICATION_SOURCE_UUID,
            Characteristic.Properties.NOTIFY,
            Characteristic.Permissions.READ_REQUIRES_ENCRYPTION,
        )
        self.data_source: Any = Characteristic(
            DATA_SOURCE_UUID,
            Characteristic.Properties.NOTIFY,
            Characteristic.Permissions.READ_REQUIRES_ENCRYPTION,
        )
        self.control_point: Any = Characteristic(
            CONTROL_POINT_UUID,
            Characteristic.Properties.WRITE,
            Characteristic.Permissions.WRITE_REQUIRES_ENCRYPTION,
            CharacteristicValue(write=self._on_control_point),
        )
        for characteristic, name in ((self.notification_source, "ns"), (self.data_source, "ds")):
            characteristic.on(
                "subscription",
                lambda bearer, notify, _indicate, name=name: self._on_subscription(
                    bearer, name, notify
                ),
            )
        device.on("connection", self._on_connection)
        device.add_service(
            Service(ANCS_SERVICE_UUID, [self.notification_source, self.data_source,
                                        self.control_point])
        )

    # -- connection state ----------------------------------------------------------

    def _connections(self) -> list[Connection]:
        return [c for c in self.device.connections.values() if c.handle in self._subscribed]

    def _on_connection(self, connection: Connection) -> None:
        def forget(*_: Any) -> None:
            self._subscribed.discard(connection.handle)
            self._sources.pop(connection.handle, None)

        connection.on("disconnection", forget)

    def _on_subscription(self, bearer: Any, name: str, enabled: bool) -> None:
        connection = bearer
        if not getattr(connection, "is_encrypted", False):
            self.refused_unpaired += 1  # iOS ignores an unpaired subscriber
            return
        handle = connection.handle
        names = self._sources.setdefault(handle, set())
        if enabled:
            names.add(name)
        else:
            names.discard(name)
        if names == {"ns", "ds"}:
            if handle not in self._subscribed:
                self._subscribed.add(handle)
                self.model.renumber()  # a new subscription: fresh UIDs
                self._spawn(self._send_pre_existing(connection))
        else:
            self._subscribed.discard(handle)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send_pre_existing(self, connection: Connection) -> None:
        for packet in self.model.pre_existing_packets():
            await self._send(connection, self.notification_source, [packet])

    async def _send(self, connection: Connection, characteristic: Any, pieces: list[bytes]) -> None:
        async with self._send_lock:
            for piece in pieces:
                if connection.handle not in self._subscribed:
                    return
                await self.device.notify_subscriber(connection, characteristic, piece)

    async def _on_control_point(self, connection: Connection, value: bytes) -> None:
        if not connection.is_encrypted:
            self.refused_unpaired += 1
            raise ATT_Error(INSUFFICIENT_AUTHENTICATION)
        try:
            response = self.model.handle_control_point(bytes(value))
        except AttWriteError as exc:
            raise ATT_Error(exc.att_code) from exc
        if response is not None:
            pieces = fragment(response, int(connection.att_mtu))
            # After the write response, as iOS does.
            asyncio.get_running_loop().call_soon(
                self._spawn, self._send(connection, self.data_source, pieces)
            )

    # -- scripting -----------------------------------------------------------------

    async def _broadcast(self, packet: bytes) -> None:
        for connection in self._connections():
            await self._send(connection, self.notification_source, [packet])

    async def post(self, app_id: str, **fields: Any) -> int:
        """Post a notification; returns its UID."""
        uid, packet = self.model.add(app_id, **fields)
        await self._broadcast(packet)
        return uid

    async def modify(self, uid: int, **changes: str) -> None:
        await self._broadcast(self.model.modify(uid, **changes))

    async def remove(self, uid: int) -> None:
        await self._broadcast(self.model.remove(uid))

    async def send_raw_source(self, packet: bytes) -> None:
        await self._broadcast(packet)

    async def disconnect(self) -> None:
        """Drop every connection (the phone walked away)."""
        for connection in list(self.device.connections.values()):
            self._subscribed.discard(connection.handle)
            self._sources.pop(connection.handle, None)
            await connection.disconnect()

    async def idle(self) -> None:
        """Wait until every queued notification went out."""
        while self._tasks:
            await asyncio.gather(*tuple(self._tasks), return_exceptions=True)
