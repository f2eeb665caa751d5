"""The `org.bluez.LEAdvertisement1` object (dbus-fast); imported only by `ble.advertising`.

No `from __future__ import annotations` here: dbus-fast reads the D-Bus
signatures from the annotations at class creation.
"""

# mypy: disable-error-code="name-defined,valid-type,untyped-decorator,misc"

from dbus_fast.constants import PropertyAccess
from dbus_fast.service import ServiceInterface, dbus_property, method


class LEAdvertisement(ServiceInterface):
    """A peripheral advertisement that solicits services (e.g. ANCS)."""

    def __init__(
        self, name: str, solicit: list[str], discoverable: bool,
        service_uuids: list[str] | None = None,
    ) -> None:
        super().__init__("org.bluez.LEAdvertisement1")
        self._name = name
        self._solicit = solicit
        self._service_uuids = list(service_uuids or [])
        self._discoverable = discoverable
        self.released = False

    @method()
    def Release(self) -> None:
        self.released = True

    @dbus_property(access=PropertyAccess.READ)
    def Type(self) -> "s":  # noqa: F821
        return "peripheral"

    @dbus_property(access=PropertyAccess.READ)
    def SolicitUUIDs(self) -> "as":  # noqa: F722
        return self._solicit

    @dbus_property(access=PropertyAccess.READ)
    def ServiceUUIDs(self) -> "as":  # noqa: F722
        return self._service_uuids

    @dbus_property(access=PropertyAccess.READ)
    def LocalName(self) -> "s":  # noqa: F821
        return self._name

    @dbus_property(access=PropertyAccess.READ)
    def Discoverable(self) -> "b":  # noqa: F821
        return self._discoverable
