"""The real link: bleak on BlueZ, one fresh `BleakClient` per connection.

`BleakPhoneLink` adapts a connected `BleakClient` to `PhoneLink`: notification
handlers are synchronous (bleak calls a plain function directly, so Data Source
fragments keep their order), registered once per characteristic and client
(bleak issue #2002 doubles callbacks on a reused client), ATT errors become
`AttWriteError`, and the disconnect callback ends `wait_closed()`.

`connect_phone()` finds the phone that connected to us
(`BleakAdapter.get_connected_devices`) or dials a configured address with
`bleak-retry-connector`, and pairs. `PhoneLinkRunner` keeps a session alive:
connect, run, and after a disconnect reconnect with exponential backoff on the
injected clock. bleak is imported when these are used, never at `import ble`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from companion_memory.ble.ancs.codec import ANCS_SERVICE_UUID
from companion_memory.ble.errors import AttWriteError, LinkClosedError, PhoneLinkError
from companion_memory.ble.link import NotifyCallback, PhoneLink
from companion_memory.core.clock import Clock, SystemClock
from companion_memory.core.errors import CompanionMemoryError, InvalidInputError

CONNECT_TIMEOUT_S = 20.0
"""BlueZ connect + service resolution; bleak's own default is 10-30 s."""
FIND_TIMEOUT_S = 10.0
"""How long a scan for a configured address may take."""

_log = logging.getLogger("companion_memory.ble.bleak")


class BleakPhoneLink:
    """`PhoneLink` over one connected `bleak.BleakClient`."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._closed = asyncio.Event()
        self._handlers: dict[str, NotifyCallback] = {}
        if not client.is_connected:
            self._closed.set()

    def mark_disconnected(self, *_: Any) -> None:
        """bleak's disconnected_callback (may run on any loop iteration)."""
        self._closed.set()

    @property
    def client(self) -> Any:
        return self._client

    @property
    def peer(self) -> str:
        return str(self._client.address)

    @property
    def is_connected(self) -> bool:
        return not self._closed.is_set() and bool(self._client.is_connected)

    async def start_notify(self, uuid: str, callback: NotifyCallback) -> None:
        from bleak.exc import BleakError

        if uuid in self._handlers:  # idempotent: never two bleak handlers for one uuid
            self._handlers[uuid] = callback
            return
        self._handlers[uuid] = callback

        def handler(_characteristic: Any, data: bytearray) -> None:
            self._handlers[uuid](bytes(data))

        try:
            await self._client.start_notify(uuid, handler)
        except BleakError as exc:
            self._handlers.pop(uuid, None)
            raise self._convert(exc, "subscribe") from exc

    async def stop_notify(self, uuid: str) -> None:
        from bleak.exc import BleakError

        if self._handlers.pop(uuid, None) is None or not self.is_connected:
            return
        with contextlib.suppress(BleakError):
            await self._client.stop_notify(uuid)

    async def write(self, uuid: str, data: bytes, *, response: bool = True) -> None:
        from bleak.exc import BleakError

        if not self.is_connected:
            raise LinkClosedError("the phone is not connected; cannot write")
        try:
            await self._client.write_gatt_char(uuid, data, response=response)
        except BleakError as exc:
            raise self._convert(exc, "write") from exc

    def _convert(self, exc: Exception, what: str) -> PhoneLinkError:
        from bleak.exc import BleakGATTProtocolError

        if isinstance(exc, BleakGATTProtocolError):
            return AttWriteError(int(exc.code))
        if not self._client.is_connected:
            self._closed.set()
            return LinkClosedError(f"the phone disconnected during {what}")
        return PhoneLinkError(f"bleak {what} failed: {type(exc).__name__}", code=f"bleak_{what}")

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._client.disconnect()
        self._closed.set()


async def connect_phone(
    address: str | None = None,
    *,
    service_uuids: Sequence[str] = (ANCS_SERVICE_UUID,),
    pair: bool = True,
    adapter: str | None = None,
    client_class: Any = None,
    max_attempts: int = 3,
) -> BleakPhoneLink:
    """Connect a fresh client to the phone and pair.

    With `address` None, take the first device already connected to us that
    offers one of `service_uuids` (an iPhone that answered our ANCS
    solicitation); otherwise scan for `address` and dial it with retries.
    `adapter` names the BlueZ adapter (e.g. "hci0"); None lets bleak pick one.
    Raises `PhoneLinkError` (`phone_not_found`) when there is no phone.
    Cancellation disconnects a half-made connection.
    """
    from bleak import BleakAdapter, BleakClient, BleakScanner
    from bleak.exc import BleakError
    from bleak_retry_connector import establish_connection, get_device

    cls = client_class or BleakClient
    holder: dict[str, BleakPhoneLink] = {}

    def on_disconnect(_client: Any) -> None:
        if "link" in holder:
            holder["link"].mark_disconnected()

    scan_args: dict[str, Any] = {"bluez": {"adapter": adapter}} if adapter else {}
    try:
        if address is None:
            bleak_adapter = await BleakAdapter.get(**scan_args)
            devices = await bleak_adapter.get_connected_devices(service_uuids=list(service_uuids))
            if not devices:
                raise PhoneLinkError(
                    "no phone is connected that offers the service; advertise and wait "
                    "for the phone, or configure its address",
                    code="phone_not_found",
                )
            device = devices[0]
        else:
            # A device BlueZ already knows (bonded, seen before) needs no scan.
            found = await get_device(address) or await BleakScanner.find_device_by_address(
                address, timeout=FIND_TIMEOUT_S, **scan_args
            )
            if found is None:
                raise PhoneLinkError(
                    f"no device with address {address} was seen in {FIND_TIMEOUT_S} s",
                    code="phone_not_found",
                )
            device = found
        client_args: dict[str, Any] = {"timeout": CONNECT_TIMEOUT_S, **scan_args}
        client = await establish_connection(
            cls, device, device.name or device.address,
            disconnected_callback=on_disconnect, max_attempts=max_attempts, **client_args,
        )
    except BleakError as exc:
        raise PhoneLinkError(
            f"connecting to the phone failed: {type(exc).__name__}", code="connect_failed"
        ) from exc
    link = BleakPhoneLink(client)
    holder["link"] = link
    try:
        if pair:
            await client.pair()
    except BaseException as exc:
        await link.close()
        if isinstance(exc, BleakError):
            raise PhoneLinkError(
                f"pairing with the phone failed: {type(exc).__name__}", code="pair_failed"
            ) from None
        raise
    return link


@dataclass(frozen=True, slots=True)
class Backoff:
    """Reconnect delays: `initial` doubling up to `maximum` seconds; reset after a session."""

    initial: float = 1.0
    maximum: float = 60.0

    def __post_init__(self) -> None:
        if not 0 < self.initial <= self.maximum:
            raise InvalidInputError("backoff needs 0 < initial <= maximum (seconds)")


class PhoneLinkRunner:
    """Connect, run a session until the link drops, back off, reconnect; forever.

    `connect()` returns a new `PhoneLink` each time (a fresh client per
    connection); `serve(link)` runs one session (e.g. `AncsSession(link, ...).run()`).
    Any failure of one attempt (a `PhoneLinkError`, but also an `OSError`, a timeout or
    a D-Bus error the library let through) is counted and logged by code, and the
    runner backs off and tries again: the link never ends silently. `state` says
    what it is doing ("stopped", "connecting", "connected", "backing_off") and
    `last_error` the code of the newest failure. `stop()` makes `run()`
    close the current link and return; cancelling `run()` closes the current link
    and propagates the cancellation.
    """

    def __init__(
        self,
        connect: Callable[[], Awaitable[PhoneLink]],
        serve: Callable[[PhoneLink], Awaitable[Any]],
        *,
        clock: Clock | None = None,
        backoff: Backoff | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self._connect = connect
        self._serve = serve
        self._clock = clock or SystemClock()
        self._backoff = backoff or Backoff()
        self._log = logger or _log
        self.sessions = 0
        self.failures: dict[str, int] = {}
        self.link: PhoneLink | None = None
        self.state = "stopped"
        self.last_error: str | None = None
        self._stopping = False
        self._task: asyncio.Task[Any] | None = None

    def stop(self) -> None:
        """End `run()` promptly: the current connect, session or back-off is interrupted."""
        self._stopping = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def run(self, *, max_sessions: int | None = None) -> None:
        """Returns after `max_sessions` sessions (None: never) or on `stop()`."""
        if self._stopping:
            return
        self._task = asyncio.current_task()
        try:
            await self._loop(max_sessions)
        except asyncio.CancelledError:
            if not self._stopping or self._task is None:
                raise
            self._task.uncancel()
        finally:
            self._task = None
            self.state = "stopped"

    async def _loop(self, max_sessions: int | None) -> None:
        delay = self._backoff.initial
        while max_sessions is None or self.sessions < max_sessions:
            self.state = "connecting"
            try:
                self.link = await self._connect()
            except Exception as exc:  # any failure backs off and retries
                self._count(exc, "connect", delay)
                self.state = "backing_off"
                await self._clock.sleep(delay)
                delay = min(delay * 2, self._backoff.maximum)
                continue
            self.state = "connected"
            try:
                await self._serve(self.link)
            except Exception as exc:  # e.g. the link dropped while subscribing
                self._count(exc, "session", delay)
                with contextlib.suppress(Exception):
                    await self.link.close()
                self.state = "backing_off"
                await self._clock.sleep(delay)
                delay = min(delay * 2, self._backoff.maximum)
                continue
            finally:
                with contextlib.suppress(Exception):
                    await self.link.close()
            self.sessions += 1
            delay = self._backoff.initial
            if max_sessions is None or self.sessions < max_sessions:
                self.state = "backing_off"
                await self._clock.sleep(delay)

    def _count(self, exc: Exception, what: str, delay: float) -> None:
        code = (exc.code if isinstance(exc, CompanionMemoryError)
                else f"unexpected_{type(exc).__name__}")
        self.failures[code] = self.failures.get(code, 0) + 1
        self.last_error = code
        log = self._log.info if isinstance(exc, PhoneLinkError) else self._log.warning
        log("phone %s failed (%s); retry in %.1f s", what, code, delay)
