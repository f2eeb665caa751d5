"""`DailySweepProcessor`: once per completed local day, consolidate it into Long-Term.

One `run_batch()` is one run: at most `max_days_per_run` completed windows, oldest
first, each through these durable steps (each its own store transaction):

1. stage: the day's input goes to the model once; the validated page and the raw
   output, with a digest, are stored in `sweep_stages` before anything is applied.
   A later retry re-reads the stage and never calls the model again. A day with
   nothing to look at stages an empty page without a model call.
2. per candidate: claim the receipt (namespace, window_id, candidate digest), then
   write the memory and record the outcome on the receipt in one transaction, then
   complete the receipt. A claimed receipt whose write is recorded is only
   completed on recovery, one without is written: nothing lost, nothing doubled.
3. advance the cursor (compare-and-set) to the window.

A missing or malformed stage leaves the day incomplete and the cursor where it is;
a stage of an older schema version is attested as an empty page and the cursor
advances. A zone different from the cursor's fails closed with
`timezone_changed_requires_reconciliation` until `reconcile()`. Disabled runs and
kill-switched runs return at once and write nothing at all.

Cancellation (a foreground start) lands between transactions: every step is
durable or not done, and the next run resumes from the ledger. `step_hook` is
called after each durable step with the step name ("staged", "claimed",
"written", "completed", "advanced"), for crash tests.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any, Protocol

import orjson

from companion_memory.agent.model.provider import ModelError
from companion_memory.agent.processor import BatchOutcome, ProcessorReport
from companion_memory.agent.sweep import apply as sweep_apply
from companion_memory.agent.sweep.day_input import InputLimits, SweepContext, gather_day
from companion_memory.agent.sweep.proposals import (
    SCHEMA_VERSION,
    SWEEP_SCHEMA,
    SYSTEM_PROMPT,
    Candidate,
    canonical,
    validate_page,
)
from companion_memory.agent.sweep.state import SweepStateMixin, zone_mismatch
from companion_memory.agent.sweep.windows import Window, completed_days, day_window, load_zone
from companion_memory.core.clock import Clock
from companion_memory.core.errors import InvalidInputError
from companion_memory.memory import sweep_ledger as ledger
from companion_memory.memory.store import MemoryStore

RAW_OUTPUT_LIMIT_CHARS = 16_384
StepHook = Callable[[str], None]


class SweepEngine(Protocol):
    """The part of `MemoryMergeEngine` the sweep calls."""

    async def extract(
        self, *, scenario: str, system: str, items: list[dict[str, Any]],
        related: list[dict[str, Any]], rejections: list[str], schema: dict[str, Any],
        payload: dict[str, Any],
    ) -> Any: ...


class SweepConfigError(InvalidInputError):
    code = "invalid_sweep_config"


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


class DailySweepProcessor(SweepStateMixin):
    """See the module docstring."""

    name = "sweep"

    def __init__(
        self,
        context: SweepContext,
        store: MemoryStore,
        engine: SweepEngine,
        *,
        clock: Clock,
        zone: str,
        enabled: bool = False,
        kill_switch: bool = False,
        max_days_per_run: int = 3,
        max_candidates: int = 32,
        max_writes: int = 16,
        bootstrap_days: int = 7,
        retry_budget: int = 3,
        limits: InputLimits | None = None,
        step_hook: StepHook | None = None,
    ) -> None:
        load_zone(zone)
        for label, value, top in (
            ("max_days_per_run", max_days_per_run, 31), ("max_candidates", max_candidates, 32),
            ("max_writes", max_writes, 16), ("bootstrap_days", bootstrap_days, 90),
            ("retry_budget", retry_budget, 100),
        ):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= top:
                raise SweepConfigError(f"{label} must be an integer from 1 to {top}")
        self.context = context
        self.store = store
        self.engine = engine
        self.clock = clock
        self.zone = zone
        self.enabled = bool(enabled)
        self.kill_switch = bool(kill_switch)
        self.max_days_per_run = max_days_per_run
        self.max_candidates = max_candidates
        self.max_writes = max_writes
        self.bootstrap_days = bootstrap_days
        self.retry_budget = retry_budget
        self.limits = limits or InputLimits()
        self._hook = step_hook
        self._claimant = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def _step(self, name: str) -> None:
        if self._hook is not None:
            self._hook(name)

    # -- the run ---------------------------------------------------------------------

    async def run_batch(self) -> BatchOutcome:
        started = time.perf_counter()
        report = ProcessorReport(processor=self.name)
        if self.kill_switch or not self.enabled:
            report.extra = {"state": "kill_switch" if self.kill_switch else "disabled",
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
        cursor = await self.store.read(ledger.read_cursor)
        if zone_mismatch(cursor, self.zone):
            report.error = "timezone_changed_requires_reconciliation"
            report.extra["state"] = "blocked"
            return
        now = self.clock.now()
        if cursor is not None:
            windows = completed_days(now, self.zone, after_end_utc=cursor.end_utc,
                                     limit=self.max_days_per_run)
        else:
            first = await self._bootstrap_date()
            if first is None:
                report.extra["state"] = "idle"
                return
            windows = completed_days(now, self.zone, first_date=first,
                                     limit=self.max_days_per_run)
        for window in windows:
            result = await self._sweep_window(window, report)
            results.append(result)
            if result.status not in ("swept", "empty", "attested_empty"):
                break
        pending = await self.pending_dates(limit=62)
        report.pending = len(pending)
        report.extra["state"] = "pending" if pending else "idle"
        if results and results[-1].status in ("incomplete", "stalled", "waiting"):
            report.extra["state"] = results[-1].status
            report.error = report.error or results[-1].reason

    async def _sweep_window(self, window: Window, report: ProcessorReport) -> DayResult:
        day = DayResult(window.local_date.isoformat(), "incomplete")
        cursor = await self.store.read(ledger.read_cursor)
        namespace = cursor.namespace if cursor else 1
        stage = await self.store.read(
            lambda c: ledger.read_stage(c, namespace, window.window_id)
        )
        if stage is None:
            if await self._notifications_pending(window):
                day.status, day.reason = "waiting", "notifications_pending"
                return day
            made = await self._make_stage(window, namespace, cursor, report)
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
        day.writes = await self._apply(window, namespace, candidates, report)
        await self._advance(window, namespace)
        day.status = "swept" if candidates else "empty"
        return day

    async def _notifications_pending(self, window: Window) -> bool:
        """The day is not ready while notifications received in it still wait."""
        pending = await self.context.read_pending(limit=1)
        return bool(pending) and pending[0].received_at < window.end_utc

    async def _make_stage(
        self, window: Window, namespace: int, cursor: ledger.SweepCursor | None,
        report: ProcessorReport,
    ) -> ledger.Stage | str:
        """Invoke the model once and stage its page; a reason code when nothing was staged."""
        day = await gather_day(self.context, self.store, window, limits=self.limits)
        report.filtered.update(day.filtered)
        report.consumed += day.records
        page: dict[str, Any] = {"schema": "sweep_stage", "window": window.to_dict()}
        if day.empty:
            page.update(source="empty_day", candidates=[], dropped={}, raw=None)
        else:
            rejections = await self.store.recent_rejections()
            try:
                raw = await self.engine.extract(
                    scenario="sweep", system=SYSTEM_PROMPT, items=day.items,
                    related=day.related, rejections=rejections, schema=SWEEP_SCHEMA,
                    payload=day.payload(),
                )
            except ModelError as err:
                return err.code
            report.model_calls += 1
            report.analyzed += len(day.items)
            report.prompt_tokens += raw.prompt_tokens
            report.completion_tokens += raw.completion_tokens
            checked = validate_page(raw.data, day.scope, max_candidates=self.max_candidates)
            error = raw.error or checked.error
            report.rejected.update(checked.dropped)
            if error is not None:
                now = self.store.now()
                attempts = await self.store.transaction(
                    lambda c: ledger.record_attempt(
                        c, namespace, window.window_id, error=error, now=now)
                )
                if attempts < self.retry_budget:
                    return error
                report.gaps += 1
                page.update(source="invalid_output", reason=error, candidates=[], dropped={})
            else:
                page.update(source="model", candidates=[c.to_dict() for c in checked.candidates],
                            dropped=dict(checked.dropped))
            page["raw"] = str(raw.text)[:RAW_OUTPUT_LIMIT_CHARS]
        output = canonical(page)
        stage = ledger.Stage(namespace, window.window_id, window.local_date, SCHEMA_VERSION,
                             output, ledger.digest_text(output), self.store.now())
        anchor = None
        if cursor is None:
            before = day_window(window.local_date - timedelta(days=1), self.zone)
            anchor = ledger.SweepCursor(
                self.zone, before.local_date, before.start_utc, window.start_utc,
                before.window_id, 1, "anchor", self.store.now())

        def put(conn: Any) -> ledger.Stage:
            if anchor is not None and ledger.read_cursor(conn) is None:
                ledger.write_cursor(conn, anchor, expected_window_id=None)
            return ledger.put_stage(conn, stage)

        return await self.store.transaction(put)

    @staticmethod
    def _read_stage(stage: ledger.Stage) -> list[Candidate] | None:
        if stage.schema_version != SCHEMA_VERSION or not stage.intact:
            return None
        try:
            page = orjson.loads(stage.output)
            return [Candidate.from_dict(c) for c in page["candidates"]]
        except (ValueError, KeyError, TypeError):
            return None

    async def _apply(
        self, window: Window, namespace: int, candidates: list[Candidate],
        report: ProcessorReport,
    ) -> int:
        receipts = await self.store.read(
            lambda c: ledger.list_receipts(c, namespace, window.window_id)
        )
        by_digest = {r.key.candidate_digest: r for r in receipts}
        writes = sum(1 for r in receipts if r.outcome in sweep_apply.WRITE_OUTCOMES)
        temporary_ttl, long_term_ttl = self.store.ttls
        for candidate in candidates:
            key = ledger.ReceiptKey(namespace, window.window_id, candidate.digest)
            receipt = by_digest.get(candidate.digest)
            if receipt is not None and receipt.state == "committed":
                continue
            if receipt is None:
                if writes >= self.max_writes:
                    report.rejected["write_limit"] += 1
                    continue
                receipt = await self.store.transaction(
                    partial(ledger.claim_receipt, key=key, claimant=self._claimant,
                            memory_id=None, now=self.store.now())
                )
                self._step("claimed")
            if not receipt.applied:
                ctx = sweep_apply.WriteContext(self.store.now(), temporary_ttl, long_term_ttl)
                outcome = await self.store.transaction(
                    partial(sweep_apply.write_candidate, candidate=candidate, key=key, ctx=ctx)
                )
                self._step("written")
                report.proposals[f"outcome_{outcome}"] += 1
                if outcome in sweep_apply.WRITE_OUTCOMES:
                    writes += 1
                    report.applied += 1
            await self.store.transaction(
                partial(ledger.complete_receipt, key=key, now=self.store.now())
            )
            self._step("completed")
        return writes

    async def _advance(self, window: Window, namespace: int) -> None:
        now = self.store.now()

        def move(conn: Any) -> None:
            current = ledger.read_cursor(conn)
            if current is None or current.end_utc != window.start_utc:
                raise ledger.SweepCursorConflictError(
                    "the sweep cursor does not end where this window starts; nothing advanced"
                )
            new = ledger.SweepCursor(self.zone, window.local_date, window.start_utc,
                                     window.end_utc, window.window_id, namespace, "swept", now)
            ledger.write_cursor(conn, new, expected_window_id=current.window_id)

        await self.store.transaction(move)
        self._step("advanced")
