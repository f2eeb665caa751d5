"""The sweep's read side and its operator action, as two parts the processor composes.

`SweepSchedule` answers which completed windows are due: after the cursor, or,
with no cursor yet, from the local date of the oldest processed notification or
live Temporary memory (no earlier than `bootstrap_days` before today). It only
reads.

`SweepOperator` is what an operator sees and does: `status()` only reads;
`reconcile()` is the explicit action. After a zone change it switches the cursor
to the configured zone, keeps the completed anchor (the UTC end of the last
completed window) and bumps the receipt namespace, so the next window starts
exactly where the last one ended (no overlap replayed, no gap skipped). It also
releases a window whose stage is malformed, by the same bump (its next invocation
stages under the new namespace).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from companion_memory.agent.sweep.day_input import InputLimits, SweepContext
from companion_memory.agent.sweep.proposals import SCHEMA_VERSION
from companion_memory.agent.sweep.settings import SweepSettings
from companion_memory.agent.sweep.windows import (
    Window,
    completed_days,
    local_date_of,
    local_midnight_utc,
    next_window,
    today,
)
from companion_memory.core.clock import Clock
from companion_memory.memory import Tier
from companion_memory.memory import sweep_ledger as ledger
from companion_memory.memory.store import MemoryStore
from companion_memory.memory.sweep_ledger import SweepLedger

ZONE_CHANGED = "timezone_changed_requires_reconciliation"


def zone_mismatch(cursor: ledger.SweepCursor | None, zone: str) -> bool:
    return cursor is not None and cursor.zone != zone


def _stage_broken(stage: ledger.Stage | None) -> bool:
    if stage is None or stage.schema_version < SCHEMA_VERSION:
        return False
    return stage.schema_version > SCHEMA_VERSION or not stage.intact


class SweepSchedule:
    """Which completed local days are due (read only); see the module docstring."""

    def __init__(self, context: SweepContext, store: MemoryStore, *, clock: Clock, zone: str,
                 bootstrap_days: int, limits: InputLimits) -> None:
        self.context = context
        self.store = store
        self.ledger = SweepLedger(store)
        self.clock = clock
        self.zone = zone
        self.bootstrap_days = bootstrap_days
        self.limits = limits

    async def bootstrap_date(self) -> date | None:
        """With no cursor yet: the local date of the oldest processed notification or live
        Temporary memory, no earlier than `bootstrap_days` before today."""
        now = self.clock.now()
        floor = today(now, self.zone) - timedelta(days=self.bootstrap_days)
        start = local_midnight_utc(floor, self.zone)
        dates: list[date] = []
        first = await self.context.read_processed_between(start, now, 1)
        if first:
            dates.append(local_date_of(first[0].received_at, self.zone))
        temporaries = await self.store.list_records(
            tier=Tier.TEMPORARY, limit=self.limits.temporaries_scan
        )
        if temporaries:
            oldest = min(r.created_at for r in temporaries)
            dates.append(local_date_of(oldest, self.zone))
        if not dates:
            return None
        return max(floor, min(dates))

    async def due(self, cursor: ledger.SweepCursor | None, *, limit: int) -> list[Window]:
        """Completed windows after `cursor` (or from the bootstrap date), oldest first;
        none while the cursor's zone is not the configured one."""
        if zone_mismatch(cursor, self.zone):
            return []
        now = self.clock.now()
        if cursor is not None:
            return completed_days(now, self.zone, after_end_utc=cursor.end_utc, limit=limit)
        first = await self.bootstrap_date()
        if first is None:
            return []
        return completed_days(now, self.zone, first_date=first, limit=limit)

    async def pending_dates(self, *, limit: int = 31) -> list[Window]:
        """Completed windows not yet swept, oldest first (read only)."""
        return await self.due(await self.ledger.cursor(), limit=limit)


class SweepOperator:
    """`status()` and `reconcile()`; see the module docstring."""

    def __init__(self, store: MemoryStore, schedule: SweepSchedule,
                 settings: SweepSettings) -> None:
        self.store = store
        self.ledger = SweepLedger(store)
        self.schedule = schedule
        self.settings = settings

    async def status(self) -> dict[str, Any]:
        """Zone, switches, last completed window, pending dates, state and reason code."""
        zone = self.settings.zone
        cursor = await self.ledger.cursor()
        pending = await self.schedule.due(cursor, limit=31)
        last = None
        if cursor is not None and cursor.kind != "anchor":
            last = {
                "local_date": cursor.local_date.isoformat(),
                "start_utc": cursor.start_utc.isoformat(),
                "end_utc": cursor.end_utc.isoformat(),
                "window_id": cursor.window_id,
                # The zone the window was cut in; after a reconcile the cursor's zone is
                # already the new one while this window is still the old zone's day.
                "zone": _window_zone(cursor.window_id, cursor.zone),
                "reconciled": cursor.kind == "reconciled",
            }
        reason: str | None = None
        if self.settings.kill_switch:
            state = "kill_switch"
        elif not self.settings.enabled:
            state = "disabled"
        else:
            state = "pending" if pending else "idle"
        if zone_mismatch(cursor, zone):
            state, reason = "blocked", ZONE_CHANGED
        elif cursor is not None and pending:
            stage = await self.ledger.stage(cursor.namespace, pending[0].window_id)
            if _stage_broken(stage):
                state, reason = "stalled", "stage_malformed"
        return {
            "zone": zone,
            "enabled": self.settings.enabled,
            "kill_switch": self.settings.kill_switch,
            "last_window": last,
            "pending_dates": [w.local_date.isoformat() for w in pending],
            "state": state,
            "reason": reason,
            "namespace": cursor.namespace if cursor else None,
            "cursor_zone": cursor.zone if cursor else None,
        }

    async def reconcile(self) -> dict[str, Any]:
        """The explicit operator action (see the module docstring)."""
        zone = self.settings.zone
        cursor = await self.ledger.cursor()
        if cursor is None:
            return {"reconciled": False, "reason": "no_cursor", "zone": zone}
        if cursor.zone != zone:
            reason = "timezone_changed"
        else:
            upcoming = next_window(cursor.end_utc, zone)
            stage = await self.ledger.stage(cursor.namespace, upcoming.window_id)
            if not _stage_broken(stage):
                return {"reconciled": False, "reason": "nothing_to_reconcile",
                        "zone": zone, "namespace": cursor.namespace}
            reason = "stage_malformed"
        now = self.store.now()
        new = await self.ledger.reconcile(zone=zone, now=now,
                                          expected_window_id=cursor.window_id)
        return {
            "reconciled": True,
            "reason": reason,
            "from_zone": cursor.zone,
            "zone": new.zone,
            "namespace": new.namespace,
            "anchor_end_utc": new.end_utc.isoformat(),
            "next_window": next_window(new.end_utc, zone).to_dict(),
        }


def _window_zone(window_id: str, default: str) -> str:
    """The zone named in a window id (`<date>@<zone>#<start>/<end>`)."""
    _, sep, rest = window_id.partition("@")
    zone = rest.partition("#")[0]
    return zone if sep and zone else default
