"""What tests, the demo and a host's own phone link session reach inside a `Runtime`,
and the test doubles of the product's seams (no production package exports them).

A host normally needs none of this: `Runtime.publish` / `Runtime.feed` take its
notifications in, and the runtime's own phone link (`[link]`) publishes what a phone
sends. The runtime's parts stay private; these accessors are the one documented route
to three of them:

    from companion_memory.testing import event_ring, runtime_clock

    ring = event_ring(runtime)      # what an AncsSession / AndroidSession publishes into
    now = runtime_clock(runtime).now()

- `event_ring(runtime)`: the `EventRing` the runtime's ring writer persists. Hand it to an
  ANCS or Android session the host runs itself, or read its statistics in a test.
  Everything published into it is persisted within `intake.loss_window_s`.
- `runtime_clock(runtime)`: the clock the runtime was given (a `FakeClock` in tests).
- `runtime_file_system(runtime)`: the file system seam it writes through.

Each raises `RuntimeStateError` unless the runtime is open (the clock and file system
are readable whatever the state).

The test doubles, each defined beside the seam it stands in for:

- `FakeClock` (`core.clock`): time that moves only when told.
- `FakeDiskProbe` (`storage.monitor`): free space as set.
- `FaultFileSystem`, `PowerLoss` (`storage.faultfs`): a file system that fails on cue
  and images what a power loss leaves.
- `FakePhoneLink` (`ble.link`), `FakeIphoneLink`, `AncsPhoneModel`,
  `PhoneNotification`, `fragment` (`ble.emulator`): phones without a radio.
- `ScriptedProvider` (`agent.model.scripted`): a model that answers from a script.

The phones that need an optional dependency are imported from their own modules
(`ble.emulator.bumble_iphone`, `bumble_android`, `bumble_link`, `bluez_iphone`).
"""

from __future__ import annotations

from companion_memory.agent.model.scripted import ScriptedProvider
from companion_memory.ble.emulator.fake_iphone import FakeIphoneLink
from companion_memory.ble.emulator.iphone_model import AncsPhoneModel, PhoneNotification, fragment
from companion_memory.ble.link import FakePhoneLink
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import Clock, FakeClock
from companion_memory.device.runtime import Runtime
from companion_memory.storage.faultfs import FaultFileSystem, PowerLoss
from companion_memory.storage.fs import FileSystem
from companion_memory.storage.monitor import FakeDiskProbe

__all__ = [
    "AncsPhoneModel", "FakeClock", "FakeDiskProbe", "FakeIphoneLink",
    "FakePhoneLink", "FaultFileSystem", "PhoneNotification", "PowerLoss", "ScriptedProvider",
    "event_ring", "fragment", "runtime_clock", "runtime_file_system",
]


def event_ring(runtime: Runtime) -> EventRing:
    """The runtime's event ring (open runtimes only)."""
    return runtime._event_ring()


def runtime_clock(runtime: Runtime) -> Clock:
    """The clock the runtime runs on."""
    return runtime._clock


def runtime_file_system(runtime: Runtime) -> FileSystem:
    """The file system seam the runtime writes its log, episodes and reports through."""
    return runtime._fs
