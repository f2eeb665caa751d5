"""An emulated Android companion app on bumble: the companion GATT server.

It requires an encrypted link (an unpaired subscriber receives nothing, an
unpaired write gets ATT 0x05), cuts each message into (ATT_MTU - 3)-byte frames,
records the acknowledgements written back, and on every new subscription
re-sends the messages not yet acknowledged, as the documented protocol asks. It
keeps the notifications it shows (the newest message per key until a removal) and
sends each again as a new message when the wearable asks ("resend active").
Importing this module imports bumble.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bumble.att import ATT_Error
from bumble.device import Connection, Device
from bumble.gatt import Characteristic, CharacteristicValue, Service

from companion_memory.ble.android.protocol import (
    COMPANION_SERVICE_UUID,
    CONTROL_CHARACTERISTIC_UUID,
    EVENT_CHARACTERISTIC_UUID,
    AndroidCodecError,
    ControlType,
    encode_message,
    encode_payload,
    parse_control,
)
from companion_memory.ble.events import EventKind, NotificationEvent

INSUFFICIENT_AUTHENTICATION = 0x05
VALUE_NOT_ALLOWED = 0x13


class EmulatedAndroidPhone:
    """The companion service of an emulated Android phone on a bumble `Device`."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self._next_seq = 1
        self.unacked: dict[int, bytes] = {}
        self.active: dict[str, bytes] = {}
        """The newest message of each notification still shown, by key."""
        self.resend_requests = 0
        self.acks: list[tuple[ControlType, int, int]] = []
        self._subscribed: set[int] = set()
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self.event: Any = Characteristic(
            EVENT_CHARACTERISTIC_UUID,
            Characteristic.Properties.NOTIFY,
            Characteristic.Permissions.READ_REQUIRES_ENCRYPTION,
        )
        self.control: Any = Characteristic(
            CONTROL_CHARACTERISTIC_UUID,
            Characteristic.Properties.WRITE,
            Characteristic.Permissions.WRITE_REQUIRES_ENCRYPTION,
            CharacteristicValue(write=self._on_control),
        )
        self.event.on("subscription", self._on_subscription)
        device.on("connection", self._on_connection)
        device.add_service(Service(COMPANION_SERVICE_UUID, [self.event, self.control]))

    def _on_connection(self, connection: Connection) -> None:
        connection.on("disconnection", lambda *_: self._subscribed.discard(connection.handle))

    def _on_subscription(self, bearer: Any, notify: bool, _indicate: bool) -> None:
        if not getattr(bearer, "is_encrypted", False):
            return
        if notify:
            self._subscribed.add(bearer.handle)
            pending = sorted(self.unacked.items())
            task = asyncio.ensure_future(self._resend(bearer, pending))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        else:
            self._subscribed.discard(bearer.handle)

    async def _resend(self, connection: Connection, pending: list[tuple[int, bytes]]) -> None:
        for seq, payload in pending:
            await self._send_frames(connection, encode_payload(payload, seq, connection.att_mtu))

    async def _on_control(self, connection: Connection, value: bytes) -> None:
        if not connection.is_encrypted:
            raise ATT_Error(INSUFFICIENT_AUTHENTICATION)
        try:
            kind, seq, status = parse_control(bytes(value))
        except AndroidCodecError:
            raise ATT_Error(VALUE_NOT_ALLOWED) from None
        if kind is ControlType.RESEND_ACTIVE:
            self.resend_requests += 1
            task = asyncio.ensure_future(self._send_active(connection))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        self.acks.append((kind, seq, status))
        self.unacked.pop(seq, None)

    async def _send_active(self, connection: Connection) -> None:
        for payload in list(self.active.values()):
            seq = self._take_seq()
            self.unacked[seq] = payload
            await self._send_frames(connection, encode_payload(payload, seq, connection.att_mtu))

    async def _send_frames(self, connection: Connection, frames: list[bytes]) -> None:
        async with self._lock:
            for frame in frames:
                if connection.handle not in self._subscribed:
                    return
                await self.device.notify_subscriber(connection, self.event, frame)

    def _connections(self) -> list[Connection]:
        return [c for c in self.device.connections.values() if c.handle in self._subscribed]

    async def send(self, event: NotificationEvent) -> int:
        """Post one event (stored until acknowledged); returns its seq."""
        seq = self._take_seq()
        payload = _payload(event)
        self.unacked[seq] = payload
        if event.kind is EventKind.REMOVED:
            self.active.pop(event.key, None)
        else:
            self.active[event.key] = payload
        for connection in self._connections():
            await self._send_frames(connection, encode_message(event, seq, connection.att_mtu))
        return seq

    def _take_seq(self) -> int:
        seq = self._next_seq
        self._next_seq = (self._next_seq + 1) & 0xFFFF
        return seq

    async def send_frames(self, frames: list[bytes]) -> None:
        """Send raw frames (for bad-input tests)."""
        for connection in self._connections():
            await self._send_frames(connection, frames)

    async def disconnect(self) -> None:
        for connection in list(self.device.connections.values()):
            self._subscribed.discard(connection.handle)
            await connection.disconnect()


def _payload(event: NotificationEvent) -> bytes:
    frames = encode_message(event, 0, 0xFFFF)
    return b"".join(frame[5:] for frame in frames)
