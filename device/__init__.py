"""The process on the device: configuration, runtime wiring, daemon and CLI.

Heavy names (`Runtime`) are imported on first use so that `companion-memory --help`
and `status` stay fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from companion_memory.device.runtime import FeedTotals, Runtime, RuntimeState

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
    "UsageError",
    "load_config",
    "parse_config",
    "resolve_root",
]

_LAZY = {"Runtime", "RuntimeState", "FeedTotals"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from companion_memory.device import runtime

        return getattr(runtime, name)
    raise AttributeError(f"module 'device' has no attribute {name!r}")
