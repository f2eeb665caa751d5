"""The process on the device: configuration, runtime wiring, daemon and CLI."""

from __future__ import annotations

from companion_memory.device.config import Config, load_config, parse_config
from companion_memory.device.errors import (
    ConfigError,
    DeviceError,
    RootBusyError,
    RootError,
    UsageError,
)
from companion_memory.device.lock import RootLock
from companion_memory.device.results import (
    ExportedMemory,
    LinkStatus,
    SweepReconcile,
    SweepStatus,
    SweepWindow,
)
from companion_memory.device.root import resolve_root
from companion_memory.device.runtime import (
    FeedTotals,
    Runtime,
    RuntimeState,
    RuntimeStateError,
    RuntimeStatus,
)

__all__ = [
    "Config",
    "ConfigError",
    "DeviceError",
    "ExportedMemory",
    "FeedTotals",
    "LinkStatus",
    "RootBusyError",
    "RootError",
    "RootLock",
    "Runtime",
    "RuntimeState",
    "RuntimeStateError",
    "RuntimeStatus",
    "SweepReconcile",
    "SweepStatus",
    "SweepWindow",
    "UsageError",
    "load_config",
    "parse_config",
    "resolve_root",
]
