"""Bumble transport: a `PhoneLink` over a bumble GATT client, and a two-device testbed.

`BumbleTestbed` puts two bumble devices (the phone and the wearable) on one
in-process `LocalLink`; `connect()` dials the phone from the wearable, pairs,
raises the ATT MTU, discovers the services and returns a `BumblePhoneLink`.
Importing this module imports bumble: import it only where bumble is wanted.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any

from bumble.att import ATT_Error
from bumble.controller import Controller
from bumble.core import UUID
from bumble.device import Connection, Device, Peer
from bumble.hci import Address
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport.common import AsyncPipeSink

from companion_memory.ble.errors import AttWriteError, LinkClosedError, PhoneLinkError
from companion_memory.ble.link import NotifyCallback

CONNECT_TIMEOUT_S = 10.0
"""Connecting and pairing on the in-process link takes milliseconds; 10 s means it hung."""

_addresses = itertools.count(1)


def _new_device(link: LocalLink, name: str) -> Device:
    n = next(_addresses) % 0xFF
    address = f"C0:DE:00:00:{n:02X}:{0x10 if name == 'phone' else 0x20:02X}"
    controller = Controller(name, link=link, public_address=address)
    host = Host(controller, AsyncPipeSink(controller))
    return Device(name=name, address=Address(address), host=host)


class BumblePhoneLink:
    """`PhoneLink` over one bumble connection (the wearable is the GATT client)."""

    def __init__(self, connection: Connection, peer: Peer) -> None:
        self._connection = connection
        self._peer = peer
        self._closed = asyncio.Event()
        self._callbacks: dict[str, NotifyCallback] = {}
        connection.on(connection.EVENT_DISCONNECTION, self._on_disconnection)

    def _on_disconnection(self, *_: Any) -> None:
        self._closed.set()

    @property
    def peer(self) -> str:
        return str(self._connection.peer_address)

    @property
    def is_connected(self) -> bool:
        return not self._closed.is_set()

    @property
    def att_mtu(self) -> int:
        return int(self._connection.att_mtu)

    def _characteristic(self, uuid: str) -> Any:
        found = self._peer.get_characteristics_by_uuid(UUID(uuid))
        if not found:
            raise PhoneLinkError(
                f"the phone has no characteristic {uuid}", code="characteristic_missing"
            )
        return found[0]

    async def start_notify(self, uuid: str, callback: NotifyCallback) -> None:
        if self._closed.is_set():
            raise LinkClosedError("the bumble link is closed; cannot subscribe")
        self._callbacks[uuid] = callback
        await self._peer.subscribe(self._characteristic(uuid), callback)

    async def stop_notify(self, uuid: str) -> None:
        callback = self._callbacks.pop(uuid, None)
        if callback is not None and not self._closed.is_set():
            await self._peer.unsubscribe(self._characteristic(uuid), callback)

    async def write(self, uuid: str, data: bytes, *, response: bool = True) -> None:
        if self._closed.is_set():
            raise LinkClosedError("the bumble link is closed; cannot write")
        characteristic = self._characteristic(uuid)
        try:
            await self._peer.write_value(characteristic, data, with_response=response)
        except ATT_Error as exc:
            raise AttWriteError(int(exc.error_code)) from exc
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this task was cancelled: not the link's doing
            # bumble cancels a request in flight when the connection drops: the caller
            # sees the link closed, not a cancellation it never asked for
            raise LinkClosedError("the phone disconnected during a write") from None
        except Exception as exc:
            if self._closed.is_set():
                raise LinkClosedError("the phone disconnected during a write") from None
            raise PhoneLinkError(
                f"the write failed: {type(exc).__name__}", code="write_failed"
            ) from None

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def close(self) -> None:
        if not self._closed.is_set():
            with contextlib.suppress(Exception):  # already gone
                await self._connection.disconnect()
            self._closed.set()


class BumbleTestbed:
    """A phone device and a wearable device on one in-process virtual link."""

    def __init__(self) -> None:
        self.link = LocalLink()  # type: ignore[no-untyped-call]
        self.phone = _new_device(self.link, "phone")
        self.wearable = _new_device(self.link, "wearable")

    async def power_on(self) -> None:
        await self.phone.power_on()
        await self.wearable.power_on()

    async def connect(self, *, mtu: int = 23, pair: bool = True) -> BumblePhoneLink:
        """Dial the phone, pair (unless told not to), set the MTU, discover GATT."""
        async with asyncio.timeout(CONNECT_TIMEOUT_S):
            await self.phone.start_advertising(advertising_interval_min=1.0)
            connection = await self.wearable.connect(self.phone.random_address)
            if pair:
                await connection.pair()
            peer = Peer(connection)
            if mtu > 23:
                await peer.request_mtu(mtu)
            await peer.discover_services()
            await peer.discover_characteristics()
            return BumblePhoneLink(connection, peer)

    async def close(self) -> None:
        for device in (self.wearable, self.phone):
            for connection in list(device.connections.values()):
                with contextlib.suppress(Exception):
                    await connection.disconnect()
            await device.power_off()
