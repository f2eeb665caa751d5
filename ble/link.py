"""The `PhoneLink` seam: what a session needs from a GATT connection to the phone.

The wearable is the GATT client of the phone (ANCS on an iPhone, the companion
service on Android). A session subscribes to characteristics, writes commands
and learns when the connection drops; it never sees bleak, bumble or D-Bus.
`FakePhoneLink` is the in-package fake: tests (and users) push notifications with
`notify()` and script answers to writes with `on_write`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from companion_memory.ble.errors import LinkClosedError

NotifyCallback = Callable[[bytes], None]
"""A synchronous notification handler; it must not block (it feeds a reassembler)."""


@runtime_checkable
class PhoneLink(Protocol):
    """One live GATT connection to a phone."""

    @property
    def peer(self) -> str:
        """The phone's address or a label, for logs."""
        ...

    @property
    def is_connected(self) -> bool: ...

    async def start_notify(self, uuid: str, callback: NotifyCallback) -> None:
        """Subscribe; `callback` runs synchronously for every notification, in order."""
        ...

    async def stop_notify(self, uuid: str) -> None: ...

    async def write(self, uuid: str, data: bytes, *, response: bool = True) -> None:
        """Write a characteristic; an ATT error raises `AttWriteError`, a dropped
        link `LinkClosedError`. Cancellation abandons the write."""
        ...

    async def wait_closed(self) -> None:
        """Return once the connection is gone (disconnect or close)."""
        ...

    async def close(self) -> None:
        """Disconnect; idempotent."""
        ...


WriteHandler = Callable[[str, bytes], Awaitable[None] | None]


class FakePhoneLink:
    """A scripted `PhoneLink` for tests and examples.

    `on_write(uuid, data)` runs inside `write()` (sync or async); it may call
    `notify()` to answer, or raise `AttWriteError` to refuse. `writes` records
    every write; `drop()` simulates a disconnect.
    """

    def __init__(self, peer: str = "fake-phone", on_write: WriteHandler | None = None) -> None:
        self._peer = peer
        self.on_write = on_write
        self.writes: list[tuple[str, bytes]] = []
        self.subscribed: dict[str, NotifyCallback] = {}
        self._closed = asyncio.Event()

    @property
    def peer(self) -> str:
        return self._peer

    @property
    def is_connected(self) -> bool:
        return not self._closed.is_set()

    def notify(self, uuid: str, data: bytes) -> bool:
        """Deliver a notification as the phone would; False when nobody subscribed."""
        callback = self.subscribed.get(uuid.lower())
        if callback is None or self._closed.is_set():
            return False
        callback(data)
        return True

    def drop(self) -> None:
        """Simulate the phone going away."""
        self._closed.set()

    async def start_notify(self, uuid: str, callback: NotifyCallback) -> None:
        if self._closed.is_set():
            raise LinkClosedError("the fake phone link is closed; cannot subscribe")
        self.subscribed[uuid.lower()] = callback

    async def stop_notify(self, uuid: str) -> None:
        self.subscribed.pop(uuid.lower(), None)

    async def write(self, uuid: str, data: bytes, *, response: bool = True) -> None:
        if self._closed.is_set():
            raise LinkClosedError("the fake phone link is closed; cannot write")
        self.writes.append((uuid.lower(), bytes(data)))
        if self.on_write is not None:
            result = self.on_write(uuid.lower(), bytes(data))
            if inspect.isawaitable(result):
                await result

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def close(self) -> None:
        self._closed.set()
