"""companion-memory: durable notification intake and an on-device memory for the agent
of a BLE wearable.

This is the one import name the package installs; its parts live beneath it
(`companion_memory.ble`, `.storage`, `.memory`, `.agent`, `.device`, `.core`). What a
host needs is importable from here:

    from companion_memory import Runtime, load_config, NotificationEvent, Tier

`Runtime` (and what only it uses) is imported on first use, so `import
companion_memory` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion_memory.ble.events import EventKind, InvalidEventError, NotificationEvent
from companion_memory.core.clock import Clock, FakeClock, SystemClock
from companion_memory.core.errors import (
    CompanionMemoryError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    StateError,
    StorageFailureError,
    UnavailableError,
)
from companion_memory.device.config import Config, load_config, parse_config
from companion_memory.device.errors import ConfigError, RootBusyError, RootError
from companion_memory.memory.records import Kind, MemoryRecord, Tier

if TYPE_CHECKING:
    from companion_memory.device.runtime import FeedTotals, Runtime, RuntimeState, RuntimeStatus

__all__ = [
    "Clock",
    "CompanionMemoryError",
    "Config",
    "ConfigError",
    "ConflictError",
    "EventKind",
    "FakeClock",
    "FeedTotals",
    "InvalidEventError",
    "InvalidInputError",
    "Kind",
    "MemoryRecord",
    "NotFoundError",
    "NotificationEvent",
    "RootBusyError",
    "RootError",
    "Runtime",
    "RuntimeState",
    "RuntimeStatus",
    "StateError",
    "StorageFailureError",
    "SystemClock",
    "Tier",
    "UnavailableError",
    "load_config",
    "parse_config",
]

_LAZY = {"Runtime", "RuntimeState", "RuntimeStatus", "FeedTotals"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from companion_memory.device import runtime

        return getattr(runtime, name)
    raise AttributeError(f"module 'companion_memory' has no attribute {name!r}")
