"""Local days of an IANA zone as exact UTC half-open windows `[start_utc, end_utc)`.

A local date `D` in zone `Z` starts at local midnight of `D` (resolved with
`fold=0`, so a midnight that falls in a spring-forward gap starts the day at the
transition instant) and ends where `D + 1` starts. Consecutive days therefore tile
the time line with no gap and no overlap: spring-forward days last 23 h, fall-back
days 25 h, and 30-minute shifts (Australia/Lord_Howe) give 23.5 h / 24.5 h days.

A window may also be *clipped*: after an operator reconciles a zone change, the
first window in the new zone starts exactly where the last completed window of
the old zone ended (`next_window`), so nothing is replayed and nothing skipped.
The `window_id` names zone, date and both UTC bounds, so a clipped window never
shares an id with the full day. Pure functions; no I/O, no clock.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from companion_memory.core.errors import InvalidInputError

LOCAL_ZONE = "local"
"""The zone setting that means the device's own zone (`device_zone`)."""
FALLBACK_ZONE = "UTC"
_UTC_ALIASES = frozenset({"Etc/UTC", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "UCT", "Universal",
                          "Zulu", "Etc/GMT", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0", "GMT0"})


class SweepZoneError(InvalidInputError):
    """The configured zone is not an IANA zone name known to this system."""

    code = "invalid_timezone"


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y%m%dT%H%M%SZ")


_ZONES: dict[str, ZoneInfo] = {}


def load_zone(zone: str) -> ZoneInfo:
    """The `ZoneInfo` for an IANA name; `SweepZoneError` names what is allowed.

    The first load of a zone reads its tzdata file (a small blocking read); later
    calls are served from memory. `DailySweepProcessor` loads its zone when it is
    constructed, so construct it off the event loop or pre-load with this function.
    """
    cached = _ZONES.get(zone) if isinstance(zone, str) else None
    if cached is not None:
        return cached
    if not isinstance(zone, str) or not zone.strip():
        raise SweepZoneError("the sweep zone must be a non-empty IANA zone name such as "
                             "'Europe/London'")
    try:
        loaded = ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise SweepZoneError(
            f"unknown time zone {zone!r}; use an IANA zone name such as 'America/New_York'"
        ) from None
    _ZONES[zone] = loaded
    return loaded


def detect_zone(environ: Mapping[str, str] | None = None,
                localtime: Path = Path("/etc/localtime"),
                timezone_file: Path = Path("/etc/timezone")) -> str:
    """The device's IANA zone name: `TZ` when it names one (":Europe/Berlin" too), else
    the zone `/etc/localtime` links to, else `/etc/timezone`; `UTC` when none names a
    zone this system knows (its aliases, such as Etc/UTC, are named UTC). Blocking file
    reads: call it off the event loop (`device_zone` caches its answer)."""
    env = os.environ if environ is None else environ
    candidates: list[str] = []
    tz = env.get("TZ", "").strip().lstrip(":")
    if tz:
        candidates.append(tz)
    try:
        target = os.readlink(localtime)
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        candidates.append(target.split("zoneinfo/", 1)[1])
    with contextlib.suppress(OSError, UnicodeDecodeError):
        candidates.append(timezone_file.read_text(encoding="utf-8").strip())
    for name in candidates:
        if name.startswith("/"):
            continue
        try:
            load_zone(name)
        except SweepZoneError:
            continue
        return FALLBACK_ZONE if name in _UTC_ALIASES else name
    return FALLBACK_ZONE


_DEVICE_ZONE: list[str] = []


def device_zone() -> str:
    """`detect_zone()`, read once per process (at import of the sweep's settings, so a
    settings object built on the event loop does no file I/O there)."""
    if not _DEVICE_ZONE:
        _DEVICE_ZONE.append(detect_zone())
    return _DEVICE_ZONE[0]


@dataclass(frozen=True, slots=True)
class Window:
    """One local day (or the clipped tail of one) as an exact UTC interval."""

    local_date: date
    zone: str
    start_utc: datetime
    end_utc: datetime
    window_id: str

    def __post_init__(self) -> None:
        for name in ("start_utc", "end_utc"):
            value = getattr(self, name)
            if not isinstance(value, datetime) or value.utcoffset() != timedelta(0):
                raise SweepZoneError(f"{name} must be a UTC datetime")
        if self.end_utc <= self.start_utc:
            raise SweepZoneError("a window must end after it starts")

    @property
    def duration(self) -> timedelta:
        return self.end_utc - self.start_utc

    def contains(self, moment: datetime) -> bool:
        """True when `moment` lies in `[start_utc, end_utc)`."""
        return self.start_utc <= moment < self.end_utc

    def to_dict(self) -> dict[str, Any]:
        return {
            "local_date": self.local_date.isoformat(),
            "zone": self.zone,
            "start_utc": self.start_utc.isoformat(),
            "end_utc": self.end_utc.isoformat(),
            "window_id": self.window_id,
        }


def make_window(local_date: date, zone: str, start_utc: datetime, end_utc: datetime) -> Window:
    """A window with its deterministic id: `<date>@<zone>#<startZ>/<endZ>`."""
    start = start_utc.astimezone(UTC)
    end = end_utc.astimezone(UTC)
    window_id = f"{local_date.isoformat()}@{zone}#{_stamp(start)}/{_stamp(end)}"
    return Window(local_date, zone, start, end, window_id)


def local_midnight_utc(local_date: date, zone: str) -> datetime:
    """The UTC instant where `local_date` begins in `zone`."""
    tz = load_zone(zone)
    return datetime.combine(local_date, time(0), tzinfo=tz).astimezone(UTC)


def day_window(local_date: date, zone: str) -> Window:
    """The full local day `local_date` in `zone` as `[start_utc, end_utc)`."""
    start = local_midnight_utc(local_date, zone)
    end = local_midnight_utc(local_date + timedelta(days=1), zone)
    return make_window(local_date, zone, start, end)


def local_date_of(moment: datetime, zone: str) -> date:
    """The local calendar date of a UTC instant in `zone`."""
    if moment.tzinfo is None:
        raise SweepZoneError("moment must be timezone-aware")
    return moment.astimezone(load_zone(zone)).date()


def today(now: datetime, zone: str) -> date:
    """Today's local date: the partial day that is never swept."""
    return local_date_of(now, zone)


def next_window(after_end_utc: datetime, zone: str) -> Window:
    """The window that starts exactly at `after_end_utc` (the end of the last completed
    window). In the same zone this is the next full day; after a zone change it is the
    tail of the new zone's day that contains `after_end_utc`."""
    moment = after_end_utc.astimezone(UTC)
    local = local_date_of(moment, zone)
    window = day_window(local, zone)
    while window.end_utc <= moment:  # an instant-long midnight at a fall-back transition
        local += timedelta(days=1)
        window = day_window(local, zone)
    if window.start_utc == moment:
        return window
    return make_window(local, zone, moment, window.end_utc)


def completed_days(
    now: datetime,
    zone: str,
    *,
    after_end_utc: datetime | None = None,
    first_date: date | None = None,
    limit: int = 3,
) -> list[Window]:
    """Completed windows still to sweep, oldest first, at most `limit`.

    Starts right after `after_end_utc` (the cursor) when given, else at the full day
    `first_date`. A window is completed when its local date is before today's local
    date in `zone`; today's partial day is never returned.
    """
    if limit < 0:
        raise SweepZoneError("limit must be zero or positive")
    if (after_end_utc is None) == (first_date is None):
        raise SweepZoneError("give exactly one of after_end_utc or first_date")
    current = today(now, zone)
    out: list[Window] = []
    if after_end_utc is not None:
        window = next_window(after_end_utc, zone)
    elif first_date is not None:
        # via next_window so a date that a zone skipped entirely is passed over
        window = next_window(local_midnight_utc(first_date, zone), zone)
    else:  # pragma: no cover - excluded by the check above
        return out
    while window.local_date < current and len(out) < limit:
        out.append(window)
        window = next_window(window.end_utc, zone)
    return out
