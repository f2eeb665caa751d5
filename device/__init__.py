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
from companion_memory.device.root import resolve_root
from companion_memory.device.runtime import FeedTotals, Runtime, RuntimeState, RuntimeStatus

__all__ = [
    "Config",
    "ConfigError",
    "DeviceError",
    "FeedTotals",
    "RootBusyError",
    "RootError",
    "RootLock",
    "Runtime",
    "RuntimeState",
    "RuntimeStatus",
    "UsageError",
    "load_config",
    "parse_config",
    "resolve_root",
]
