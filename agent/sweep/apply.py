"""Planning one staged candidate's write inside the store's transaction (synchronous).

`plan_candidate(reader, ...)` is the planner `SweepLedger.apply_candidate` runs on the
store's thread inside one transaction: it re-reads the target and the subject's
occupant through a `SweepReader` bound to that transaction and decides the outcome and
the memory intents; `memory.sweep_ledger.apply_candidate` then executes them with
`apply_intents` and records the outcome on the claimed receipt, all in one commit. A
typed refusal from the store (owner rejection, authority, inactive target) is rolled
back to a savepoint and recorded as the outcome, so the receipt still moves on and a
retry never writes twice.

Rules: promote Temporary -> Long-Term (promotion receipt = the sweep receipt id);
add a Long-Term memory with authority `inference` (with its search-only detail, living
at least until its `until`), unless a live Long-Term occupant of the same subject has
equal or higher authority (idempotent skip) - a stronger candidate amends the occupant
instead; amend a related Long-Term memory only when the candidate's authority is at
least the target's (its detail gains the new words; it lives the Long-Term TTL from
now); reinforce a related Long-Term memory (its sources gain the day's, it lives the TTL
from now); merge: amend the related memory with the text of a Long-Term memory a
processor wrote during the window and remove that one, in the same transaction.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from companion_memory.agent.sweep.proposals import (
    DETAIL_LIMIT_BYTES,
    Candidate,
    normalize_subject,
)
from companion_memory.memory import (
    AUTHORITY_RANK,
    Authority,
    IntentOp,
    Kind,
    MemoryIntent,
    MemoryRecord,
    SourceRef,
    Status,
    Tier,
    normalize_text,
)
from companion_memory.memory.sweep_ledger import CandidatePlan, ReceiptKey
from companion_memory.memory.sweep_reads import SweepReader

WRITE_OUTCOMES = frozenset({"promoted", "added", "amended", "reinforced", "merged"})
CANDIDATE_AUTHORITY = Authority.INFERENCE


@dataclass(frozen=True, slots=True)
class WriteContext:
    now: datetime
    temporary_ttl: timedelta
    long_term_ttl: timedelta
    day_start: datetime | None = None
    """The start of the swept local day (UTC): when what a new or changed memory says
    happened (`MemoryRecord.occurred_at`), not the day the sweep wrote it."""


def receipt_id(key: ReceiptKey) -> str:
    """The content-free receipt string (promotion receipts carry it)."""
    return f"sweep:{key.namespace}:{key.window_id}:{key.candidate_digest[:32]}"


def derived_memory_id(key: ReceiptKey) -> str:
    """The id of a memory the sweep creates for this receipt (idempotent create)."""
    seed = f"{key.namespace}|{key.window_id}|{key.candidate_digest}"
    return "sweep-" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:26]


def _occupant(reader: SweepReader, subject: str, now: datetime) -> MemoryRecord | None:
    """The strongest live Long-Term memory whose subject normalizes to `subject`."""
    best: MemoryRecord | None = None
    for record in reader.long_term_with_subject(
            now, lambda stored: normalize_subject(stored) == subject):
        if best is None or AUTHORITY_RANK[record.authority] > AUTHORITY_RANK[best.authority]:
            best = record
    return best


def _live(record: MemoryRecord | None, now: datetime) -> bool:
    return record is not None and record.status is Status.ACTIVE and record.is_live(now)


def _sources(candidate: Candidate) -> tuple[SourceRef, ...]:
    return tuple(SourceRef.parse(s) for s in candidate.sources)


def plan_candidate(
    reader: SweepReader, candidate: Candidate, key: ReceiptKey, ctx: WriteContext
) -> CandidatePlan:
    """(outcome, memory_id, intents) for this candidate against the current database."""
    strength = AUTHORITY_RANK[CANDIDATE_AUTHORITY]
    if candidate.action == "promote":
        target_id = candidate.memory_id or ""
        target = reader.record(target_id)
        if target is None or not _live(target, ctx.now):
            return "target_inactive", target_id, []
        if target.tier is Tier.LONG_TERM:
            return "already_long_term", target_id, []
        if target.tier is not Tier.TEMPORARY:
            return "not_temporary", target_id, []
        subject = normalize_subject(target.subject)
        if subject is not None:
            occupant = _occupant(reader, subject, ctx.now)
            if occupant is not None and (
                AUTHORITY_RANK[occupant.authority] >= AUTHORITY_RANK[target.authority]
            ):
                return "subject_occupied", occupant.memory_id, []
        intent = MemoryIntent(
            op=IntentOp.PROMOTE, memory_id=target_id, expected_revision=target.revision,
            authority=target.authority, receipt_id=receipt_id(key),
        )
        return "promoted", target_id, [intent]

    if candidate.action in ("amend", "reinforce", "merge"):
        target_id = candidate.memory_id or ""
        target = reader.record(target_id)
        if target is None or not _live(target, ctx.now) or target.tier is not Tier.LONG_TERM:
            return "target_inactive", target_id, []
        if candidate.action == "reinforce":
            return "reinforced", target_id, [MemoryIntent(
                op=IntentOp.REINFORCE, memory_id=target_id, expected_revision=target.revision,
                sources=_sources(candidate), authority=CANDIDATE_AUTHORITY,
            )]
        if strength < AUTHORITY_RANK[target.authority]:
            return "authority_too_low", target_id, []
        if candidate.action == "merge":
            newer = reader.record(candidate.from_id or "")
            if newer is None or not _live(newer, ctx.now) or newer.tier is not Tier.LONG_TERM:
                return "source_inactive", target_id, []
            if strength < AUTHORITY_RANK[newer.authority]:
                return "authority_too_low", target_id, []
            removal = MemoryIntent(
                op=IntentOp.REMOVE, memory_id=newer.memory_id,
                expected_revision=newer.revision, authority=CANDIDATE_AUTHORITY,
                reason="merged_into_older_memory",
            )
            return "merged", target_id, [_update(reader, target, candidate, ctx.day_start), removal]
        if normalize_text(candidate.text or "") == normalize_text(target.text):
            return "unchanged", target_id, []
        return "amended", target_id, [_update(reader, target, candidate, ctx.day_start)]

    # add
    subject = candidate.subject
    if subject is not None:
        occupant = _occupant(reader, subject, ctx.now)
        if occupant is not None:
            if AUTHORITY_RANK[occupant.authority] >= strength:
                return "subject_occupied", occupant.memory_id, []
            return "amended", occupant.memory_id, [
                _update(reader, occupant, candidate, ctx.day_start)]
    norm = normalize_text(candidate.text or "")
    twin = reader.long_term_twin(norm, ctx.now)
    if twin is not None:
        return "duplicate", twin, []
    new_id = derived_memory_id(key)
    intent = MemoryIntent(
        op=IntentOp.CREATE, memory_id=new_id, tier=Tier.LONG_TERM,
        kind=Kind(candidate.kind or Kind.FACT.value), text=candidate.text,
        authority=CANDIDATE_AUTHORITY, sources=_sources(candidate), subject=subject,
        detail=candidate.detail, event_end=candidate.until_at(), occurred_at=ctx.day_start,
    )
    return "added", new_id, [intent]


def _update(reader: SweepReader, target: MemoryRecord, candidate: Candidate,
            day_start: datetime | None = None) -> MemoryIntent:
    """The update of `target` to the candidate's text; its search-only detail keeps its
    words and gains the candidate's (at most DETAIL_LIMIT_BYTES)."""
    detail = None
    if candidate.detail:
        detail = _joined(reader.detail(target.memory_id), candidate.detail)
    return MemoryIntent(
        op=IntentOp.UPDATE, memory_id=target.memory_id, expected_revision=target.revision,
        text=candidate.text, sources=_sources(candidate), authority=CANDIDATE_AUTHORITY,
        subject=candidate.subject, detail=detail, event_end=candidate.until_at(),
        occurred_at=day_start,
    )


def _joined(old: str, new: str) -> str:
    """The words of `old` then the new ones of `new`, each once, within the limit (the
    newest words are kept when it is reached)."""
    seen: set[str] = set()
    words: list[str] = []
    for word in [*old.split(), *new.split()]:
        key = word.casefold()
        if key not in seen:
            seen.add(key)
            words.append(word)
    while words and len(" ".join(words).encode("utf-8")) > DETAIL_LIMIT_BYTES:
        words.pop(0)
    return " ".join(words)
