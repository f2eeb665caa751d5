"""companion-memory: durable notification intake and an on-device memory for the agent
of a BLE wearable.

This is the one import name the package installs; its parts live beneath it
(`companion_memory.ble`, `.storage`, `.memory`, `.agent`, `.device`, `.core`). What a
host needs is importable from here:

    from companion_memory import Runtime, load_config, NotificationEvent, Tier

Importing it imports the whole library (about half a second on a two-core device),
with no optional dependency: llama.cpp, bleak, bumble and httpx load only when a
part that needs them is first used.
"""

from __future__ import annotations

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
from companion_memory.device.runtime import FeedTotals, Runtime, RuntimeState, RuntimeStatus
from companion_memory.memory.errors import StoreCorruptError
from companion_memory.memory.records import Kind, MemoryRecord, Tier
from companion_memory.memory.store import RepairResult, StoreHealth

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
    "RepairResult",
    "RootBusyError",
    "RootError",
    "Runtime",
    "RuntimeState",
    "RuntimeStatus",
    "StateError",
    "StorageFailureError",
    "StoreCorruptError",
    "StoreHealth",
    "SystemClock",
    "Tier",
    "UnavailableError",
    "load_config",
    "parse_config",
]
