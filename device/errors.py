"""Errors of the device layer: configuration, root, lock and usage.

Each maps to an exit status in the command line: `UsageError`, `ConfigError`,
`RootError` and `RootBusyError` exit 2 with their one-line reason.
"""

from __future__ import annotations

from companion_memory.core.errors import CompanionMemoryError, ConflictError, InvalidInputError


class DeviceError(CompanionMemoryError):
    """Base of the device layer's errors."""

    code = "device_error"


class UsageError(DeviceError, InvalidInputError):
    """The command line or its input was wrong (exit status 2)."""

    code = "bad_usage"


class ConfigError(DeviceError, InvalidInputError):
    """The configuration file or an environment override is invalid.

    `key` is the dotted key (e.g. `worker.idle_delay_s`) when one is at fault.
    """

    code = "bad_config"

    def __init__(self, reason: str, *, key: str | None = None) -> None:
        self.key = key
        super().__init__(reason)


class RootError(DeviceError, InvalidInputError):
    """The data root cannot be used: not ours, not a directory, or read-only."""

    code = "bad_root"


class RootBusyError(DeviceError, ConflictError):
    """Another process (a daemon, a feed) holds the root's lock."""

    code = "root_busy"

    def __init__(self, reason: str, *, pid: int | None = None, command: str | None = None) -> None:
        self.pid = pid
        self.command = command
        super().__init__(reason)
