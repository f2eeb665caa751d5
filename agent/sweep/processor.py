"""`DailySweepProcessor`: once per completed local day, consolidate it into Long-Term.

One `run_batch()` is one run: at most `max_days_per_run` completed windows, oldest
first, each through these durable steps (each its own store transaction):

1. stage: the day's input goes to the extractor once (the rules, or one model call);
   the validated page and the model's raw output, with a digest, are stored in
   `sweep_stages` before anything is applied. A later retry re-reads the stage and
   never calls the model again. A day with nothing to look at stages an empty page
   without an extraction.
2. per candidate: claim the receipt (namespace, window_id, candidate digest), then
   write the memory and record the outcome on the receipt in one transaction, then
   complete the receipt. A claimed receipt whose write is recorded is only
   completed on recovery, one without is written: nothing lost, nothing doubled.
3. advance the cursor (compare-and-set) to the window, and delete the stages,
   receipts and attempts of windows more than `STAGE_RETENTION_DAYS` behind it.

A candidate that waits (`Candidate.after`: a day's diary lines wait until the day's
Temporary memories are about to leave) is left unclaimed in step 2; every run then
applies the waiting candidates of swept windows whose moment has come, through the
same receipts (`_apply_deferred`).

A missing or malformed stage leaves the day incomplete and the cursor where it is;
a stage of an older schema version is attested as an empty page and the cursor
advances. A zone different from the cursor's fails closed with
`timezone_changed_requires_reconciliation` until `reconcile()`. Disabled runs and
kill-switched runs return at once and write nothing at all.

The processor composes four parts with one job each: `SweepSchedule` (which
days are due), `DayStager` (step 1), `ReceiptApplier` (step 2) and
`SweepOperator` (`status()` and `reconcile()`); step 3 is its own. Its settings
are a `SweepSettings` (the `[sweep]` table), given whole or built from keyword
arguments; `bootstrap_days` and `retry_budget` are checked against their own
bounds here and in `WorkerSettings`.

Cancellation (a foreground start) lands between transactions: every step is
durable or not done, and the next run resumes from the ledger. `step_hook` is
called after each durable step with the step name ("staged", "claimed",
"written", "completed", "advanced"), for crash tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from companion_memory.agent.processor import BatchOutcome, ProcessorReport
from companion_memory.agent.sweep.day_input import InputLimits, SweepContext
from companion_memory.agent.sweep.extractor import SweepExtractor
from companion_memory.agent.sweep.proposals import SCHEMA_VERSION, Candidate, parse_until
from companion_memory.agent.sweep.receipts import ReceiptApplier
from companion_memory.agent.sweep.settings import SweepSettings
from companion_memory.agent.sweep.staging import RAW_OUTPUT_LIMIT_CHARS, DayStager
from companion_memory.agent.sweep.state import SweepOperator, SweepSchedule, zone_mismatch
from companion_memory.agent.sweep.windows import Window, local_midnight_utc
from companion_memory.agent.worker import WorkerSettings
from companion_memory.core.clock import Clock
from companion_memory.core.settings import SettingsError, check_setting
from companion_memory.memory import sweep_ledger as ledger
from companion_memory.memory.store import EMBED_AFTER_WRITE, MemoryStore
from companion_memory.memory.sweep_ledger import SweepLedger

__all__ = [
    "RAW_OUTPUT_LIMIT_CHARS", "DailySweepProcessor", "DayResult", "StepHook",
    "SweepExtractor",
]

StepHook = Callable[[str], None]
MAX_BOOTSTRAP_DAYS = 90


@dataclass(slots=True)
class DayResult:
    local_date: str
    status: str
    reason: str | None = None
    candidates: int = 0
    writes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"local_date": self.local_date, "status": self.status, "reason": self.reason,
                "candidates": self.candidates, "writes": self.writes}


class DailySweepProcessor:
    """See the module docstring."""

    name = "sweep"

    def __init__(
        self,
        context: SweepContext,
        store: MemoryStore,
        extractor: SweepExtractor,
        *,
        clock: Clock,
        settings: SweepSettings | None = None,
        bootstrap_days: int = 7,
        retry_budget: int = 3,
        limits: InputLimits | None = None,
        step_hook: StepHook | None = None,
        **fields: Any,
    ) -> None:
        """`fields` are `SweepSettings` fields (zone, enabled, max_candidates, ...): they
        build the settings, or replace those of `settings`."""
        settings = SweepSettings(**fields) if settings is None else replace(settings, **fields)
        if not isinstance(bootstrap_days, int) or isinstance(bootstrap_days, bool) or not (
                1 <= bootstrap_days <= MAX_BOOTSTRAP_DAYS):
            raise SettingsError("bootstrap_days", bootstrap_days,
                                f"from 1 to {MAX_BOOTSTRAP_DAYS}", problem="is out of range")
        check_setting(WorkerSettings, "retry_budget", retry_budget)
        self.settings = settings
        self.context = context
        self.store = store
        self.ledger = SweepLedger(store)
        self.clock = clock
        self.limits = limits or InputLimits()
        self._hook = step_hook
        self.schedule = SweepSchedule(context, store, clock=clock, zone=settings.zone,
                                      bootstrap_days=bootstrap_days, limits=self.limits)
        self.stager = DayStager(context, store, extractor, zone=settings.zone,
                                max_candidates=settings.max_candidates,
                                retry_budget=retry_budget, limits=self.limits)
        self.applier = ReceiptApplier(store, max_writes=settings.max_writes, step=self._step)
        self.operator = SweepOperator(store, self.schedule, settings)
        self._deferred_at: datetime | None = None
        """When the next waiting candidate is due (None: not known yet, read the stages)."""

    @property
    def zone(self) -> str:
        return self.settings.zone

    def _step(self, name: str) -> None:
        if self._hook is not None:
            self._hook(name)

    # -- what the operator sees ------------------------------------------------------

    async def pending_dates(self, *, limit: int = 31) -> list[Window]:
        """Completed windows not yet swept, oldest first (read only)."""
        return await self.schedule.pending_dates(limit=limit)

    async def status(self) -> dict[str, Any]:
        """Zone, switches, last completed window, pending dates, state and reason code."""
        return await self.operator.status()

    async def reconcile(self) -> dict[str, Any]:
        """The explicit operator action after a zone change or a malformed stage."""
        return await self.operator.reconcile()

    # -- the run ---------------------------------------------------------------------

    async def run_batch(self) -> BatchOutcome:
        started = time.perf_counter()
        report = ProcessorReport(processor=self.name)
        if self.settings.kill_switch or not self.settings.enabled:
            report.extra = {"state": "kill_switch" if self.settings.kill_switch else "disabled",
                            "dates": []}
            return BatchOutcome(report, backlog=False)
        results: list[DayResult] = []
        try:
            await self._run(report, results)
        finally:
            report.extra["dates"] = [r.to_dict() for r in results]
            report.elapsed_s = time.perf_counter() - started
        return BatchOutcome(report, backlog=False)

    async def _run(self, report: ProcessorReport, results: list[DayResult]) -> None:
        cursor = await self.ledger.cursor()
        if zone_mismatch(cursor, self.zone):
            report.error = "timezone_changed_requires_reconciliation"
            report.extra["state"] = "blocked"
            return
        windows = await self.schedule.due(cursor, limit=self.settings.max_days_per_run)
        for window in windows:
            result = await self._sweep_window(window, report)
            results.append(result)
            if result.status not in ("swept", "empty", "attested_empty"):
                break
            # before the next advance prunes older stages (a run that catches up on
            # weeks applies each day's waiting candidates while its stage is there)
            await self._apply_deferred(report)
        await self._apply_deferred(report)
        if report.applied:  # what the sweep wrote is found by meaning at once
            await self.store.index_vectors(max_rows=EMBED_AFTER_WRITE)
        pending = await self.schedule.pending_dates(limit=62)
        report.pending = len(pending)
        report.extra["state"] = "pending" if pending else "idle"
        if results and results[-1].status in ("incomplete", "stalled", "waiting"):
            report.extra["state"] = results[-1].status
            report.error = report.error or results[-1].reason

    async def _sweep_window(self, window: Window, report: ProcessorReport) -> DayResult:
        day = DayResult(window.local_date.isoformat(), "incomplete")
        cursor = await self.ledger.cursor()
        namespace = cursor.namespace if cursor else 1
        stage = await self.ledger.stage(namespace, window.window_id)
        if stage is None:
            if await self._notifications_pending(window):
                day.status, day.reason = "waiting", "notifications_pending"
                return day
            made = await self.stager.stage(window, namespace, cursor, report)
            if isinstance(made, str):
                day.reason = made
                return day
            stage = made
            self._step("staged")
        if stage.schema_version < SCHEMA_VERSION:
            await self._advance(window, namespace)
            day.status, day.reason = "attested_empty", "stage_schema_older"
            return day
        candidates = self._read_stage(stage)
        if candidates is None:
            day.status, day.reason = "stalled", "stage_malformed"
            return day
        day.candidates = len(candidates)
        report.proposals.update(c.action for c in candidates)
        day.writes = await self.applier.apply(window.window_id, namespace, candidates, report,
                                              day_start=window.start_utc)
        self._deferred_at = None  # a new stage may hold candidates that wait
        await self._advance(window, namespace)
        day.status = "swept" if candidates else "empty"
        return day

    async def _apply_deferred(self, report: ProcessorReport) -> None:
        """Apply the candidates of already swept windows whose moment has come (a day's
        diary lines, `Candidate.after`), through the same receipts; remembers when the
        next one is due so that most runs read no stage at all."""
        now = self.store.now()
        if self._deferred_at is not None and now < self._deferred_at:
            return
        cursor = await self.ledger.cursor()
        if cursor is None:
            self._deferred_at = datetime.max.replace(tzinfo=UTC)
            return
        first = cursor.local_date - timedelta(days=ledger.STAGE_RETENTION_DAYS)
        stages = await self.ledger.stages_since(first)
        upcoming: list[datetime] = []
        applied = 0
        for stage in stages:
            if stage.local_date > cursor.local_date:
                continue  # not swept yet: its run applies it
            waiting = [c for c in self._read_stage(stage) or [] if c.after is not None]
            due = [c for c in waiting if c.due(now)]
            upcoming.extend(at for c in waiting if not c.due(now)
                            if (at := parse_until(c.after)) is not None)
            if due:
                before = report.applied
                await self.applier.apply(
                    stage.window_id, stage.namespace, due, report,
                    day_start=local_midnight_utc(stage.local_date, self.zone))
                applied += report.applied - before
        if applied:
            report.extra["deferred_applied"] = applied
        self._deferred_at = min(upcoming, default=datetime.max.replace(tzinfo=UTC))

    async def _notifications_pending(self, window: Window) -> bool:
        """The day is not ready while notifications received in it still wait."""
        pending = await self.context.read_pending(limit=1)
        return bool(pending) and pending[0].received_at < window.end_utc

    @staticmethod
    def _read_stage(stage: ledger.Stage) -> list[Candidate] | None:
        if stage.schema_version != SCHEMA_VERSION or not stage.intact:
            return None
        try:
            page = orjson.loads(stage.output)
            return [Candidate.from_dict(c) for c in page["candidates"]]
        except (ValueError, KeyError, TypeError):
            return None

    async def _advance(self, window: Window, namespace: int) -> None:
        new = ledger.SweepCursor(self.zone, window.local_date, window.start_utc,
                                 window.end_utc, window.window_id, namespace, "swept",
                                 self.store.now())
        await self.ledger.advance(new, prune_before=window.local_date
                                  - timedelta(days=ledger.STAGE_RETENTION_DAYS))
        self._step("advanced")
