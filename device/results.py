"""Typed results of the host API that were plain dictionaries: the phone link's state,
the daily sweep's status and reconcile, and one exported memory.

Each dataclass is frozen and has `to_dict()`, the plain data the command line prints
and `daemon/status.json` holds; `from_dict` reads the dictionary its part produces. An
exported memory stays a dictionary (one JSON Lines line), typed as `ExportedMemory`.
No result carries a title, a body or memory text, except `ExportedMemory`, which is
the owner's own export.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Required, TypedDict


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _opt_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class LinkStatus:
    """The phone link's state (`Runtime.link_status()`); `kind` is `none` when no link
    runs. Counts and codes only."""

    kind: str
    connected: bool = False
    state: str = "stopped"
    last_error: str | None = None
    """The code of the last connection failure, if any."""
    sessions: int = 0
    connect_failures: Mapping[str, int] = field(default_factory=dict)
    advertising: str | None = None
    recent_sessions: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LinkStatus:
        failures = data.get("connect_failures") or {}
        return cls(
            kind=str(data.get("kind", "none")),
            connected=bool(data.get("connected", False)),
            state=str(data.get("state", "stopped")),
            last_error=_opt_str(data.get("last_error")),
            sessions=_opt_int(data.get("sessions")) or 0,
            connect_failures={str(k): int(v) for k, v in dict(failures).items()},
            advertising=_opt_str(data.get("advertising")),
            recent_sessions=tuple(dict(s) for s in data.get("recent_sessions") or ()),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "connected": self.connected,
            "state": self.state,
            "last_error": self.last_error,
            "sessions": self.sessions,
            "connect_failures": dict(self.connect_failures),
            "advertising": self.advertising,
            "recent_sessions": [dict(s) for s in self.recent_sessions],
        }


@dataclass(frozen=True, slots=True)
class SweepWindow:
    """One local day of the daily sweep (the last one it completed)."""

    local_date: str
    start_utc: str
    end_utc: str
    window_id: str
    zone: str
    """The zone the window was cut in (after a reconcile, still the old zone's day)."""
    reconciled: bool

    def to_dict(self) -> dict[str, Any]:
        return {"local_date": self.local_date, "start_utc": self.start_utc,
                "end_utc": self.end_utc, "window_id": self.window_id, "zone": self.zone,
                "reconciled": self.reconciled}


@dataclass(frozen=True, slots=True)
class SweepStatus:
    """`Runtime.sweep_status()`: the sweep's zone, switches, last window, pending days.

    `state` is one of `disabled`, `kill_switch`, `idle`, `pending`, `blocked` (the zone
    changed: `sweep_reconcile()`), `stalled` (a malformed stage); `reason` its code."""

    zone: str
    enabled: bool
    kill_switch: bool
    last_window: SweepWindow | None
    pending_dates: tuple[str, ...]
    state: str
    reason: str | None
    namespace: int | None
    cursor_zone: str | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SweepStatus:
        last = data.get("last_window")
        return cls(
            zone=str(data["zone"]),
            enabled=bool(data["enabled"]),
            kill_switch=bool(data["kill_switch"]),
            last_window=SweepWindow(
                local_date=str(last["local_date"]), start_utc=str(last["start_utc"]),
                end_utc=str(last["end_utc"]), window_id=str(last["window_id"]),
                zone=str(last["zone"]), reconciled=bool(last["reconciled"]),
            ) if isinstance(last, Mapping) else None,
            pending_dates=tuple(str(d) for d in data.get("pending_dates") or ()),
            state=str(data["state"]),
            reason=_opt_str(data.get("reason")),
            namespace=_opt_int(data.get("namespace")),
            cursor_zone=_opt_str(data.get("cursor_zone")),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "zone": self.zone,
            "enabled": self.enabled,
            "kill_switch": self.kill_switch,
            "last_window": self.last_window.to_dict() if self.last_window else None,
            "pending_dates": list(self.pending_dates),
            "state": self.state,
            "reason": self.reason,
            "namespace": self.namespace,
            "cursor_zone": self.cursor_zone,
        }


@dataclass(frozen=True, slots=True)
class SweepReconcile:
    """`Runtime.sweep_reconcile()`: whether the cursor was re-anchored, and why (`reason`:
    `timezone_changed`, `stage_malformed`, or, when nothing changed, `no_cursor` /
    `nothing_to_reconcile`)."""

    reconciled: bool
    reason: str
    zone: str
    namespace: int | None = None
    from_zone: str | None = None
    anchor_end_utc: str | None = None
    next_window: Mapping[str, Any] | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SweepReconcile:
        nxt = data.get("next_window")
        return cls(
            reconciled=bool(data["reconciled"]),
            reason=str(data["reason"]),
            zone=str(data["zone"]),
            namespace=_opt_int(data.get("namespace")),
            from_zone=_opt_str(data.get("from_zone")),
            anchor_end_utc=_opt_str(data.get("anchor_end_utc")),
            next_window=dict(nxt) if isinstance(nxt, Mapping) else None,
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"reconciled": self.reconciled, "reason": self.reason,
                                "zone": self.zone}
        for key in ("namespace", "from_zone", "anchor_end_utc"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.next_window is not None:
            data["next_window"] = dict(self.next_window)
        return data


class ExportedMemory(TypedDict, total=False):
    """One line of `Runtime.export()` / `companion-memory export`: a live memory or a
    tombstone. A tombstone of a compacted memory holds only `memory_id`, `status`,
    `tombstone` and `removed_at`; a deleted or superseded one also its `reason`."""

    memory_id: Required[str]
    status: Required[str]
    tombstone: Required[bool]
    revision: int
    tier: str
    kind: str
    text: str
    authority: str
    sources: list[str]
    created_at: str
    updated_at: str
    expires_at: str | None
    reinforced: int
    subject: str | None
    superseded_by: str | None
    auto: bool
    occurred_at: str | None
    app_id: str | None
    sender: str | None
    reason: str | None
    removed_at: str
