"""Emulated phones for tests and the demo.

The package exports only what `make demo` uses: `replay_over_ancs` (imports bumble
when called) and its `ReplayStats`. The pure test phones (`AncsPhoneModel`,
`FakeIphoneLink`, `PhoneNotification`, `fragment`) are exported by
`companion_memory.testing`; the bumble-based phones live in `ble.emulator.bumble_iphone`
/ `bumble_android` / `bumble_link` and the bluezoo one in `ble.emulator.bluez_iphone`,
each importing its optional dependency when imported itself.
"""

from companion_memory.ble.emulator.replay import ReplayStats, replay_over_ancs

__all__ = ["ReplayStats", "replay_over_ancs"]
