"""`SweepSettings`: the daily sweep's settings, checked when built (the `[sweep]` table).

The bounds are the processor's own limits: at most 32 candidates are kept from a
day's page and at most 16 of them written, at most 31 days are swept in one run.
The zone must be an IANA zone known to this system (reading its tz data once is a
small blocking read; later checks are served from memory); the default, "local", is
the device's own zone (`windows.device_zone`: `TZ`, `/etc/localtime`, UTC when neither
names one), resolved when the settings are built, so `zone` always holds the IANA name.

The sweep runs by default: it is what keeps anything beyond the two weeks the
notification log holds. `kill_switch` stops it whatever `enabled` says.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion_memory.agent.sweep.windows import LOCAL_ZONE, SweepZoneError, device_zone, load_zone
from companion_memory.core.settings import SettingsError, setting, validate_settings

MAX_DAYS_PER_RUN = 31
MAX_CANDIDATES = 32
MAX_WRITES = 16


@dataclass(frozen=True, slots=True)
class SweepSettings:
    enabled: bool = setting(True, doc="run the daily sweep (consolidation into Long-Term)")
    kill_switch: bool = setting(False, doc="overrides enabled; stops future sweep writes")
    zone: str = setting(LOCAL_ZONE, doc="IANA zone of the device's local day; 'local': the "
                        "device's own (TZ, /etc/localtime; UTC when neither names one)")
    max_days_per_run: int = setting(3, low=1, high=MAX_DAYS_PER_RUN)
    max_candidates: int = setting(32, low=1, high=MAX_CANDIDATES)
    max_writes: int = setting(16, low=1, high=MAX_WRITES)

    def __post_init__(self) -> None:
        validate_settings(self)
        if self.zone == LOCAL_ZONE:
            object.__setattr__(self, "zone", device_zone())
        try:
            load_zone(self.zone)
        except SweepZoneError:
            raise SettingsError(
                "zone", self.zone, "an IANA time zone (e.g. Europe/London, America/New_York, "
                "UTC)", problem="is not a known time zone",
            ) from None


device_zone()  # read the device's zone at import, off any event loop
