"""`EpisodeProcessor`: completed episodes -> one model call per batch -> Device Memory.

One `run_batch()`:
1. registers traces found under `<root>/episodes/` in the ledger (`pending`);
   the first batch of a process also recovers the ledger (`ledger.recover`);
2. applies staged proposals first (`proposed` rows; no model call);
3. otherwise takes at most `batch_size` eligible episodes (ineligible or
   unreadable traces become `ignored` with a reason), marks them `processing`,
   recalls related Device Memory for each, and asks the extractor once for the batch
   (the rules, or one model call: `agent.episodes.extractor`);
4. validates every answered item on its own (`proposals.validate_answer`) and,
   in one transaction, stages each clean episode's proposal (`proposed`) and
   sends each episode with a rejected item (or no item) to `retry`;
5. applies each staged episode in its own transaction together with its ledger
   transition to `done`; a write that fails (stale revision, rejected text)
   sends only that episode to `retry`.

Retries back off by `retry_backoff` and end in `ignored` after `retry_budget`
failed attempts, counted in the one work ledger (`memory.work_ledger`, scenario
`episodes`). Every ledger step is one typed operation of `EpisodeLedger`, one
transaction. A missing model or exhausted budget releases the batch without
charging an attempt and reports the error code.

Cancellation (a foreground start): at any await the durable state is a ledger
state; rows left `processing` are taken first by the next batch (not charged
in this process; charged once as `interrupted` if the process restarts).
Logs carry episode ids, counts and codes only, never episode or memory text.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Iterable
from datetime import date, timedelta
from typing import Any

from companion_memory.agent.episodes.extractor import EpisodeBatch, EpisodeExtractor
from companion_memory.agent.episodes.model import Episode, EpisodeError
from companion_memory.agent.episodes.proposals import (
    intents_for,
    related_query,
    staged_json,
)
from companion_memory.agent.episodes.recorder import EpisodeRecorder, TraceRef
from companion_memory.agent.episodes.settings import EpisodesSettings
from companion_memory.agent.model.provider import (
    BudgetExhaustedError,
    ModelError,
    ModelUnavailableError,
)
from companion_memory.agent.processor import BatchOutcome, ProcessorReport
from companion_memory.agent.worker import WorkerSettings
from companion_memory.core.clock import Clock
from companion_memory.core.settings import check_setting
from companion_memory.memory import episode_ledger as ledger
from companion_memory.memory.episode_ledger import EpisodeLedger, EpisodeState, RetryPlan
from companion_memory.memory.records import MemoryRecord, Tier
from companion_memory.memory.store import MemoryStore
from companion_memory.storage.fs import StorageIOError

Transition = Callable[[str], None]
"""Observer called after each committed ledger transition with its label:
"registered", "ignored", "processing", "proposed", "retry", "applied"."""


TRACE_UNREADABLE = "trace_unreadable"

class EpisodeProcessor:
    """Turns recorded episodes into Device Memory; see the module docstring."""

    name = "episodes"

    def __init__(
        self,
        recorder: EpisodeRecorder,
        store: MemoryStore,
        extractor: EpisodeExtractor,
        *,
        clock: Clock,
        batch_size: int = 5,
        retry_budget: int = 3,
        related_limit: int = 3,
        retry_backoff: timedelta = timedelta(minutes=5),
        on_transition: Transition | None = None,
        logger: logging.Logger | None = None,
        settings: EpisodesSettings | None = None,
    ) -> None:
        if settings is not None:  # checked when it was built
            batch_size = settings.batch_size
        # Loose values get the bounds of the settings fields they stand for.
        batch_size = check_setting(EpisodesSettings, "batch_size", batch_size)
        retry_budget = check_setting(WorkerSettings, "retry_budget", retry_budget)
        related_limit = check_setting(WorkerSettings, "related_limit", related_limit)
        self._recorder = recorder
        self._store = store
        self._ledger = EpisodeLedger(store)
        self._extractor = extractor
        self._clock = clock
        self._batch_size = batch_size
        self._retry_budget = retry_budget
        self._related_limit = related_limit
        self._backoff = retry_backoff
        self._on_transition = on_transition
        self._log = logger or logging.getLogger("companion_memory.episodes")
        self._recovered = False
        self._scanned_day: str | None = None

    # -- public ------------------------------------------------------------------------

    async def run_batch(self) -> BatchOutcome:
        report = ProcessorReport(processor=self.name)
        started = self._clock.monotonic()
        try:
            await self._prepare(report)
            staged = await self._ledger.proposed(self._batch_size)
            if staged:
                for row in staged:
                    await self._apply(row, report)
            else:
                await self._process_new(report)
        finally:
            report.elapsed_s = self._clock.monotonic() - started
        report.batches = 1
        report.pending = await self.pending_count()
        backlog = report.pending > 0 and report.error is None
        return BatchOutcome(report=report, backlog=backlog)

    async def pending_count(self) -> int:
        """Episodes a batch could take now (including interrupted and staged ones)."""
        now = self._clock.now()
        return await self._ledger.due_count(now)

    async def status(self) -> dict[str, Any]:
        """Ledger rows per state (counts only)."""
        return {"ledger": await self._ledger.counts()}

    async def ledger_row(self, episode_id: str) -> ledger.LedgerRow | None:
        return await self._ledger.get(episode_id)

    # -- steps -------------------------------------------------------------------------

    def _emit(self, label: str) -> None:
        if self._on_transition is not None:
            self._on_transition(label)

    async def _prepare(self, report: ProcessorReport) -> None:
        now = self._clock.now()
        if not self._recovered:
            outcome = await self._ledger.recover(now, self._retry_budget)
            self._recovered = True
            if outcome["interrupted"] or outcome["exhausted"] or outcome["proposed"]:
                self._log.info("episodes ledger recovered: %s", outcome)
                report.extra["recovered"] = outcome["interrupted"] + outcome["proposed"]
        since = self._scanned_day
        refs = await asyncio.to_thread(self._recorder.scan, since)
        if refs:
            entries = [(r.day, r.episode_id) for r in refs]
            added = await self._ledger.register(entries, now)
            if added:
                report.consumed += added
                self._emit("registered")
            self._scanned_day = self._rescan_from(refs)

    @staticmethod
    def _rescan_from(refs: Iterable[TraceRef]) -> str:
        """Later batches rescan from the day before the newest day seen (late writers)."""
        newest = max(date.fromisoformat(r.day) for r in refs)
        return (newest - timedelta(days=1)).isoformat()

    async def _select(self, report: ProcessorReport) -> dict[str, tuple[Episode, str]]:
        """Up to batch_size eligible episodes; ineligible or missing ones become ignored,
        and a trace that exists but cannot be read now is left pending for a later batch
        (it does not hold up the others)."""
        chosen: dict[str, tuple[Episode, str]] = {}
        deferred: set[str] = set()
        while len(chosen) < self._batch_size:
            limit = self._batch_size + len(chosen) + len(deferred)
            rows = await self._ledger.candidates(self._clock.now(), limit)
            fresh = [r for r in rows if r.episode_id not in chosen and r.episode_id not in deferred]
            if not fresh:
                break
            for row in fresh[: self._batch_size - len(chosen)]:
                episode, reason = await asyncio.to_thread(self._load, row)
                if episode is not None and reason is None:
                    chosen[row.episode_id] = (episode, episode.digest())
                    continue
                if reason == TRACE_UNREADABLE:
                    deferred.add(row.episode_id)
                    report.extra["deferred_unreadable"] = len(deferred)
                    self._log.warning("episode %s trace unreadable; left pending", row.episode_id)
                    continue
                code = reason or "ineligible"
                await self._ledger.mark_ignored(row.episode_id, code, self._clock.now())
                report.filtered[code] += 1
                self._log.info("episode %s ignored: %s", row.episode_id, code)
                self._emit("ignored")
        return chosen

    def _load(self, row: ledger.LedgerRow) -> tuple[Episode | None, str | None]:
        path = self._recorder.path_for(row.day, row.episode_id)
        try:
            episode = self._recorder.load_path(path)
        except EpisodeError as err:
            return None, f"trace_invalid:{err.code}"
        except StorageIOError:
            if not self._recorder.exists(path):
                return None, "trace_missing"
            return None, TRACE_UNREADABLE  # transient: left pending, never ignored
        if episode.episode_id != row.episode_id:
            return None, "trace_id_mismatch"
        return episode, episode.ineligible_reason()

    async def _related(self, batch: dict[str, Episode]) -> dict[str, MemoryRecord]:
        related: dict[str, MemoryRecord] = {}
        if self._related_limit == 0:
            return related
        for episode in batch.values():
            query = related_query(episode)
            for record in await self._store.related(
                query, limit=self._related_limit, tiers=(Tier.DEVICE,)
            ):
                related.setdefault(record.memory_id, record)
        return related

    async def _process_new(self, report: ProcessorReport) -> None:
        selected = await self._select(report)
        if not selected:
            return
        batch = {eid: ep for eid, (ep, _) in selected.items()}
        digests = {eid: d for eid, (_, d) in selected.items()}
        ids = list(batch)
        batch_id = uuid.uuid4().hex
        now = self._clock.now()
        await self._ledger.mark_processing(ids, batch_id, digests, now)
        self._emit("processing")
        report.analyzed += len(ids)
        related = await self._related(batch)
        rejections = await self._store.recent_rejections()
        try:
            extraction = await self._extractor.extract(
                EpisodeBatch(batch, related, tuple(rejections)))
        except (ModelUnavailableError, BudgetExhaustedError) as err:
            await self._ledger.release(ids, self._clock.now())
            report.error = err.code
            self._log.warning("episodes model call not made: %s", err.code)
            return
        except ModelError as err:
            report.model_calls += 1
            report.error = err.code
            await self._fail_all(ids, err.code, report)
            return
        extraction.usage.add_to(report)
        if extraction.failure is not None:
            await self._fail_all(ids, extraction.failure, report)
            return
        result = extraction.result
        for code in result.stray:
            report.rejected[code] += 1
        report.proposals["ignore"] += result.ignored_items
        staged: dict[str, str] = {}
        failed: dict[str, str] = {}
        for eid in ids:
            reason = result.failed(eid)
            for code in result.rejected.get(eid, []):
                report.rejected[code] += 1
            if reason is not None:
                failed[eid] = reason
                continue
            items = []
            for item in result.staged[eid]:
                if await self._store.is_rejected(item["text"]):
                    report.rejected["rejected_by_owner"] += 1
                    continue
                report.proposals[item["action"]] += 1
                items.append(item)
            staged[eid] = staged_json(eid, items)
        states = await self._ledger.stage_batch(staged, failed, self._clock.now(),
                                                self._retry_plan())
        for eid, state in states.items():
            self._note_retry(eid, state, failed[eid], report)
        if staged:
            self._emit("proposed")
        if failed:
            self._emit("retry")
        for eid in staged:
            row = await self.ledger_row(eid)
            if row is not None and row.state is EpisodeState.PROPOSED:
                await self._apply(row, report)

    def _retry_plan(self) -> RetryPlan:
        now = self._clock.now()
        return RetryPlan(now, now + self._backoff, self._retry_budget)

    def _note_retry(self, eid: str, state: EpisodeState, reason: str,
                    report: ProcessorReport) -> None:
        """Count and log one committed failure (`retry`, or `ignored` past the budget)."""
        report.extra[f"episodes_{state.value}"] = report.extra.get(
            f"episodes_{state.value}", 0) + 1
        if state is EpisodeState.IGNORED:
            report.gaps += 1
        self._log.info("episode %s -> %s (%s)", eid, state.value, reason)

    async def _fail_all(self, ids: list[str], reason: str, report: ProcessorReport) -> None:
        states = await self._ledger.stage_batch({}, dict.fromkeys(ids, reason),
                                                self._clock.now(), self._retry_plan())
        for eid, state in states.items():
            self._note_retry(eid, state, reason, report)
        self._emit("retry")

    async def _apply(self, row: ledger.LedgerRow, report: ProcessorReport) -> None:
        """Apply one staged proposal and mark it done, in one transaction."""
        proposal = row.proposal()
        intents = intents_for(proposal)
        done = await self._ledger.apply_proposal(
            row.episode_id, row.proposal_digest or "", intents, now=self._store.now(),
            retry=self._retry_plan())
        if done.outcome == "retry" and done.error is not None and done.state is not None:
            report.rejected[done.error] += 1
            self._note_retry(row.episode_id, done.state, done.error, report)
        elif done.outcome == "applied":
            report.applied += len(done.written)
            report.extra["episodes_done"] = report.extra.get("episodes_done", 0) + 1
        if done.outcome != "skipped":
            self._emit(done.outcome)
