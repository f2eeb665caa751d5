"""An emulated iPhone behind `FakePhoneLink`: no radio, same bytes as the real thing.

`FakeIphoneLink` answers Control Point writes from an `AncsPhoneModel` and sends
the Data Source response in (mtu - 3)-byte notifications, either right away
(`immediate=True`, used by the benchmark) or on later loop iterations, after the
write returned, as a real link does.
"""

from __future__ import annotations

import asyncio

from companion_memory.ble.ancs.codec import (
    CONTROL_POINT_UUID,
    DATA_SOURCE_UUID,
    NOTIFICATION_SOURCE_UUID,
)
from companion_memory.ble.emulator.iphone_model import AncsPhoneModel, fragment
from companion_memory.ble.link import FakePhoneLink


class FakeIphoneLink(FakePhoneLink):
    """A `PhoneLink` whose far end is an `AncsPhoneModel`."""

    def __init__(
        self,
        model: AncsPhoneModel | None = None,
        *,
        mtu: int = 23,
        immediate: bool = False,
        peer: str = "fake-iphone",
    ) -> None:
        super().__init__(peer, on_write=self._answer)
        self.model = model if model is not None else AncsPhoneModel()
        self.mtu = mtu
        self.immediate = immediate
        self.data_source_tap: list[bytes] = []

    def _answer(self, uuid: str, data: bytes) -> None:
        if uuid != CONTROL_POINT_UUID:
            return
        response = self.model.handle_control_point(data)  # raises AttWriteError
        if response is None:
            return
        pieces = fragment(response, self.mtu)
        if self.immediate:
            for piece in pieces:
                self.notify(DATA_SOURCE_UUID, piece)
            return
        loop = asyncio.get_running_loop()
        for piece in pieces:
            loop.call_soon(self.notify, DATA_SOURCE_UUID, piece)

    def send_source(self, packet: bytes) -> bool:
        """Deliver one Notification Source packet."""
        return self.notify(NOTIFICATION_SOURCE_UUID, packet)

    def send_data(self, data: bytes) -> bool:
        """Deliver raw Data Source bytes (for bad-input tests)."""
        return self.notify(DATA_SOURCE_UUID, data)
