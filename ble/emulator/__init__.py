"""Emulated phones for tests and the demo.

The pure parts (`AncsPhoneModel`, `FakeIphoneLink`) import nothing heavy; the
bumble-based phones live in `ble.emulator.bumble_iphone` / `bumble_android` /
`bumble_link` and import bumble only when those modules are imported.
`replay_over_ancs` imports bumble when called.
"""

from companion_memory.ble.emulator.fake_iphone import FakeIphoneLink
from companion_memory.ble.emulator.iphone_model import AncsPhoneModel, PhoneNotification, fragment
from companion_memory.ble.emulator.replay import ReplayStats, replay_over_ancs

__all__ = [
    "AncsPhoneModel",
    "FakeIphoneLink",
    "PhoneNotification",
    "ReplayStats",
    "fragment",
    "replay_over_ancs",
]
