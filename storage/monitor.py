"""Storage levels: a `StorageMonitor` reads free space through a `DiskProbe`,
derives a level with hysteresis, and runs the registered `Cleaner`s.

Levels, from calm to desperate: NORMAL, WARNING, CRITICAL, EMERGENCY. Each owner
registers its own cleaner (the notification context cleans its processed shards,
the memory store its expired records); the monitor never deletes a file itself.

A probe failure is handled cautiously: the level stays at the last known one, the
monitor reports `degraded`, intake pauses as at CRITICAL, and cleaners run no more
aggressively than at the last known level. A failure is never read as NORMAL.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Protocol, runtime_checkable

from companion_memory.core.errors import CompanionMemoryError, InvalidInputError

log = logging.getLogger("companion_memory.storage.monitor")

MiB = 1024 * 1024
GiB = 1024 * MiB


class StorageLevel(IntEnum):
    NORMAL = 0
    WARNING = 1
    CRITICAL = 2
    EMERGENCY = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class ThresholdError(InvalidInputError):
    code = "invalid_storage_thresholds"


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Free-space thresholds in bytes: below `warning` is WARNING, and so on.

    The defaults suit a wearable with a few GB of flash free: the notification log
    grows by a few MB a day, so 1 GiB free is comfortable warning headroom, 256 MiB
    leaves room for SQLite checkpoints and a model's scratch, and below 64 MiB only
    emergency cleanup runs. A level is left only when free space rises above its
    threshold plus `hysteresis` bytes, so the level does not flap at a boundary.
    """

    warning: int = 1 * GiB
    critical: int = 256 * MiB
    emergency: int = 64 * MiB
    hysteresis: int = 32 * MiB

    def __post_init__(self) -> None:
        for name in ("warning", "critical", "emergency"):
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0:
                raise ThresholdError(f"storage.{name}_free_bytes: {value!r} must be > 0")
        if not isinstance(self.hysteresis, int) or self.hysteresis < 0:
            raise ThresholdError(f"storage.hysteresis_bytes: {self.hysteresis!r} must be >= 0")
        if not self.warning > self.critical > self.emergency:
            raise ThresholdError(
                "storage thresholds must satisfy warning > critical > emergency "
                f"(got {self.warning} > {self.critical} > {self.emergency})"
            )

    def bound(self, level: StorageLevel) -> int:
        """Free bytes below which `level` (or worse) applies."""
        return {
            StorageLevel.WARNING: self.warning,
            StorageLevel.CRITICAL: self.critical,
            StorageLevel.EMERGENCY: self.emergency,
        }[level]


def raw_level(free: int, thresholds: Thresholds) -> StorageLevel:
    if free < thresholds.emergency:
        return StorageLevel.EMERGENCY
    if free < thresholds.critical:
        return StorageLevel.CRITICAL
    if free < thresholds.warning:
        return StorageLevel.WARNING
    return StorageLevel.NORMAL


def next_level(current: StorageLevel, free: int, thresholds: Thresholds) -> StorageLevel:
    """Worsen at once; improve only past the threshold plus the hysteresis margin."""
    target = raw_level(free, thresholds)
    if target >= current:
        return target
    level = current
    while level > target and free >= thresholds.bound(level) + thresholds.hysteresis:
        level = StorageLevel(level - 1)
    return level


@dataclass(frozen=True, slots=True)
class DiskUsage:
    total_bytes: int
    free_bytes: int


@runtime_checkable
class DiskProbe(Protocol):
    """Reads the free space of the filesystem holding the root (blocking; run off-loop)."""

    def usage(self) -> DiskUsage: ...


class StatvfsProbe:
    """The real probe: statvfs of `path`'s filesystem, space available to us."""

    def __init__(self, path: str) -> None:
        self._path = path

    def usage(self) -> DiskUsage:
        st = os.statvfs(self._path)
        return DiskUsage(
            total_bytes=st.f_blocks * st.f_frsize, free_bytes=st.f_bavail * st.f_frsize
        )


class FakeDiskProbe:
    """A probe for tests: set the free bytes, or make the next reads fail."""

    def __init__(self, free_bytes: int, total_bytes: int = 8 * GiB) -> None:
        self.free_bytes = free_bytes
        self.total_bytes = total_bytes
        self.error: OSError | None = None
        self.reads = 0

    def usage(self) -> DiskUsage:
        self.reads += 1
        if self.error is not None:
            raise self.error
        return DiskUsage(total_bytes=self.total_bytes, free_bytes=self.free_bytes)


@dataclass(frozen=True, slots=True)
class CleanResult:
    removed: int = 0
    freed_bytes: int = 0


@runtime_checkable
class Cleaner(Protocol):
    """Something an owner registers to free space in its own data, never in others'."""

    name: str

    async def clean(self, level: StorageLevel) -> CleanResult: ...


@dataclass(slots=True)
class MonitorReport:
    """One check: the level before and after, whether the probe failed, what was freed."""

    level: StorageLevel
    previous: StorageLevel
    degraded: bool
    intake_allowed: bool
    free_bytes: int | None
    cleaners: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.level is not self.previous

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level.label,
            "previous": self.previous.label,
            "changed": self.changed,
            "degraded": self.degraded,
            "intake_allowed": self.intake_allowed,
            "free_bytes": self.free_bytes,
            "cleaners": self.cleaners,
        }


LevelListener = Callable[[StorageLevel, bool], None]


class StorageMonitor:
    """Derives the storage level and runs the cleaners registered by data owners."""

    def __init__(
        self,
        probe: DiskProbe,
        thresholds: Thresholds | None = None,
        *,
        initial: StorageLevel = StorageLevel.NORMAL,
    ) -> None:
        self._probe = probe
        self._thresholds = thresholds or Thresholds()
        self._level = initial
        self._degraded = False
        self._free: int | None = None
        self._cleaners: list[Cleaner] = []
        self._listeners: list[LevelListener] = []
        self.last_report: MonitorReport | None = None

    @property
    def level(self) -> StorageLevel:
        return self._level

    @property
    def degraded(self) -> bool:
        """True while the last probe failed; the level is then the last known one."""
        return self._degraded

    @property
    def intake_allowed(self) -> bool:
        return not self._degraded and self._level < StorageLevel.CRITICAL

    def register(self, cleaner: Cleaner) -> None:
        if not isinstance(cleaner, Cleaner):
            raise InvalidInputError("a cleaner needs a `name` and an async `clean(level)`")
        if any(c.name == cleaner.name for c in self._cleaners):
            raise InvalidInputError(f"a cleaner named {cleaner.name!r} is already registered")
        self._cleaners.append(cleaner)

    def subscribe(self, listener: LevelListener) -> None:
        """`listener(level, intake_allowed)` is called after every check (cheap, sync)."""
        self._listeners.append(listener)

    async def check(self) -> MonitorReport:
        """Probe, update the level, run every cleaner at the effective level."""
        previous = self._level
        try:
            usage = await asyncio.to_thread(self._probe.usage)
        except (OSError, CompanionMemoryError) as err:
            self._degraded = True
            log.warning(
                "storage probe failed (%s); keeping level %s, intake paused",
                type(err).__name__,
                self._level.label,
            )
        else:
            self._degraded = False
            self._free = usage.free_bytes
            self._level = next_level(self._level, usage.free_bytes, self._thresholds)
        if self._level is not previous:
            log.info("storage level %s -> %s", previous.label, self._level.label)
        report = MonitorReport(
            level=self._level,
            previous=previous,
            degraded=self._degraded,
            intake_allowed=self.intake_allowed,
            free_bytes=None if self._degraded else self._free,
        )
        for listener in tuple(self._listeners):
            listener(self._level, self.intake_allowed)
        for cleaner in self._cleaners:
            try:
                result = await cleaner.clean(self._level)
            except CompanionMemoryError as err:
                log.warning("cleaner %s failed: %s", cleaner.name, err.code)
                report.cleaners[cleaner.name] = {"error": err.code}
                continue
            report.cleaners[cleaner.name] = {
                "removed": result.removed,
                "freed_bytes": result.freed_bytes,
            }
        self.last_report = report
        return report

    def status(self) -> dict[str, Any]:
        return {
            "level": self._level.label,
            "degraded": self._degraded,
            "intake_allowed": self.intake_allowed,
            "free_bytes": self._free,
            "last_check": self.last_report.to_dict() if self.last_report else None,
        }
