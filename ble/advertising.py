"""Advertise the ANCS service solicitation through BlueZ (`LEAdvertisingManager1`).

bleak is central-only and cannot advertise; an iPhone finds an ANCS accessory by
its solicitation of the ANCS service UUID. `AncsAdvertiser` exports an
`org.bluez.LEAdvertisement1` object over dbus-fast and registers it with the
adapter. dbus-fast is imported on `start()`, never at `import ble`.
"""

from __future__ import annotations

import contextlib
from typing import Any

from companion_memory.ble.ancs.codec import ANCS_SERVICE_UUID
from companion_memory.ble.errors import PhoneLinkError

ADVERTISEMENT_PATH = "/org/companion_memory/advertisement0"


class AncsAdvertiser:
    """Registers (and on `stop()` unregisters) the ANCS solicitation advertisement."""

    def __init__(
        self,
        *,
        adapter_path: str = "/org/bluez/hci0",
        local_name: str = "companion",
        solicit: tuple[str, ...] = (ANCS_SERVICE_UUID,),
        bus_address: str | None = None,
    ) -> None:
        self._adapter_path = adapter_path
        self._name = local_name
        self._solicit = list(solicit)
        self._bus_address = bus_address
        self._bus: Any = None
        self.advertisement: Any = None
        self.registered = False

    async def start(self) -> None:
        """Export and register; raises `PhoneLinkError` (`advertising_failed`) on refusal.

        Cancellation disconnects from the bus and leaves nothing registered.
        """
        from dbus_fast import BusType
        from dbus_fast.aio import MessageBus
        from dbus_fast.errors import DBusError

        try:
            bus = MessageBus(bus_address=self._bus_address, bus_type=BusType.SYSTEM)
            self._bus = await bus.connect()
            from companion_memory.ble.bluez_advertisement import LEAdvertisement

            self.advertisement = LEAdvertisement(self._name, self._solicit, True)
            self._bus.export(ADVERTISEMENT_PATH, self.advertisement)
            introspection = await self._bus.introspect("org.bluez", self._adapter_path)
            proxy = self._bus.get_proxy_object("org.bluez", self._adapter_path, introspection)
            manager = proxy.get_interface("org.bluez.LEAdvertisingManager1")
            await manager.call_register_advertisement(ADVERTISEMENT_PATH, {})
            self.registered = True
        except (DBusError, OSError) as exc:
            await self.stop()
            raise PhoneLinkError(
                f"BlueZ refused the advertisement: {type(exc).__name__}",
                code="advertising_failed",
            ) from exc
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        """Unregister and disconnect; idempotent."""
        bus, self._bus = self._bus, None
        if bus is None:
            return
        if self.registered:
            with contextlib.suppress(Exception):
                introspection = await bus.introspect("org.bluez", self._adapter_path)
                proxy = bus.get_proxy_object("org.bluez", self._adapter_path, introspection)
                manager = proxy.get_interface("org.bluez.LEAdvertisingManager1")
                await manager.call_unregister_advertisement(ADVERTISEMENT_PATH)
            self.registered = False
        bus.disconnect()
        with contextlib.suppress(Exception):
            await bus.wait_for_disconnect()
