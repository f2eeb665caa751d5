"""`NotificationProcessor`: the notification scenario's whole flow, one batch per call.

consume the ring (unless intake is paused) -> `read_pending(<= batch_size)` ->
coalesce added/modified/removed events of one key -> deterministic noise and
secret filter -> related memories per remaining notification -> the extractor (the
rules, or a model: `agent.notifications.extractor`) -> validated proposals per context
id -> `MemoryIntent`s
with ids derived from (scenario, source context ids) -> `commit_processed`, which
applies the intents and advances the memory cursor in one store transaction
(with `StoreMemoryCursor`).

Failures leave the cursor in place. An invalid answer, a model output error or an
intent the store refuses counts an attempt (persisted in the store's one work ledger,
`memory.work_ledger`, scenario `notifications`, keyed by the batch's first context id);
after `retry_budget` attempts the ledger marks the batch poisoned, it becomes a
"poison_batch" gap and intake moves on. A missing model, an exhausted budget, and a
failure of the store or the disk itself (`StorageFailureError`: disk full, a malformed
database or index; any raw SQLite error) count no attempt: the work stays visibly
pending, the report carries the code, and nothing is skipped. Cancellation (a foreground
start) at any await commits nothing for the batch and counts no attempt.
Logs carry ids, counts and codes only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from companion_memory.agent.model.provider import (
    BudgetExhaustedError,
    ModelUnavailableError,
)
from companion_memory.agent.notification_log.log import NotificationContext
from companion_memory.agent.notification_log.types import (
    BatchNotContiguousError,
    NotificationRecord,
)
from companion_memory.agent.notifications.extractor import (
    NotificationBatch,
    NotificationExtractor,
    NotificationItem,
)
from companion_memory.agent.notifications.fallback import (
    app_label,
    is_personal,
    message_sender,
)
from companion_memory.agent.notifications.filters import NoiseFilter
from companion_memory.agent.notifications.noise_model import NoiseModel
from companion_memory.agent.notifications.proposals import ItemContext, Proposal
from companion_memory.agent.notifications.romanize import name_forms
from companion_memory.agent.notifications.settings import IntakeSettings
from companion_memory.agent.processor import BatchOutcome, ProcessorReport
from companion_memory.agent.worker import WorkerSettings
from companion_memory.ble.events import EventKind
from companion_memory.core.clock import Clock
from companion_memory.core.errors import (
    CompanionMemoryError,
    InvalidInputError,
    StorageFailureError,
)
from companion_memory.core.settings import check_setting
from companion_memory.memory.decisions import (
    DROPPED,
    KEPT,
    NotificationDecision,
)
from companion_memory.memory.records import (
    AUTHORITY_RANK,
    ORIGIN_LIMIT_CHARS,
    IntentOp,
    MemoryIntent,
    MemoryRecord,
    SecretInStatementError,
    SourceKind,
    SourceRef,
    refuse_secrets,
)
from companion_memory.memory.secrets import contains_secret
from companion_memory.memory.store import MemoryStore
from companion_memory.memory.work_ledger import Scenario, WorkAttempt, notification_key

SCENARIO = "notifications"
SOURCE_RETENTION = timedelta(days=14)
"""How long the notification log keeps a processed record at the Normal storage level: a
memory's copy of its sources' words (search-only detail) lives as long, and a Temporary
memory does not expire before it."""
QUERY_CHARS = 200
QUERY_WORDS = 12
"""How much of a notification's text is used to look up related memories."""

@dataclass(frozen=True, slots=True)
class _Item:
    record: NotificationRecord
    source_ids: tuple[int, ...]

    @property
    def context_id(self) -> int:
        return self.record.context_id


def derive_memory_id(source_ids: Sequence[int]) -> str:
    """A stable id from (scenario, source context ids): a retry creates the same id."""
    key = f"{SCENARIO}|{','.join(str(i) for i in sorted(source_ids))}".encode()
    return "n-" + hashlib.blake2b(key, digest_size=12).hexdigest()


def batch_receipt(batch: Sequence[NotificationRecord]) -> str:
    return f"{SCENARIO}:{batch[0].context_id}-{batch[-1].context_id}"


def coalesce(batch: Sequence[NotificationRecord]) -> tuple[list[_Item], int, int]:
    """Group events by notification key (first-seen order); the newest non-removed event
    carries the content. Returns (items, removed-only groups, events merged away)."""
    groups: dict[str, list[NotificationRecord]] = {}
    for record in batch:
        groups.setdefault(record.event.key, []).append(record)
    items: list[_Item] = []
    removed_only = 0
    merged = 0
    for records in groups.values():
        merged += len(records) - 1
        content = [r for r in records if r.event.kind is not EventKind.REMOVED]
        if not content:
            removed_only += 1
            continue
        items.append(_Item(content[-1], tuple(r.context_id for r in records)))
    return items, removed_only, merged


class NotificationProcessor:
    """The notification scenario for the `MemoryWorker` (see the module docstring)."""

    name = SCENARIO

    def __init__(
        self,
        context: NotificationContext,
        store: MemoryStore,
        extractor: NotificationExtractor,
        *,
        clock: Clock,
        batch_size: int = 10,
        consume_limit: int = 100,
        retry_budget: int = 3,
        related_limit: int = 3,
        noise_filter: NoiseFilter | None = None,
        noise_model: NoiseModel | None = None,
        logger: logging.Logger | None = None,
        source_retention: timedelta = SOURCE_RETENTION,
        zone: tzinfo = UTC,
        settings: IntakeSettings | None = None,
    ) -> None:
        if settings is not None:  # checked when it was built
            batch_size, consume_limit = settings.batch_size, settings.consume_limit
        # Loose values get the bounds of the settings fields they stand for.
        batch_size = check_setting(IntakeSettings, "batch_size", batch_size)
        consume_limit = check_setting(IntakeSettings, "consume_limit", consume_limit)
        retry_budget = check_setting(WorkerSettings, "retry_budget", retry_budget)
        related_limit = check_setting(WorkerSettings, "related_limit", related_limit)
        self._context = context
        self._store = store
        self._extractor = extractor
        self._clock = clock
        self._batch_size = batch_size
        self._consume_limit = consume_limit
        self._retry_budget = retry_budget
        self._related_limit = related_limit
        self._filter = noise_filter or NoiseFilter()
        self._noise_model = noise_model if noise_model is not None and noise_model.usable \
            else None
        if not isinstance(source_retention, timedelta) or source_retention <= timedelta(0):
            raise InvalidInputError("source_retention must be a positive timedelta")
        self._source_retention = source_retention
        self._zone = zone
        self._log = logger or logging.getLogger("companion_memory.notifications")
        self._attempts_dirty = True  # unknown until checked once
        self._outcomes: dict[int, tuple[str, str | None, tuple[str, ...]]] = {}
        """What the batch in hand decided per item (context id of its newest event)."""

    # -- the batch -----------------------------------------------------------------------

    async def run_batch(self) -> BatchOutcome:
        """Process at most one batch; see the module docstring for failure and cancellation."""
        started = self._clock.monotonic()
        report = ProcessorReport(self.name)
        consumed = await self._context.consume(self._consume_limit)
        report.consumed = consumed.persisted
        if consumed.lost:
            report.gaps += 1
        if consumed.paused:
            report.extra["intake_paused"] = 1
        ring_backlog = not consumed.paused and consumed.persisted >= self._consume_limit
        batch = await self._context.read_pending(self._batch_size)
        if batch:
            report.batches = 1
            await self._process(batch, report)
        report.pending = await self._context.pending_count()
        report.elapsed_s = self._clock.monotonic() - started
        backlog = report.error is None and (report.pending > 0 or ring_backlog)
        return BatchOutcome(report, backlog=backlog)

    async def _drop_by_meaning(self, kept: list[_Item], report: ProcessorReport) -> list[_Item]:
        """`kept` without what the noise classifier calls noise (reason `noise_model`)."""
        model = self._noise_model
        assert model is not None
        scores = await asyncio.to_thread(model.noise, [item.record.event for item in kept])
        out = []
        for item, score in zip(kept, scores, strict=True):
            if score >= model.threshold_for(item.record.event.category):
                report.filtered["noise_model"] += 1
                self._outcomes[item.context_id] = (DROPPED, "noise_model", ())
            else:
                out.append(item)
        return out

    async def _process(self, batch: list[NotificationRecord], report: ProcessorReport) -> None:
        first, last = batch[0].context_id, batch[-1].context_id
        items, removed_only, merged = coalesce(batch)
        if removed_only:
            report.filtered["removed"] += removed_only
        if merged:
            report.extra["coalesced"] = merged
        self._outcomes = outcomes = {}
        for item in items:
            outcomes[item.context_id] = (DROPPED, "no_proposal", ())
        kept: list[_Item] = []
        for item in items:
            triage = self._filter.triage(item.record.event)
            if triage.reason is not None:
                report.filtered[triage.reason] += 1
                outcomes[item.context_id] = (DROPPED, triage.reason, ())
                continue
            if triage.redacted is not None:
                report.extra["redacted_secrets"] = report.extra.get("redacted_secrets", 0) + 1
                item = _Item(dataclasses.replace(item.record, event=triage.event),
                             item.source_ids)
            kept.append(item)
        if kept and self._noise_model is not None:
            kept = await self._drop_by_meaning(kept, report)
        report.analyzed = len(kept)
        outcome = "committed"
        try:
            intents = await self._extract(kept, report) if kept else []
            if intents is None:
                outcome = "invalid_proposal"
                await self._fail(batch, "invalid_proposal", report)
            else:
                await self._context.commit_processed(batch, intents, batch_receipt(batch))
                report.applied = len(intents)
                await self._clear_attempts(last)
                await self._decide(batch, items)
        except (ModelUnavailableError, BudgetExhaustedError) as exc:
            outcome = report.error = exc.code  # no attempt: visible pending work
        except BatchNotContiguousError as exc:
            outcome = report.error = exc.code
        except (StorageFailureError, sqlite3.Error) as exc:
            # The store or the disk failed, not this batch: retrying it cannot help and a
            # gap would lose it from memory for good. The batch stays pending, no attempt
            # is counted, and the worker backs the processor off; status shows the code.
            outcome = report.error = exc.code if isinstance(exc, CompanionMemoryError) \
                else f"store_{type(exc).__name__}"[:64]
            report.extra["store_failures"] = 1
        except Exception as exc:  # model output/timeout, invalid intents, unexpected errors
            outcome = exc.code if isinstance(exc, CompanionMemoryError) else \
                f"unexpected_{type(exc).__name__}"[:64]
            await self._fail(batch, outcome, report)
        self._log.info(
            "notifications batch first=%d last=%d records=%d analyzed=%d filtered=%d "
            "intents=%d model_calls=%d outcome=%s",
            first, last, len(batch), report.analyzed, sum(report.filtered.values()),
            report.applied, report.model_calls, outcome,
        )

    async def _extract(
        self, kept: list[_Item], report: ProcessorReport
    ) -> list[MemoryIntent] | None:
        """Related recall, the extractor's proposals, intents (None: the answer as a whole
        is unusable)."""
        # one store-thread job for the whole batch: related memories (rarest terms of each
        # query), the owner's recent rejections and the memory each notification already
        # has (by subject: a `modified` event updates it), from one snapshot
        context = await self._store.batch_context(
            [_query(item) for item in kept] if self._related_limit else ["" for _ in kept],
            limit=max(1, self._related_limit),
            subjects=[notification_subject(item.record) for item in kept],
        )
        items: list[NotificationItem] = []
        own: dict[int, MemoryRecord] = {}
        for item, records in zip(kept, context.related, strict=True):
            mine = context.by_subject.get(notification_subject(item.record))
            chosen = {r.memory_id: r for r in records}
            if mine is not None:
                own[item.context_id] = mine
                chosen = {mine.memory_id: mine, **chosen}
            items.append(NotificationItem(item.context_id, item.source_ids, item.record.event,
                                          chosen, mine))
        extraction = await self._extractor.extract(
            NotificationBatch(tuple(items), tuple(context.recent_rejections), self._zone))
        extraction.usage.add_to(report)
        report.proposals.update(extraction.proposals)
        report.rejected.update(extraction.rejected)
        for key, count in extraction.extra.items():
            report.extra[key] = report.extra.get(key, 0) + count
        if extraction.failure is not None:
            return None
        contexts = {item.context_id: item.context() for item in items}
        by_cid = {item.context_id: item.record for item in kept}
        return await self._intents(extraction.accepted, contexts, report, by_cid, own)

    async def _intents(
        self,
        accepted: dict[int, Proposal],
        contexts: dict[int, ItemContext],
        report: ProcessorReport,
        records: dict[int, NotificationRecord],
        own: dict[int, MemoryRecord],
    ) -> list[MemoryIntent]:
        intents: list[MemoryIntent] = []
        targeted: set[str] = set()
        texts = [p.text for p in accepted.values() if p.action != "ignore" and p.text is not None]
        rejected = dict(zip(texts, await self._store.rejected_many(texts), strict=True)) \
            if texts else {}
        outcomes = self._outcomes
        for cid, proposal in accepted.items():
            if proposal.action == "ignore":
                outcomes[cid] = (DROPPED, "ignored", ())
                continue
            if proposal.text is not None and rejected[proposal.text]:
                report.rejected["rejected_by_owner"] += 1
                outcomes[cid] = (DROPPED, "rejected_by_owner", ())
                continue
            sources = tuple(
                SourceRef(SourceKind.CONTEXT, str(i)) for i in contexts[cid].source_ids
            )
            record = records[cid]
            detail = source_words(record)
            try:  # the store refuses a secret; this item is skipped, the batch goes on
                refuse_secrets(text=proposal.text, detail=detail)
            except SecretInStatementError as exc:
                report.rejected[exc.code] += 1
                outcomes[cid] = (DROPPED, exc.code, ())
                continue
            # the log keeps a record by the day it was received, not the day it was posted
            until = record.received_at + self._source_retention
            subject = notification_subject(record)
            posted, app_id, sender = origin(record)
            mine = own.get(cid)
            if proposal.action == "add" and mine is not None and mine.memory_id not in targeted:
                # the notification already has a memory (an earlier event of its key):
                # the newer content updates it instead of adding a second memory
                targeted.add(mine.memory_id)
                report.extra["updated_in_place"] = report.extra.get("updated_in_place", 0) + 1
                assert proposal.text is not None
                intents.append(MemoryIntent(
                    op=IntentOp.UPDATE, memory_id=mine.memory_id,
                    expected_revision=mine.revision, text=proposal.text,
                    authority=max(proposal.authority, mine.authority,
                                  key=lambda a: AUTHORITY_RANK[a]),
                    sources=sources, detail=detail, detail_until=until,
                    event_end=proposal.event_end, occurred_at=posted, app_id=app_id,
                    sender=sender,
                ))
                outcomes[cid] = (KEPT, None, (mine.memory_id,))
                continue
            if proposal.action == "add":
                intents.append(MemoryIntent(
                    op=IntentOp.CREATE, memory_id=derive_memory_id(contexts[cid].source_ids),
                    tier=proposal.tier, kind=proposal.kind, text=proposal.text,
                    authority=proposal.authority, sources=sources, subject=subject,
                    detail=detail, detail_until=until, event_end=proposal.event_end,
                    occurred_at=posted, app_id=app_id, sender=sender,
                ))
                outcomes[cid] = (KEPT, None, (intents[-1].memory_id,))
                continue
            assert proposal.memory_id is not None
            if proposal.memory_id in targeted:
                report.rejected["conflicting_target"] += 1
                outcomes[cid] = (DROPPED, "conflicting_target", ())
                continue
            targeted.add(proposal.memory_id)
            outcomes[cid] = (KEPT, None, (proposal.memory_id,))
            op = IntentOp(proposal.action)
            intents.append(MemoryIntent(
                op=op, memory_id=proposal.memory_id, expected_revision=proposal.revision,
                text=proposal.text if op is IntentOp.UPDATE else None,
                detail=detail if op is IntentOp.UPDATE else None,
                detail_until=until if op is IntentOp.UPDATE else None,
                event_end=proposal.event_end if op is IntentOp.UPDATE else None,
                authority=proposal.authority,
                sources=sources if op in (IntentOp.UPDATE, IntentOp.REINFORCE) else (),
                reason="superseded_by_notification" if op is IntentOp.REMOVE else None,
                occurred_at=posted if op in (IntentOp.UPDATE, IntentOp.REINFORCE) else None,
                receipt_id=f"{SCENARIO}:promote:{derive_memory_id(contexts[cid].source_ids)}"
                if op is IntentOp.PROMOTE else None,
            ))
        return intents

    # -- the decision trail -------------------------------------------------------------

    async def _decide(self, batch: list[NotificationRecord], items: list[_Item],
                      gap: str | None = None) -> None:
        """Record what became of each notification of a committed (or skipped) batch
        (`memory.decisions`); every event of a notification shares its
        item's decision, an event merged into a newer one is `coalesced`, and a
        notification seen only as removed is `removed`."""
        now = self._clock.now()
        by_id: dict[int, tuple[str, str | None, tuple[str, ...]]] = {}
        for item in items:
            outcome = self._outcomes.get(item.context_id, (DROPPED, "no_proposal", ()))
            for cid in item.source_ids:
                by_id[cid] = outcome if cid == item.context_id or outcome[0] == KEPT \
                    else (DROPPED, "coalesced", ())
        rows = [
            NotificationDecision(
                r.context_id, r.received_at, now,
                *((DROPPED, gap, ()) if gap is not None
                  else by_id.get(r.context_id, (DROPPED, "removed", ()))))
            for r in batch
        ]
        oldest = now - self._source_retention
        await self._store.record_decisions(rows, oldest)

    # -- attempts and poison batches ----------------------------------------------------

    async def _fail(
        self, batch: list[NotificationRecord], code: str, report: ProcessorReport
    ) -> None:
        failure = await self._bump_attempt(batch[0].context_id, code)
        attempts = failure.attempts
        if not failure.poisoned:
            report.error = code
            report.extra["retry_attempts"] = attempts
            return
        gap = await self._context.skip_batch(batch, f"{code}_after_{attempts}_attempts")
        await self._decide(batch, [], gap=f"gap_{code}"[:64])
        report.gaps += 1
        report.extra["skipped_records"] = gap.count
        await self._clear_attempts(batch[-1].context_id)
        self._log.warning(
            "notifications poison batch first=%d last=%d skipped as gap code=%s attempts=%d",
            batch[0].context_id, batch[-1].context_id, code, attempts,
        )

    async def attempts(self, first_context_id: int) -> int:
        """Failed attempts recorded for the batch that starts at `first_context_id`."""
        row = await self._store.work_attempt(Scenario.NOTIFICATIONS,
                                             notification_key(first_context_id))
        return 0 if row is None else row.attempts

    async def _bump_attempt(self, first_context_id: int, code: str) -> WorkAttempt:
        self._attempts_dirty = True
        return await self._store.record_work_failure(
            Scenario.NOTIFICATIONS, notification_key(first_context_id), code,
            budget=self._retry_budget, at=self._clock.now())

    async def _clear_attempts(self, up_to: int) -> None:
        """Forget the failures of the batches a commit or a gap passed (a poisoned
        batch's row stays for status readers, `work_ledger.POISON_KEPT`)."""
        if not self._attempts_dirty:
            return
        await self._store.clear_work_through(Scenario.NOTIFICATIONS, up_to)
        self._attempts_dirty = False


SUBJECT_ATTEMPTS = 4
"""Digests tried for a notification's subject (see `notification_subject`)."""


def notification_subject(record: NotificationRecord) -> str:
    """The subject of a notification's memory: a digest of (app id, key), no content, so
    every later event of the same notification finds the memory it already has.

    About one digest in 20,000 reads as a secret to the store's detector (20 hex digits
    can pass an IBAN's mod-97 check: "ee81f7edeef8a5c71b35"), and the store refuses a
    subject holding one, which made the notification's batch a poison gap. Such a digest
    is derived again with a counter until it reads as none: the same subject for the same
    notification every time, and unchanged for every digest that never read as one."""
    event = record.event
    for attempt in range(SUBJECT_ATTEMPTS):
        salt = f"\0{attempt}" if attempt else ""
        digest = hashlib.blake2b(f"{event.app_id}\0{event.key}{salt}".encode(),
                                 digest_size=10)
        subject = "notification:" + digest.hexdigest()
        if not contains_secret(subject):
            return subject
    raise AssertionError("no notification subject free of secret-like digits")  # 1 in 1e17


def origin(record: NotificationRecord) -> tuple[datetime, str | None, str | None]:
    """What a memory of this notification records of where it came from: the posting
    time, the app id and, for a message, its sender as the phone names it (dropped when
    the detector reads a secret in it: the store never keeps one)."""
    event = record.event
    app_id = " ".join(event.app_id.split())[:ORIGIN_LIMIT_CHARS] or None
    sender = message_sender(event.title, event.subtitle, event.body, event.category)
    if sender is not None:
        sender = sender[:ORIGIN_LIMIT_CHARS]
        if contains_secret(sender):
            sender = None
    if app_id is not None and contains_secret(app_id):
        app_id = None
    return event.posted_at, app_id, sender


def source_words(record: NotificationRecord) -> str:
    """What recall searches besides the memory's statement: the app's name, the Latin
    letters of a person's or chat's name written in another script (`romanize`), and
    the notification's own title, subtitle and body (the body is capped at 4 KiB at
    intake)."""
    event = record.event
    names = ""
    if is_personal(event.category):
        speaker = message_sender(event.title, event.subtitle, event.body, event.category)
        forms = [f for part in (event.title, event.subtitle, speaker or "")
                 for f in name_forms(part)]
        names = " ".join(dict.fromkeys(forms))
    parts = (app_label(event.app_id), names, event.title, event.subtitle, event.body)
    return "\n".join(part for part in parts if part)


def _query(item: _Item) -> str:
    """The sender and the first words: enough to find memories about the same thing."""
    event = item.record.event
    words = " ".join((event.title, event.subtitle, event.body))[:QUERY_CHARS].split()
    return " ".join(words[:QUERY_WORDS])
