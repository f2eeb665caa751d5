"""The phone link inside the running product: connect, serve, reconnect.

`PhoneLinkService` keeps one phone session alive while the runtime is open:
it connects with `ble.bleak_link.connect_phone` (a fresh bleak client per
connection; the phone that connected to us, or a configured address), runs an
`AncsSession` (iPhone) or an `AndroidSession` (the companion protocol) that
publishes into the runtime's `EventRing` (each body cut to the intake cap,
`body_limit_bytes`), and after a disconnect reconnects with
exponential backoff on the runtime's clock. For an iPhone it also registers the
ANCS solicitation advertisement with BlueZ so the phone can find the wearable.

Failures of the radio never stop the runtime: they are counted by code and shown
in `status()`; the runtime's memory work goes on without the link. bleak, dbus-fast
and the session modules are imported only when a link is configured.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from companion_memory.ble.advertising import AncsAdvertiser
from companion_memory.ble.ancs.codec import ANCS_SERVICE_UUID
from companion_memory.ble.ancs.normalize import AncsContentIndex
from companion_memory.ble.ancs.session import AncsSession
from companion_memory.ble.android.protocol import COMPANION_SERVICE_UUID
from companion_memory.ble.android.session import AndroidSession
from companion_memory.ble.bleak_link import Backoff, PhoneLinkRunner, connect_phone
from companion_memory.ble.events import BODY_LIMIT_BYTES
from companion_memory.ble.link import PhoneLink
from companion_memory.ble.ring import EventRing
from companion_memory.ble.settings import LinkSettings
from companion_memory.core.clock import Clock
from companion_memory.core.errors import CompanionMemoryError, InvalidInputError

log = logging.getLogger("companion_memory.device.link")

Connect = Callable[[], Awaitable[PhoneLink]]


class PhoneLinkService:
    """Runs the configured phone link in the background; see the module docstring."""

    def __init__(
        self,
        config: LinkSettings,
        ring: EventRing,
        *,
        zone: str,
        clock: Clock,
        connect: Connect | None = None,
        advertiser: Any = None,
        body_limit_bytes: int = BODY_LIMIT_BYTES,
    ) -> None:
        """`body_limit_bytes` is the intake body cap every session applies."""
        if config.kind not in ("ancs", "android"):
            raise InvalidInputError("PhoneLinkService needs link.kind 'ancs' or 'android'")
        self._config = config
        self._body_limit = body_limit_bytes
        self._ring = ring
        self._zone = zone
        self._clock = clock
        self._connect = connect
        self._advertiser = advertiser
        self._task: asyncio.Task[None] | None = None
        self._runner: Any = None
        self._index: Any = None
        self._advertising: str = "off"
        self._sessions_stats: list[dict[str, Any]] = []

    def _default_connect(self) -> Connect:
        uuid = ANCS_SERVICE_UUID if self._config.kind == "ancs" else COMPANION_SERVICE_UUID
        address = self._config.address or None
        adapter = self._config.adapter or None

        async def connect() -> PhoneLink:
            return await connect_phone(address, service_uuids=(uuid,), adapter=adapter)

        return connect

    async def _serve(self, link: PhoneLink) -> None:
        if self._config.kind == "ancs":

            ancs = AncsSession(link, self._ring, zone=self._zone, clock=self._clock,
                               index=self._index, message_limit=self._body_limit)
            counts = (await ancs.run()).to_dict()
        else:

            android = AndroidSession(link, self._ring, body_limit_bytes=self._body_limit)
            counts = (await android.run()).to_dict()
        self._sessions_stats = [*self._sessions_stats[-9:], counts]
        log.info("phone session ended peer=%s", link.peer)

    async def start(self) -> None:
        """Start advertising (iPhone) and the connect/serve/reconnect loop."""
        if self._task is not None:
            return

        if self._config.kind == "ancs":

            self._index = AncsContentIndex()  # de-duplicates across reconnects
            if self._config.advertise:
                await self._start_advertising()
        self._runner = PhoneLinkRunner(
            self._connect or self._default_connect(),
            self._serve,
            clock=self._clock,
            backoff=Backoff(self._config.backoff_initial_s, self._config.backoff_max_s),
            logger=log,
        )
        self._task = asyncio.create_task(self._run(), name="companion-memory-phone-link")

    async def _start_advertising(self) -> None:
        advertiser = self._advertiser
        if advertiser is None:

            adapter = self._config.adapter or "hci0"
            advertiser = AncsAdvertiser(
                adapter_path=f"/org/bluez/{adapter}", local_name=self._config.local_name
            )
        try:
            await advertiser.start()
        except CompanionMemoryError as exc:
            self._advertising = f"failed:{exc.code}"
            log.warning("advertising failed (%s); waiting for a configured or bonded phone",
                        exc.code)
            return
        self._advertiser = advertiser
        self._advertising = "on"

    async def _run(self) -> None:
        assert self._runner is not None
        try:
            await self._runner.run()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug in a session must not take the runtime down
            code = exc.code if isinstance(exc, CompanionMemoryError) else type(exc).__name__
            log.error("phone link loop ended (%s)", code)

    async def stop(self) -> None:
        """Cancel the loop (closing the current link) and unregister the advertisement."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._advertising == "on" and self._advertiser is not None:
            await self._advertiser.stop()
            self._advertising = "off"

    def status(self) -> dict[str, Any]:
        runner = self._runner
        link = getattr(runner, "link", None)
        return {
            "kind": self._config.kind,
            "connected": bool(link is not None and link.is_connected),
            "state": getattr(runner, "state", "stopped") if self._task is not None else "stopped",
            "last_error": getattr(runner, "last_error", None),
            "sessions": getattr(runner, "sessions", 0),
            "connect_failures": dict(getattr(runner, "failures", {})),
            "advertising": self._advertising,
            "recent_sessions": list(self._sessions_stats),
        }
