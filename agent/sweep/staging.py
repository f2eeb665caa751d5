"""`DayStager`: one extraction for one window, validated and staged before anything is applied.

The day's input goes to the extractor once (the rules, or one model call:
`agent.sweep.extractor`); the validated page and the model's raw output, with a digest,
are stored in `sweep_stages` in one transaction (with the bootstrap anchor cursor when
there is no cursor yet). A day with nothing to look at stages an empty page without an
extraction. A model's invalid answer (a page that does not parse, or an answer the
provider refuses: `model_output_invalid`, `model_timeout`) is recorded as an attempt in
the one work ledger (scenario `sweep`, `work_ledger.sweep_key`) and nothing is staged
until the retry budget is spent (the ledger marks the window poisoned); then the rules
consolidate the day instead (page source `rules_model_invalid`, the model's last answer
kept as `raw`), so a day the model cannot answer still gets its lines. A day whose input
is longer than the model's prompt allows (`prompt_too_long`: the same day never fits) is
consolidated by the rules at once (page source `rules_prompt_too_long`), so a small model
never holds the sweep on one long day.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from companion_memory.agent.extraction import MODEL
from companion_memory.agent.model.provider import ModelError, ModelOutputError, ModelTimeoutError
from companion_memory.agent.processor import ProcessorReport
from companion_memory.agent.sweep.day_input import InputLimits, SweepContext, gather_day
from companion_memory.agent.sweep.extractor import (
    RulesSweepExtractor,
    SweepDay,
    SweepExtraction,
    SweepExtractor,
)
from companion_memory.agent.sweep.proposals import SCHEMA_VERSION, PageResult, canonical
from companion_memory.agent.sweep.windows import Window, day_window
from companion_memory.memory import sweep_ledger as ledger
from companion_memory.memory.store import MemoryStore
from companion_memory.memory.work_ledger import Scenario, sweep_key

RAW_OUTPUT_LIMIT_CHARS = 16_384


PROMPT_TOO_LONG = "prompt_too_long"
"""The model's code for an input longer than its prompt allows (llama_engine)."""
ANSWER_FAILURES = (ModelOutputError.code, ModelTimeoutError.code)
"""Provider errors about the model's answer for this day (cut short, not the schema, past
the deadline): counted as attempts like an invalid page. Decoding is greedy, so the same
day's input gets the same answer: uncounted, the day would be retried after every back-off
and never consolidated."""


class DayStager:
    """Stages one window's page; see the module docstring."""

    def __init__(self, context: SweepContext, store: MemoryStore, extractor: SweepExtractor,
                 *, zone: str, max_candidates: int, retry_budget: int,
                 limits: InputLimits) -> None:
        self.context = context
        self.store = store
        self.extractor = extractor
        self.rules = RulesSweepExtractor()
        self.zone = zone
        self.max_candidates = max_candidates
        self.retry_budget = retry_budget
        self.limits = limits

    async def stage(
        self, window: Window, namespace: int, cursor: ledger.SweepCursor | None,
        report: ProcessorReport,
    ) -> ledger.Stage | str:
        """Extract the day once and stage its page; a reason code when nothing was staged."""
        day = await gather_day(self.context, self.store, window, limits=self.limits)
        report.filtered.update(day.filtered)
        report.consumed += day.records
        page: dict[str, Any] = {"schema": "sweep_stage", "window": window.to_dict()}
        if day.empty:
            page.update(source="empty_day", candidates=[], dropped={}, raw=None)
            return await self._stage(page, window, namespace, cursor)
        rejections = await self.store.recent_rejections()
        batch = SweepDay(day, tuple(rejections), self.max_candidates)
        try:
            made = await self.extractor.extract(batch)
        except ModelError as err:
            if err.code == PROMPT_TOO_LONG:
                # this day never fits this model: the rules consolidate it
                made = await self.rules.extract(batch)
                report.extra["rules_for_long_days"] = \
                    report.extra.get("rules_for_long_days", 0) + 1
                _put_page(page, made, "rules_prompt_too_long")
                return await self._stage(page, window, namespace, cursor)
            if err.code not in ANSWER_FAILURES:
                return err.code
            # the provider refused the answer itself: an attempt like an invalid page
            made = SweepExtraction(PageResult(error=err.code), MODEL)
        else:
            made.usage.add_to(report)
            report.analyzed += len(day.items)
            report.rejected.update(made.page.dropped)
        error = made.failure
        if error is not None:
            failure = await self.store.record_work_failure(
                Scenario.SWEEP, sweep_key(namespace, window.window_id), error,
                budget=self.retry_budget)
            if not failure.poisoned:
                return error
            # the model's answer for this day stayed invalid: the rules consolidate it
            raw_text = made.raw_text
            made = await self.rules.extract(batch)
            made.raw_text = raw_text
            report.extra["rules_for_invalid_days"] = \
                report.extra.get("rules_for_invalid_days", 0) + 1
            page["reason"] = error
            _put_page(page, made, "rules_model_invalid")
        else:
            _put_page(page, made, made.source)
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


def _put_page(page: dict[str, Any], made: SweepExtraction, source: str) -> None:
    """The extraction's candidates, what was dropped, and the model's raw text (bounded)."""
    page.update(source=source, candidates=[c.to_dict() for c in made.page.candidates],
                dropped=dict(made.page.dropped),
                raw=None if made.raw_text is None else made.raw_text[:RAW_OUTPUT_LIMIT_CHARS])
