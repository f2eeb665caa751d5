"""`StorageSettings`: free-space levels, per-level retention and the check interval
(`[storage]`).

The thresholds are in MiB here and bytes in `Thresholds`, which the settings
build (`thresholds()`) and whose rule (warning > critical > emergency) is checked
once, at construction, under the MiB field names. `retention()` gives the days of
processed notifications and reports kept at each level below EMERGENCY.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion_memory.core.settings import SettingsError, setting, validate_settings
from companion_memory.storage.monitor import MiB, StorageLevel, Thresholds

_MB_HIGH = 10_000_000


@dataclass(frozen=True, slots=True)
class StorageSettings:
    warning_free_mb: int = setting(1024, low=1, high=_MB_HIGH, doc="Warning below this free")
    critical_free_mb: int = setting(256, low=1, high=_MB_HIGH, doc="Critical below this free")
    emergency_free_mb: int = setting(64, low=1, high=_MB_HIGH, doc="Emergency below this free")
    hysteresis_mb: int = setting(32, low=0, high=1_000_000, doc="recovery margin (no flapping)")
    normal_retention_days: int = setting(14, low=1, high=3650)
    warning_retention_days: int = setting(7, low=1, high=3650)
    critical_retention_days: int = setting(1, low=0, high=3650)
    check_interval_s: float = setting(60.0, low=1.0, high=86_400.0,
                                      doc="status file refresh between rounds")

    def __post_init__(self) -> None:
        validate_settings(self)
        if not self.warning_free_mb > self.critical_free_mb > self.emergency_free_mb:
            raise SettingsError(
                "warning_free_mb", self.warning_free_mb,
                "warning_free_mb > critical_free_mb > emergency_free_mb (got "
                f"{self.warning_free_mb}, {self.critical_free_mb}, {self.emergency_free_mb})",
                problem="breaks the order of the thresholds",
            )
        self.thresholds()  # the monitor's own rule, so nothing it refuses gets past here

    def thresholds(self) -> Thresholds:
        """The free-space thresholds in bytes, for `StorageMonitor`."""
        return Thresholds(
            warning=self.warning_free_mb * MiB,
            critical=self.critical_free_mb * MiB,
            emergency=self.emergency_free_mb * MiB,
            hysteresis=self.hysteresis_mb * MiB,
        )

    def retention(self) -> dict[StorageLevel, int]:
        """Days of processed notifications and reports kept at each level."""
        return {
            StorageLevel.NORMAL: self.normal_retention_days,
            StorageLevel.WARNING: self.warning_retention_days,
            StorageLevel.CRITICAL: self.critical_retention_days,
        }
