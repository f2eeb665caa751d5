"""`DayStager`: one model call for one window, validated and staged before anything is applied.

The day's input goes to the model once; the validated page and the raw output,
with a digest, are stored in `sweep_stages` in one transaction (with the
bootstrap anchor cursor when there is no cursor yet). A day with nothing to look
at stages an empty page without a model call. An invalid answer is recorded as
an attempt in the one work ledger (scenario `sweep`, `work_ledger.sweep_key`) and
nothing is staged until the retry budget is spent (the ledger marks the window
poisoned); then an empty `invalid_output` page is staged and counted as a gap.
A day whose input is longer than the model's prompt allows (`prompt_too_long`: the
same day never fits) is consolidated by the rules instead (`sweep_fallback`, page
source `rules_prompt_too_long`), so a small model never holds the sweep on one long day.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Protocol

from companion_memory.agent.model.provider import ModelError
from companion_memory.agent.processor import ProcessorReport
from companion_memory.agent.sweep.day_input import InputLimits, SweepContext, gather_day
from companion_memory.agent.sweep.fallback import sweep_fallback
from companion_memory.agent.sweep.proposals import (
    SCHEMA_VERSION,
    SWEEP_SCHEMA,
    SYSTEM_PROMPT,
    canonical,
    validate_page,
)
from companion_memory.agent.sweep.windows import Window, day_window
from companion_memory.memory import sweep_ledger as ledger
from companion_memory.memory.store import MemoryStore
from companion_memory.memory.work_ledger import Scenario, sweep_key

RAW_OUTPUT_LIMIT_CHARS = 16_384


PROMPT_TOO_LONG = "prompt_too_long"
"""The model's code for an input longer than its prompt allows (llama_engine)."""


class SweepEngine(Protocol):
    """The part of `MemoryMergeEngine` the sweep calls."""

    async def extract(
        self, *, scenario: str, system: str, items: list[dict[str, Any]],
        related: list[dict[str, Any]], rejections: list[str], schema: dict[str, Any],
        payload: dict[str, Any],
    ) -> Any: ...


class DayStager:
    """Stages one window's page; see the module docstring."""

    def __init__(self, context: SweepContext, store: MemoryStore, engine: SweepEngine, *,
                 zone: str, max_candidates: int, retry_budget: int,
                 limits: InputLimits) -> None:
        self.context = context
        self.store = store
        self.engine = engine
        self.zone = zone
        self.max_candidates = max_candidates
        self.retry_budget = retry_budget
        self.limits = limits

    async def stage(
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
            raw: Any = None
            try:
                raw = await self.engine.extract(
                    scenario="sweep", system=SYSTEM_PROMPT, items=day.items,
                    related=day.related, rejections=rejections, schema=SWEEP_SCHEMA,
                    payload=day.payload(),
                )
            except ModelError as err:
                if err.code != PROMPT_TOO_LONG:
                    return err.code
                raw = None  # this day never fits this model: the rules consolidate it
            if raw is None:
                checked = validate_page(sweep_fallback(day.payload()), day.scope,
                                        max_candidates=self.max_candidates)
                report.extra["rules_for_long_days"] = \
                    report.extra.get("rules_for_long_days", 0) + 1
                page.update(source="rules_prompt_too_long",
                            candidates=[c.to_dict() for c in checked.candidates],
                            dropped=dict(checked.dropped), raw=None)
                return await self._stage(page, window, namespace, cursor)
            report.model_calls += 1
            report.analyzed += len(day.items)
            report.prompt_tokens += raw.prompt_tokens
            report.model_s += raw.model_s
            report.completion_tokens += raw.completion_tokens
            checked = validate_page(raw.data, day.scope, max_candidates=self.max_candidates)
            error = raw.error or checked.error
            report.rejected.update(checked.dropped)
            if error is not None:
                failure = await self.store.record_work_failure(
                    Scenario.SWEEP, sweep_key(namespace, window.window_id), error,
                    budget=self.retry_budget)
                if not failure.poisoned:
                    return error
                report.gaps += 1
                page.update(source="invalid_output", reason=error, candidates=[], dropped={})
            else:
                page.update(source="model", candidates=[c.to_dict() for c in checked.candidates],
                            dropped=dict(checked.dropped))
            page["raw"] = str(raw.text)[:RAW_OUTPUT_LIMIT_CHARS]
        return await self._stage(page, window, namespace, cursor)

    async def _stage(self, page: dict[str, Any], window: Window, namespace: int,
                     cursor: ledger.SweepCursor | None) -> ledger.Stage:
        """Store the day's page (and the bootstrap anchor cursor when there is none)."""
        output = canonical(page)
        stage = ledger.Stage(namespace, window.window_id, window.local_date, SCHEMA_VERSION,
                             output, ledger.digest_text(output), self.store.now())
        anchor = None
        if cursor is None:
            before = day_window(window.local_date - timedelta(days=1), self.zone)
            anchor = ledger.SweepCursor(
                self.zone, before.local_date, before.start_utc, window.start_utc,
                before.window_id, 1, "anchor", self.store.now())
        return await ledger.SweepLedger(self.store).put_stage(stage, anchor=anchor)
