"""The Episode processing ledger: one row per recorded episode trace.

States and transitions (every transition is one call inside the caller's
transaction, usually `MemoryStore.transaction(fn)` together with the memory
writes it stands for):

    pending --mark_processing--> processing --mark_proposed--> proposed --mark_done--> done
       ^                            |   |                          |
       |                   release  |   +--mark_retry / mark_ignored+--> retry | ignored
       +----------------------------+
    retry --(next_attempt_at due)--> processing ...

- `pending`: registered from the trace directory, not yet looked at.
- `processing`: in a batch whose model call has not been staged yet. Rows found
  here when a process starts were interrupted; `recover()` charges them one
  attempt and they are taken first by the next batch.
- `proposed`: the validated proposal for this episode is staged in
  `proposal_json` (with its sha256 `proposal_digest`); applying it needs no model
  call, so a crash here resumes by re-reading the stage.
- `done`: the memory writes committed in the same transaction; `applied_json`
  lists the memory ids written.
- `retry`: a failed attempt (invalid proposal item, model failure, stale revision).
  The failures are counted in the one work ledger (`memory.work_ledger`, scenario
  `episodes`, keyed by the episode id: its count, last code and backoff), in the same
  transaction as the transition; `LedgerRow.attempts` and `next_attempt_at` read it.
  After the retry budget the work row is poisoned and this row becomes `ignored` with
  reason `retry_budget_exhausted:<code>`.
- `ignored`: never processed further (`reason` says why: an ineligible episode,
  an unreadable trace, an exhausted retry budget).

These functions are synchronous and take an open `sqlite3.Connection`; they do
no I/O besides SQL and must run on the store's owned thread. Agent code calls
`EpisodeLedger`, whose typed operations each run one of them (or a fixed group: a
batch's staged and failed episodes; a staged proposal's memory writes with its
transition) as one transaction or one snapshot, and never holds a connection.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import orjson

from companion_memory.core.errors import StateError
from companion_memory.memory import work_ledger
from companion_memory.memory.intents import apply_intents
from companion_memory.memory.records import MemoryIntent, MemoryStoreError
from companion_memory.memory.rejections import holds_any, scrub_json
from companion_memory.memory.rows import from_us, savepoint, to_us
from companion_memory.memory.work_ledger import Scenario

if TYPE_CHECKING:
    from companion_memory.memory.store import MemoryStore

DDL = """
CREATE TABLE episode_ledger (
    episode_id TEXT PRIMARY KEY,
    day TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN
        ('pending', 'processing', 'proposed', 'done', 'retry', 'ignored')),
    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    reason TEXT,
    trace_digest TEXT,
    batch_id TEXT,
    proposal_digest TEXT,
    proposal_json TEXT,
    applied_json TEXT,
    next_attempt_at TEXT,
    registered_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX episode_ledger_by_state ON episode_ledger (state, registered_at, episode_id);
"""
"""The ledger's table; migration `0006_episode_ledger_create` (`memory.migrations`)
runs it."""

DROP_ATTEMPTS = """
ALTER TABLE episode_ledger DROP COLUMN attempts;
ALTER TABLE episode_ledger DROP COLUMN next_attempt_at;
"""
"""Migration `0017_episode_ledger_drop_attempts`: the failure count and backoff live in
`work_attempts` since 0015; 0016 carried these columns' values over."""


class EpisodeState(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    PROPOSED = "proposed"
    DONE = "done"
    RETRY = "retry"
    IGNORED = "ignored"


class LedgerStateError(StateError):
    """A transition was asked of a row that is not in a state that allows it."""

    code = "ledger_state_conflict"


RETRY_EXHAUSTED = "retry_budget_exhausted"


@dataclass(frozen=True, slots=True)
class LedgerRow:
    episode_id: str
    day: str
    state: EpisodeState
    attempts: int
    reason: str | None
    trace_digest: str | None
    batch_id: str | None
    proposal_digest: str | None
    proposal_json: str | None
    applied: tuple[str, ...]
    next_attempt_at: str | None
    registered_at: str
    updated_at: str

    def proposal(self) -> Any:
        """The staged proposal (parsed), or None."""
        return None if self.proposal_json is None else orjson.loads(self.proposal_json)

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "day": self.day,
            "state": self.state.value,
            "attempts": self.attempts,
            "reason": self.reason,
            "proposal_digest": self.proposal_digest,
            "applied": list(self.applied),
            "next_attempt_at": self.next_attempt_at,
        }


_COLUMNS = (
    "e.episode_id, e.day, e.state, COALESCE(w.attempts, 0), e.reason, e.trace_digest, "
    "e.batch_id, e.proposal_digest, e.proposal_json, e.applied_json, "
    "CASE WHEN e.state = 'retry' THEN w.next_attempt_us END, e.registered_at, e.updated_at"
)
_FROM = (
    "episode_ledger e LEFT JOIN work_attempts w "
    "ON w.scenario = 'episodes' AND w.work_key = e.episode_id"
)
"""A ledger row with its failures from the work ledger (none: zero attempts)."""

_DUE = (
    "e.state IN ('processing', 'pending') OR (e.state = 'retry' AND "
    "(w.next_attempt_us IS NULL OR w.next_attempt_us <= ?))"
)
"""Rows a batch could take at a time (the parameter, in microseconds)."""


def _ts(value: datetime) -> str:
    """Fixed-width UTC text, so that SQL compares times as strings correctly."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _row(values: Sequence[Any]) -> LedgerRow:
    applied = tuple(orjson.loads(values[9])) if values[9] else ()
    return LedgerRow(
        episode_id=values[0], day=values[1], state=EpisodeState(values[2]),
        attempts=values[3], reason=values[4], trace_digest=values[5], batch_id=values[6],
        proposal_digest=values[7], proposal_json=values[8], applied=applied,
        next_attempt_at=None if values[10] is None else _ts(from_us(int(values[10]))),
        registered_at=values[11], updated_at=values[12],
    )


def proposal_digest(proposal_json: str) -> str:
    return hashlib.sha256(proposal_json.encode("utf-8")).hexdigest()


def get(conn: sqlite3.Connection, episode_id: str) -> LedgerRow | None:
    cur = conn.execute(f"SELECT {_COLUMNS} FROM {_FROM} WHERE e.episode_id = ?",
                       (episode_id,))
    values = cur.fetchone()
    return None if values is None else _row(values)


def rows(
    conn: sqlite3.Connection, *, state: EpisodeState | None = None, limit: int = 1000
) -> list[LedgerRow]:
    if state is None:
        cur = conn.execute(
            f"SELECT {_COLUMNS} FROM {_FROM} ORDER BY e.registered_at, e.episode_id LIMIT ?",
            (limit,),
        )
    else:
        cur = conn.execute(
            f"SELECT {_COLUMNS} FROM {_FROM} WHERE e.state = ? "
            "ORDER BY e.registered_at, e.episode_id LIMIT ?",
            (state.value, limit),
        )
    return [_row(v) for v in cur.fetchall()]


def register(conn: sqlite3.Connection, entries: Iterable[tuple[str, str]], now: datetime) -> int:
    """Add (day, episode_id) traces not yet in the ledger as `pending`; return how many."""
    stamp = _ts(now)
    added = 0
    for day, episode_id in entries:
        cur = conn.execute(
            "INSERT OR IGNORE INTO episode_ledger (episode_id, day, state, registered_at, "
            "updated_at) VALUES (?, ?, 'pending', ?, ?)",
            (episode_id, day, stamp, stamp),
        )
        added += cur.rowcount
    return added


def known_ids(conn: sqlite3.Connection, episode_ids: Iterable[str]) -> set[str]:
    ids = list(episode_ids)
    found: set[str] = set()
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ",".join("?" * len(chunk))
        cur = conn.execute(
            f"SELECT episode_id FROM episode_ledger WHERE episode_id IN ({marks})", chunk
        )
        found.update(r[0] for r in cur.fetchall())
    return found


def candidates(conn: sqlite3.Connection, now: datetime, limit: int) -> list[LedgerRow]:
    """Rows to take into the next batch: interrupted `processing` first, then `pending`
    and due `retry` rows, oldest registration first."""
    cur = conn.execute(
        f"SELECT {_COLUMNS} FROM {_FROM} WHERE {_DUE} "
        "ORDER BY CASE e.state WHEN 'processing' THEN 0 ELSE 1 END, e.registered_at, "
        "e.episode_id LIMIT ?",
        (to_us(now), limit),
    )
    return [_row(v) for v in cur.fetchall()]


def proposed(conn: sqlite3.Connection, limit: int) -> list[LedgerRow]:
    """Rows with a staged proposal waiting to be applied."""
    return rows(conn, state=EpisodeState.PROPOSED, limit=limit)


def _refusal(conn: sqlite3.Connection, episode_id: str, states: Sequence[str]
             ) -> LedgerStateError:
    row = get(conn, episode_id)
    where = "is not in the ledger" if row is None else f"is {row.state.value}"
    return LedgerStateError(
        f"episode {episode_id} {where}; this transition needs one of: {', '.join(states)}"
    )


def _transition(conn: sqlite3.Connection, episode_id: str, allowed: Iterable[EpisodeState],
                sets: str, params: Sequence[Any]) -> None:
    states = [s.value for s in allowed]
    marks = ",".join("?" * len(states))
    cur = conn.execute(
        f"UPDATE episode_ledger SET {sets} WHERE episode_id = ? AND state IN ({marks})",
        (*params, episode_id, *states),
    )
    if cur.rowcount != 1:
        raise _refusal(conn, episode_id, states)


def _require(conn: sqlite3.Connection, episode_id: str, allowed: Iterable[EpisodeState]
             ) -> None:
    """Refuse before a failure is counted, so a refused transition counts nothing even
    where the caller goes on with the transaction."""
    states = [s.value for s in allowed]
    row = get(conn, episode_id)
    if row is None or row.state.value not in states:
        raise _refusal(conn, episode_id, states)


def mark_processing(conn: sqlite3.Connection, episode_ids: Sequence[str], batch_id: str,
                    trace_digests: dict[str, str], now: datetime) -> None:
    """pending | retry | processing -> processing (in batch `batch_id`)."""
    for episode_id in episode_ids:
        _transition(
            conn, episode_id,
            (EpisodeState.PENDING, EpisodeState.RETRY, EpisodeState.PROCESSING),
            "state = 'processing', batch_id = ?, trace_digest = ?, updated_at = ?",
            (batch_id, trace_digests.get(episode_id), _ts(now)),
        )


def release(conn: sqlite3.Connection, episode_ids: Sequence[str], now: datetime) -> None:
    """processing -> pending (no failed attempt yet) or retry, without charging an attempt
    (the model was unavailable or out of budget; nothing about the episode failed)."""
    for episode_id in episode_ids:
        _transition(
            conn, episode_id, (EpisodeState.PROCESSING,),
            "state = CASE WHEN EXISTS (SELECT 1 FROM work_attempts w WHERE "
            "w.scenario = 'episodes' AND w.work_key = episode_ledger.episode_id AND "
            "w.attempts > 0) THEN 'retry' ELSE 'pending' END, batch_id = NULL, updated_at = ?",
            (_ts(now),),
        )


def mark_proposed(
    conn: sqlite3.Connection, episode_id: str, proposal_json: str, now: datetime
) -> str:
    """processing -> proposed with the staged proposal; returns its digest."""
    digest = proposal_digest(proposal_json)
    _transition(
        conn, episode_id, (EpisodeState.PROCESSING,),
        "state = 'proposed', proposal_json = ?, proposal_digest = ?, reason = NULL, "
        "updated_at = ?",
        (proposal_json, digest, _ts(now)),
    )
    return digest


def mark_done(
    conn: sqlite3.Connection, episode_id: str, expected_digest: str, applied: Sequence[str],
    now: datetime,
) -> None:
    """proposed (with this proposal digest) -> done, listing the memory ids written."""
    row = get(conn, episode_id)
    if row is not None and row.state is EpisodeState.PROPOSED and (
        row.proposal_digest != expected_digest
    ):
        raise LedgerStateError(
            f"episode {episode_id} has a different staged proposal than the one applied"
        )
    _transition(
        conn, episode_id, (EpisodeState.PROPOSED,),
        "state = 'done', applied_json = ?, reason = NULL, updated_at = ?",
        (orjson.dumps(list(applied)).decode("utf-8"), _ts(now)),
    )


def mark_retry(conn: sqlite3.Connection, episode_id: str, reason: str, now: datetime,
               next_attempt_at: datetime, retry_budget: int) -> EpisodeState:
    """processing | proposed -> retry with one more failed attempt (counted in the work
    ledger with its backoff), or -> ignored with `retry_budget_exhausted:<reason>` when
    that spends the budget (the work row is poisoned). Returns the new state."""
    allowed = (EpisodeState.PROCESSING, EpisodeState.PROPOSED)
    _require(conn, episode_id, allowed)
    failure = work_ledger.record_failure(
        conn, Scenario.EPISODES, episode_id, reason, now=now, budget=retry_budget,
        retry_at=next_attempt_at)
    if failure.poisoned:
        _transition(
            conn, episode_id, allowed,
            "state = 'ignored', reason = ?, proposal_json = NULL, "
            "proposal_digest = NULL, updated_at = ?",
            (f"{RETRY_EXHAUSTED}:{reason}", _ts(now)),
        )
        return EpisodeState.IGNORED
    _transition(
        conn, episode_id, allowed,
        "state = 'retry', reason = ?, proposal_json = NULL, "
        "proposal_digest = NULL, batch_id = NULL, updated_at = ?",
        (reason, _ts(now)),
    )
    return EpisodeState.RETRY


def mark_ignored(conn: sqlite3.Connection, episode_id: str, reason: str, now: datetime) -> None:
    """pending | retry | processing -> ignored with `reason` (e.g. an ineligible episode)."""
    _transition(
        conn, episode_id,
        (EpisodeState.PENDING, EpisodeState.RETRY, EpisodeState.PROCESSING),
        "state = 'ignored', reason = ?, updated_at = ?",
        (reason, _ts(now)),
    )


def recover(conn: sqlite3.Connection, now: datetime, retry_budget: int) -> dict[str, int]:
    """At process start: charge each interrupted `processing` row one failed attempt in
    the work ledger (a crash loop on one episode ends in `ignored`); `proposed` rows
    stay staged."""
    out = {"interrupted": 0, "exhausted": 0, "proposed": 0}
    for row in rows(conn, state=EpisodeState.PROCESSING, limit=1_000_000):
        failure = work_ledger.record_failure(
            conn, Scenario.EPISODES, row.episode_id, "interrupted", now=now,
            budget=retry_budget)
        if failure.poisoned:
            conn.execute(
                "UPDATE episode_ledger SET state = 'ignored', reason = ?, "
                "updated_at = ? WHERE episode_id = ?",
                (f"{RETRY_EXHAUSTED}:interrupted", _ts(now), row.episode_id),
            )
            out["exhausted"] += 1
        else:
            conn.execute(
                "UPDATE episode_ledger SET reason = 'interrupted', "
                "updated_at = ? WHERE episode_id = ?",
                (_ts(now), row.episode_id),
            )
            out["interrupted"] += 1
    cur = conn.execute("SELECT COUNT(*) FROM episode_ledger WHERE state = 'proposed'")
    out["proposed"] = int(cur.fetchone()[0])
    return out


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Rows per state (every state present, zero when none)."""
    out = {s.value: 0 for s in EpisodeState}
    for state, n in conn.execute("SELECT state, COUNT(*) FROM episode_ledger GROUP BY state"):
        out[state] = int(n)
    return out


def due_count(conn: sqlite3.Connection, now: datetime) -> int:
    """Rows that a batch could take now (processing, proposed, pending, due retry)."""
    cur = conn.execute(
        f"SELECT COUNT(*) FROM {_FROM} WHERE e.state = 'proposed' OR {_DUE}", (to_us(now),)
    )
    return int(cur.fetchone()[0])


def scrub_proposals(conn: sqlite3.Connection, needles: Sequence[str]) -> int:
    """Remove `needles` (a forgotten memory's text and secret values) from every staged
    proposal, re-digesting each changed one; returns the rows changed.

    An item holding a needle is dropped whole (the others keep their indexes, so their
    derived memory ids do not change). A proposal still waiting to be applied is
    applied without it; a done row keeps only the scrubbed copy."""
    changed = 0
    rows = conn.execute(
        "SELECT episode_id, proposal_json FROM episode_ledger WHERE proposal_json IS NOT NULL"
    ).fetchall()
    for episode_id, proposal_json in rows:
        if not holds_any(proposal_json, needles):
            continue
        clean = scrub_json(proposal_json, needles, drop_from="items")
        conn.execute(
            "UPDATE episode_ledger SET proposal_json = ?, proposal_digest = ? "
            "WHERE episode_id = ?",
            (clean, proposal_digest(clean), episode_id),
        )
        changed += 1
    return changed


# -- composite steps (each one transaction) and the typed operations -----------------


@dataclass(frozen=True, slots=True)
class RetryPlan:
    """How a failure is charged: at `now`, due again at `at`, given up at `budget`."""

    now: datetime
    at: datetime
    budget: int


@dataclass(frozen=True, slots=True)
class ApplyOutcome:
    """What applying one staged proposal did: `applied` (the memory ids `written`),
    `retry` (the store refused it with `error`; the episode is now `state`) or
    `skipped` (the row was no longer the staged proposal it was read as)."""

    outcome: str
    written: tuple[str, ...] = ()
    error: str | None = None
    state: EpisodeState | None = None


def stage_batch(conn: sqlite3.Connection, staged: Mapping[str, str],
                failed: Mapping[str, str], now: datetime,
                retry: RetryPlan) -> dict[str, EpisodeState]:
    """A batch's answer in one transaction: each staged proposal `proposed`, each failed
    episode charged (`mark_retry`); returns the failed episodes' new states."""
    for episode_id, proposal in staged.items():
        mark_proposed(conn, episode_id, proposal, now)
    return {
        episode_id: mark_retry(conn, episode_id, reason, retry.now, retry.at, retry.budget)
        for episode_id, reason in failed.items()
    }


def apply_proposal(
    conn: sqlite3.Connection, episode_id: str, digest: str, intents: Sequence[MemoryIntent],
    *, now: datetime, ttls: tuple[timedelta, timedelta], retry: RetryPlan,
) -> ApplyOutcome:
    """Apply the staged proposal of `episode_id` (when it is still the one with
    `digest`) and mark it done, in the caller's one transaction; a typed refusal of the
    store is rolled back to a savepoint and charged as a failed attempt instead."""
    current = get(conn, episode_id)
    if current is None or current.state is not EpisodeState.PROPOSED or (
        current.proposal_digest != digest
    ):
        return ApplyOutcome("skipped")
    temporary_ttl, long_term_ttl = ttls
    try:
        with savepoint(conn, "episode_apply"):
            result = apply_intents(conn, intents, now=now, temporary_ttl=temporary_ttl,
                                   long_term_ttl=long_term_ttl, origin="episodes")
    except MemoryStoreError as err:
        state = mark_retry(conn, episode_id, err.code, retry.now, retry.at, retry.budget)
        return ApplyOutcome("retry", error=err.code, state=state)
    written = tuple(r.memory_id for r in result.records)
    mark_done(conn, episode_id, digest, written, now)
    return ApplyOutcome("applied", written=written)


class EpisodeLedger:
    """The episode ledger's typed operations on a store: each read is one snapshot and
    each write one transaction, exactly the steps `agent.episodes.processor` needs."""

    __slots__ = ("_store",)

    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    async def get(self, episode_id: str) -> LedgerRow | None:
        return await self._store.read(lambda conn: get(conn, episode_id))

    async def proposed(self, limit: int) -> list[LedgerRow]:
        return await self._store.read(lambda conn: proposed(conn, limit))

    async def candidates(self, now: datetime, limit: int) -> list[LedgerRow]:
        """See `candidates`."""
        return await self._store.read(lambda conn: candidates(conn, now, limit))

    async def due_count(self, now: datetime) -> int:
        return await self._store.read(lambda conn: due_count(conn, now))

    async def counts(self) -> dict[str, int]:
        return await self._store.read(counts)

    async def recover(self, now: datetime, retry_budget: int) -> dict[str, int]:
        """See `recover`."""
        return await self._store.transaction(lambda conn: recover(conn, now, retry_budget))

    async def register(self, entries: Sequence[tuple[str, str]], now: datetime) -> int:
        """See `register`."""
        chosen = list(entries)
        return await self._store.transaction(lambda conn: register(conn, chosen, now))

    async def mark_ignored(self, episode_id: str, reason: str, now: datetime) -> None:
        await self._store.transaction(lambda conn: mark_ignored(conn, episode_id, reason, now))

    async def mark_processing(self, episode_ids: Sequence[str], batch_id: str,
                              trace_digests: dict[str, str], now: datetime) -> None:
        ids = list(episode_ids)
        await self._store.transaction(
            lambda conn: mark_processing(conn, ids, batch_id, trace_digests, now))

    async def release(self, episode_ids: Sequence[str], now: datetime) -> None:
        ids = list(episode_ids)
        await self._store.transaction(lambda conn: release(conn, ids, now))

    async def stage_batch(self, staged: Mapping[str, str], failed: Mapping[str, str],
                          now: datetime, retry: RetryPlan) -> dict[str, EpisodeState]:
        """See `stage_batch`."""
        return await self._store.transaction(
            lambda conn: stage_batch(conn, staged, failed, now, retry))

    async def apply_proposal(self, episode_id: str, digest: str,
                             intents: Sequence[MemoryIntent], *, now: datetime,
                             retry: RetryPlan) -> ApplyOutcome:
        """See `apply_proposal` (with the store's TTLs)."""
        ttls = self._store.ttls
        return await self._store.transaction(lambda conn: apply_proposal(
            conn, episode_id, digest, intents, now=now, ttls=ttls, retry=retry))
