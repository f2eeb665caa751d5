"""`MemoryStore`: the async face of the memory database.

All SQLite work runs on one owned thread (`memory.connection.SqliteThread`);
every method here awaits a job on it and never touches SQLite on the event loop.
Writes run inside `BEGIN IMMEDIATE .. COMMIT` (the write lock is taken before
any read, so a compare-and-set cannot race another task or process; a busy
database is waited on for `BUSY_TIMEOUT_MS`).

Cancellation: cancelling an awaiting caller never leaves a half transaction. A
job that has not started is dropped; one that has started commits or rolls back
as a whole on the thread and its result is discarded (see `memory.connection`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from companion_memory.core.clock import Clock, SystemClock
from companion_memory.memory import decisions as decision_trail
from companion_memory.memory import (
    fts_index,
    hybrid,
    maintenance,
    owner,
    vectors,
    work_ledger,
    write_events,
)
from companion_memory.memory import history as memory_history
from companion_memory.memory.connection import SqliteThread
from companion_memory.memory.database import open_database
from companion_memory.memory.decisions import NotificationDecision
from companion_memory.memory.embedding import Embedder
from companion_memory.memory.errors import EmptyQueryError, StoreCorruptError
from companion_memory.memory.filters import NO_FILTER, MemoryFilter
from companion_memory.memory.fts_index import StoreHealth
from companion_memory.memory.history import MemoryRevision
from companion_memory.memory.hybrid import HybridQuery, hybrid_search
from companion_memory.memory.intents import ApplyResult, CursorAdvance, apply_intents, get_cursor
from companion_memory.memory.recall import (
    NEWER_WITHIN,
    TIEBREAK_EXTRA,
    DocFreqCache,
    RecallCache,
    doc_freqs,
    prefer_newer,
    query_terms,
    query_words,
    related_search,
    search,
    write_mark,
)
from companion_memory.memory.records import (
    DEVICE_KINDS,
    PERSONAL_KINDS,
    Authority,
    IntentOp,
    InvalidMemoryError,
    Kind,
    MemoryIntent,
    MemoryNotFoundError,
    MemoryRecord,
    SourceKind,
    SourceRef,
    Tier,
    normalize_text,
    validate_sources,
    validate_text,
)
from companion_memory.memory.rows import (
    COLUMNS,
    fetch_record,
    is_rejected_norm,
    record_from_row,
    require_aware,
    to_us,
)
from companion_memory.memory.settings import MemorySettings
from companion_memory.memory.work_ledger import Scenario, WorkAttempt
from companion_memory.memory.write_events import MemoryWrite

T = TypeVar("T")
log = logging.getLogger("companion_memory.memory.store")

DEFAULT_TEMPORARY_TTL = timedelta(days=7)
DEFAULT_LONG_TERM_TTL = timedelta(days=90)
PERSONAL_TIERS = (Tier.TEMPORARY, Tier.LONG_TERM)
RECALL_LIMIT_MAX = 100
EMBED_BATCH = 8
"""Memories embedded per model call by `index_vectors` (0.1-3 s of one core, by their
length). A recall does not wait for it: questions have their own lock on the model."""
EMBED_AFTER_WRITE = 64
"""A write embeds at most this many memories lacking a vector before it returns; the
storage step of the next round embeds the rest."""
QUERY_VECTORS_KEPT = 64

__all__ = [
    "ApplyResult",
    "BatchContext",
    "CleanupStats",
    "CursorAdvance",
    "MemoryStore",
    "RecallHit",
    "RepairResult",
    "SaveResult",
    "StoreHealth",
]


@dataclass(frozen=True, slots=True)
class RecallHit:
    record: MemoryRecord
    score: float
    """Higher is better (negated BM25, or the fused score when the store has an embedder)."""


@dataclass(frozen=True, slots=True)
class BatchContext:
    """What a notification batch reads before its model call, from one snapshot."""

    related: list[list[MemoryRecord]]
    """Related records per text, in the order of the texts (see `related_many`)."""
    recent_rejections: list[str]
    """As `MemoryStore.recent_rejections()`."""
    by_subject: dict[str, MemoryRecord] = field(default_factory=dict)
    """The newest live record per asked subject (subjects without one are absent)."""


@dataclass(frozen=True, slots=True)
class SaveResult:
    record: MemoryRecord
    created: bool


@dataclass(frozen=True, slots=True)
class RepairResult:
    """What `MemoryStore.repair_index` did: the rows indexed, and the checks before
    and after."""

    indexed: int
    before: StoreHealth
    after: StoreHealth


@dataclass(frozen=True, slots=True)
class CleanupStats:
    removed: int
    bytes_freed: int


class _State(Enum):
    OPEN = "open"
    CLOSED = "closed"


def _write(
    fn: Callable[[sqlite3.Connection], T],
    emit: Callable[[list[MemoryWrite]], None] | None = None,
) -> Callable[[sqlite3.Connection], T]:
    """`fn` in BEGIN IMMEDIATE .. COMMIT; the writes it noted (`memory.write_events`) go
    to `emit` after the COMMIT, and are dropped on a rollback."""

    def job(conn: sqlite3.Connection) -> T:
        conn.execute("BEGIN IMMEDIATE")
        write_events.begin(conn)
        try:
            result = fn(conn)
            conn.execute("COMMIT")
        except BaseException:
            write_events.discard(conn)
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        writes = write_events.take(conn)
        if writes and emit is not None:
            emit(writes)
        return result

    return job


def _read(fn: Callable[[sqlite3.Connection], T]) -> Callable[[sqlite3.Connection], T]:
    def job(conn: sqlite3.Connection) -> T:
        conn.execute("BEGIN")  # one consistent snapshot for multi-statement reads
        try:
            return fn(conn)
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")

    return job


def _check_limit(limit: int, name: str = "limit") -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise InvalidMemoryError(name, "must be a positive integer")
    return limit


class MemoryStore:
    """Temporary, Long-Term and Device memories in one SQLite database (WAL)."""

    def __init__(
        self,
        worker: SqliteThread,
        path: Path,
        clock: Clock,
        temporary_ttl: timedelta,
        long_term_ttl: timedelta,
        embedder: Embedder | None,
        newer_within: float = NEWER_WITHIN,
    ) -> None:
        self._worker = worker
        self._newer_within = newer_within
        self.path = path
        self._clock = clock
        self._ttls = (temporary_ttl, long_term_ttl)
        self._embedder = embedder
        self._vectors = (
            vectors.VectorIndex(embedder.name, embedder.dim) if embedder is not None else None
        )  # store thread only
        self._query_vectors: dict[str, Any] = {}  # recent queries' vectors, newest last
        self._state = _State.OPEN
        self._writes = 0  # write transactions queued so far (ages the df cache)
        self._dfs = DocFreqCache()  # used on the store thread only
        self._recall_cache = RecallCache()  # exact while the file is unchanged; store thread
        self._write_listeners: list[Callable[[MemoryWrite], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        clock: Clock | None = None,
        temporary_ttl: timedelta = DEFAULT_TEMPORARY_TTL,
        long_term_ttl: timedelta = DEFAULT_LONG_TERM_TTL,
        embedder: Embedder | None = None,
        newer_within: float = NEWER_WITHIN,
        settings: MemorySettings | None = None,
    ) -> MemoryStore:
        """Open or create the database at `path`, applying pending migrations.

        `embedder`: the model whose vectors recall fuses with BM25 (`memory.hybrid`);
        every write embeds what it wrote, and `index_vectors` embeds what an older
        store or another writer left without a vector. None: keyword recall only.
        `newer_within`: recall ranks a newer memory above an older one about the same
        thing when their scores are within this share (`memory.recall.prefer_newer`;
        0 keeps plain BM25 order). `settings` (the `[memory]` table) replaces both
        TTLs. Raises DatabaseRefusedError (file untouched) for a
        foreign or newer database.
        """
        if settings is not None:  # checked when it was built
            temporary_ttl, long_term_ttl = settings.temporary_ttl, settings.long_term_ttl
        if not isinstance(newer_within, (int, float)) or not 0 <= newer_within < 1:
            raise InvalidMemoryError("newer_within", "must be a number in [0, 1)")
        for name, ttl in (("temporary_ttl", temporary_ttl), ("long_term_ttl", long_term_ttl)):
            if ttl <= timedelta(0):
                raise InvalidMemoryError(name, "must be a positive duration")
        file = Path(path)
        worker = SqliteThread(lambda: open_database(file))
        await worker.start()
        if embedder is not None and not isinstance(embedder, Embedder):
            raise InvalidMemoryError("embedder", "must provide name, dim, documents and query")
        return cls(worker, file, clock or SystemClock(), temporary_ttl, long_term_ttl, embedder,
                   float(newer_within))

    async def close(self) -> None:
        """Finish queued work and close the database; idempotent."""
        self._state = _State.CLOSED
        await self._worker.stop()

    async def __aenter__(self) -> MemoryStore:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- extension points -------------------------------------------------------------

    def now(self) -> datetime:
        return require_aware(self._clock.now())

    @property
    def embedder(self) -> Embedder | None:
        """The embedding model recall uses (None: keyword recall only)."""
        return self._embedder

    @property
    def ttls(self) -> tuple[timedelta, timedelta]:
        """(temporary_ttl, long_term_ttl)."""
        return self._ttls

    async def transaction(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn(conn)` on the owned thread inside BEGIN IMMEDIATE .. COMMIT.

        Any exception rolls back and propagates. `fn` must not commit, roll back
        or start transactions itself, and must not touch the event loop.
        """
        self._writes += 1
        return await self._worker.run(_write(fn, self._emit))

    # -- write events -------------------------------------------------------------------

    def subscribe_writes(self, listener: Callable[[MemoryWrite], None]) -> Callable[[], None]:
        """Call `listener(write)` on the event loop for every memory write, after its
        transaction committed (never for one rolled back), in commit order; returns the
        call that unsubscribes. A listener must return at once (it runs on the loop);
        one that raises is logged by type and kept."""
        self._write_listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._write_listeners.remove(listener)

        return unsubscribe

    def _emit(self, writes: list[MemoryWrite]) -> None:
        """On the store's thread, after a COMMIT: hand `writes` to the loop (before the
        writer's own result, which the thread resolves after this)."""
        if self._loop is not None and self._write_listeners:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody listens
                self._loop.call_soon_threadsafe(self._deliver, writes)

    def _deliver(self, writes: list[MemoryWrite]) -> None:
        for write in writes:
            for listener in list(self._write_listeners):
                try:
                    listener(write)
                except Exception as exc:  # a host's callback must not break the store
                    log.error("memory write listener failed (%s)", type(exc).__name__)

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run read-only `fn(conn)` on the owned thread in one snapshot."""
        return await self._worker.run(_read(fn))

    # -- intents ---------------------------------------------------------------------

    async def apply(
        self,
        intents: Sequence[MemoryIntent],
        *,
        cursor: CursorAdvance | None = None,
        receipt: str | None = None,
        origin: str = "store",
    ) -> ApplyResult:
        """Apply a batch of intents atomically (with an optional cursor and receipt);
        `origin` names the scenario in the memories' history and write events."""
        now = self.now()
        batch = list(intents)
        temporary_ttl, long_term_ttl = self._ttls
        result = await self.transaction(
            lambda conn: apply_intents(
                conn, batch, now=now, temporary_ttl=temporary_ttl,
                long_term_ttl=long_term_ttl, cursor=cursor, receipt=receipt, origin=origin,
            )
        )
        await self.index_vectors(max_rows=EMBED_AFTER_WRITE)
        return result

    async def get_cursor(self, name: str) -> int:
        return await self.read(lambda conn: get_cursor(conn, name))

    async def get(self, memory_id: str) -> MemoryRecord | None:
        """The record with this id in any status, or None (also after cleanup)."""
        return await self.read(lambda conn: fetch_record(conn, memory_id))

    # -- the one work ledger: attempts and poisoned units (memory.work_ledger) ---------

    async def work_attempt(self, scenario: Scenario | str, key: str) -> WorkAttempt | None:
        """The failures of one unit of work (None: it never failed, or was cleared)."""
        return await self.read(lambda conn: work_ledger.get(conn, scenario, key))

    async def record_work_failure(
        self, scenario: Scenario | str, key: str, code: str, *, budget: int,
        at: datetime | None = None, retry_at: datetime | None = None,
    ) -> WorkAttempt:
        """Count one more failed attempt of a unit (reason `code`, never content) at `at`
        (default: now), in one transaction; the returned row is `poisoned` once the count
        reached `budget` (the caller gives the unit up), else due again at `retry_at`."""
        when = self.now() if at is None else at
        return await self.transaction(lambda conn: work_ledger.record_failure(
            conn, scenario, key, code, now=when, budget=budget, retry_at=retry_at))

    async def clear_work(self, scenario: Scenario | str, keys: Sequence[str]) -> int:
        """Forget the failures of these units (they succeeded); the rows deleted."""
        chosen = list(keys)
        return await self.transaction(lambda conn: work_ledger.clear(conn, scenario, chosen))

    async def clear_work_through(self, scenario: Scenario | str, last: int) -> int:
        """Forget the failures of the units numbered at most `last` that were not given
        up (the notification batches a commit passed); the rows deleted."""
        return await self.transaction(
            lambda conn: work_ledger.clear_numbered_through(conn, scenario, last))

    async def poisoned_work(self, scenario: Scenario | str | None = None,
                            limit: int = 100) -> list[WorkAttempt]:
        """The given-up units of one scenario (None: all), most recent first."""
        _check_limit(limit)
        return await self.read(lambda conn: work_ledger.poisoned(conn, scenario, limit))

    async def work_counts(self) -> dict[str, dict[str, int]]:
        """Per scenario, the units still retried and those given up (counts only)."""
        return await self.read(work_ledger.counts)

    # -- the notification decision trail (memory.decisions) ----------------------------

    async def record_decisions(self, rows: Sequence[NotificationDecision],
                               prune_before: datetime) -> None:
        """Record what became of each notification (replacing an earlier decision of the
        same context id) and prune the decisions of notifications received before
        `prune_before`, in one transaction."""
        await self.transaction(lambda conn: decision_trail.write(conn, rows, prune_before))

    async def decisions(self, since: datetime | None, limit: int
                        ) -> list[NotificationDecision]:
        """At most `limit` decisions of notifications received at or after `since`
        (None: all), newest received first."""
        return await self.read(lambda conn: decision_trail.read(conn, since, limit))

    # -- recall ----------------------------------------------------------------------

    async def recall(
        self,
        query: str,
        *,
        limit: int = 10,
        tiers: Collection[Tier] = PERSONAL_TIERS,
        where: MemoryFilter = NO_FILTER,
    ) -> list[RecallHit]:
        """Live records matching `query` and `where`, best first (BM25, fused with a dense
        leg if set); the filter is applied while ranking, so `limit` hits come back when
        that many match.

        An empty query (only spaces) with a filter lists what the filter keeps, newest
        first by when it happened or arrived, each hit with score 0.0 ("what happened
        yesterday"). Raises EmptyQueryError for an empty query without a filter and for
        an all-stopword query.
        """
        _check_limit(limit)
        limit = min(limit, RECALL_LIMIT_MAX)
        wanted = owner.coerce_tiers(tiers)
        if not isinstance(where, MemoryFilter):
            raise InvalidMemoryError("where", "must be a MemoryFilter")
        if isinstance(query, str) and not query.strip() and where.active:
            now = self.now()
            listed = await self.read(lambda conn: maintenance.list_records(
                conn, now, include_inactive=False, limit=limit, tiers=wanted, where=where,
                by_time=True))
            return [RecallHit(record, 0.0) for record in listed]
        terms = query_terms(query)
        if not terms:
            raise EmptyQueryError()
        now_us = to_us(self.now())
        window = self._newer_within
        if self._embedder is not None:
            index = self._vectors
            assert index is not None
            cache = self._recall_cache
            early = None
            if getattr(self._embedder, "question_threads", 1) > 1:
                # the question takes both cores: the BM25 leg after it, not beside it
                vector = await self._query_vector(query)
            else:  # the question's embedding (most of the time) and the BM25 leg at once
                embedding = asyncio.ensure_future(self._query_vector(query))
                try:
                    early = await self.read(lambda conn: hybrid.lexical_leg(
                        conn, terms, wanted, now_us, limit, cache, where, write_mark(conn)))
                    vector = await embedding
                finally:
                    embedding.cancel()  # (a no-op once done) not left running after an error
            asked = HybridQuery(terms, vector, wanted, now_us, limit, window,
                                hybrid.DENSE_WEIGHT, where, tuple(query_words(query)))

            def fused(conn: sqlite3.Connection) -> list[tuple[MemoryRecord, float]]:
                return hybrid_search(conn, asked, index, cache, write_mark(conn), early)

            return [RecallHit(record, score) for record, score in await self.read(fused)]
        cache = self._recall_cache

        def job(conn: sqlite3.Connection) -> list[tuple[MemoryRecord, float]]:
            found = search(
                conn, terms, now_us=now_us, tiers=wanted,
                limit=limit + TIEBREAK_EXTRA if window > 0 else limit,
                cache=cache, where=where,
            )
            return prefer_newer(conn, found, terms, window)[:limit]

        hits = await self.read(job)
        return [RecallHit(record, score) for record, score in hits]

    async def _query_vector(self, query: str) -> Any:
        """The embedding of `query` (the last QUERY_VECTORS_KEPT queries are kept)."""
        embedder = self._embedder
        assert embedder is not None
        kept = self._query_vectors
        vector = kept.pop(query, None)
        if vector is None:
            vector = await asyncio.to_thread(embedder.query, query)
        kept[query] = vector
        while len(kept) > QUERY_VECTORS_KEPT:
            del kept[next(iter(kept))]
        return vector

    async def index_vectors(self, *, max_rows: int = 256) -> int:
        """Embed up to `max_rows` active memories that have no vector of the store's model
        (written by another process, an older release, or before a crash), in batches of
        EMBED_BATCH so that a recall waits at most one batch for the model. Returns how
        many were stored; 0 without an embedder."""
        embedder = self._embedder
        if embedder is None:
            return 0
        done = 0
        while done < max_rows:
            want = min(EMBED_BATCH, max_rows - done)
            items = await self.read(partial(vectors.pending, model=embedder.name, limit=want))
            if not items:
                break
            found = await asyncio.to_thread(embedder.documents, [doc for _, doc in items])
            stored = await self.transaction(
                partial(vectors.put, model=embedder.name, items=items, vectors=found)
            )
            done += len(items)
            if stored == 0 and len(items) < want:
                break
        return done

    async def vector_coverage(self) -> tuple[int, int]:
        """(active memories with a vector of the store's model, active memories); (0, n)
        without an embedder."""
        name = self._embedder.name if self._embedder is not None else ""
        return await self.read(lambda conn: vectors.coverage(conn, name))

    async def neighbours(
        self,
        memory_ids: Sequence[str],
        *,
        limit: int = 5,
        tiers: Collection[Tier] = (Tier.LONG_TERM,),
    ) -> dict[str, list[tuple[MemoryRecord, float]]]:
        """The meaning of stored memories compared: for each of `memory_ids` that has a
        vector, the `limit` live memories of `tiers` whose vectors are most alike, with
        the cosine, best first (the memory itself left out). {} without an embedder; a
        memory not yet embedded is absent (`index_vectors` embeds what lacks a vector)."""
        _check_limit(limit)
        index = self._vectors
        if index is None or not memory_ids:
            return {}
        wanted = owner.coerce_tiers(tiers)
        now_us = to_us(self.now())
        ids = list(memory_ids)

        def job(conn: sqlite3.Connection) -> dict[str, list[tuple[MemoryRecord, float]]]:
            found = vectors.neighbours(conn, index, write_mark(conn), ids, tiers=wanted,
                                       now_us=now_us, limit=limit)
            rowids = sorted({rid for pairs in found.values() for rid, _ in pairs})
            records: dict[int, MemoryRecord] = {}
            for start in range(0, len(rowids), 500):
                chunk = rowids[start:start + 500]
                marks = ", ".join("?" for _ in chunk)
                for row in conn.execute(
                    f"SELECT rowid, {COLUMNS} FROM memories WHERE rowid IN ({marks})", chunk
                ):
                    records[int(row[0])] = record_from_row(tuple(row[1:]))
            return {mid: [(records[rid], cos) for rid, cos in pairs if rid in records]
                    for mid, pairs in found.items()}

        return await self.read(job)

    async def word_counts(self, words: Collection[str]) -> tuple[dict[str, int], int]:
        """How common each of `words` is in what the store holds: for each word, the
        number of live indexed memories whose search text holds its (first) search form,
        and the number of indexed memories. A word without a search form (a function
        word) is absent. Reading only."""
        forms = {w: f[0] for w in dict.fromkeys(words) if (f := query_terms(w))}
        terms = sorted(set(forms.values()))

        def job(conn: sqlite3.Connection) -> tuple[dict[str, int], int]:
            found: dict[str, int] = {}
            for start in range(0, len(terms), 256):
                found.update(doc_freqs(conn, terms[start:start + 256]))
            total = conn.execute("SELECT count(*) FROM memories_fts").fetchone()[0]
            return {w: found.get(t, 0) for w, t in forms.items()}, int(total)

        return await self.read(job)

    async def related(
        self, text: str, *, limit: int = 5, tiers: Collection[Tier] = PERSONAL_TIERS
    ) -> list[MemoryRecord]:
        """Records related to `text` (same search as recall); [] when it has no words."""
        if not query_terms(text):
            return []
        return [hit.record for hit in await self.recall(text, limit=limit, tiers=tiers)]

    async def related_many(
        self,
        texts: Sequence[str],
        *,
        limit: int = 5,
        tiers: Collection[Tier] = PERSONAL_TIERS,
    ) -> list[list[MemoryRecord]]:
        """Related records for each of `texts`, in order, in ONE store-thread job.

        Each lookup uses the text's rarest few indexed terms (`memory.recall.
        related_search`): bounded context for a batch, cheaper than `recall`. A
        text without words gets []. Cancellation: see the module docstring (read only).
        """
        _check_limit(limit)
        return (await self.batch_context(texts, limit=limit, tiers=tiers)).related

    async def batch_context(
        self,
        texts: Sequence[str],
        *,
        limit: int = 5,
        tiers: Collection[Tier] = PERSONAL_TIERS,
        subjects: Sequence[str] = (),
    ) -> BatchContext:
        """`related_many(texts)`, `recent_rejections()` and the live record of each of
        `subjects` in ONE store-thread job (one snapshot). Cancellation: see the module
        docstring (read only).
        """
        _check_limit(limit)
        limit = min(limit, RECALL_LIMIT_MAX)
        now_us = to_us(self.now())
        wanted = owner.coerce_tiers(tiers)
        term_lists = [query_terms(t) for t in texts]
        generation = self._writes
        cache = self._dfs

        def job(conn: sqlite3.Connection) -> BatchContext:
            related: list[list[MemoryRecord]] = [[] for _ in term_lists]
            if any(term_lists):
                dfs = cache.lookup(conn, {t for terms in term_lists for t in terms}, generation)
                memo: dict[str, list[MemoryRecord]] = {}  # texts choosing the same terms
                related = [
                    list(related_search(conn, terms, now_us=now_us, tiers=wanted, limit=limit,
                                        dfs=dfs, memo=memo)) if terms else []
                    for terms in term_lists
                ]
            return BatchContext(
                related, owner.recent_rejections(conn), _by_subject(conn, subjects, now_us)
            )

        return await self.read(job)

    # -- agent and owner ---------------------------------------------------------------

    async def save_memory(
        self,
        text: str,
        *,
        kind: Kind,
        sources: Sequence[SourceRef | str],
        tier: Tier = Tier.LONG_TERM,
        authority: Authority = Authority.DIRECT_USER_STATEMENT,
        subject: str | None = None,
    ) -> SaveResult:
        """The agent's explicit save: returns an existing (near-)duplicate instead of a copy."""
        text = validate_text(text)
        refs = validate_sources(sources)
        tier, kind, authority = Tier(tier), Kind(kind), Authority(authority)
        kinds = DEVICE_KINDS if tier is Tier.DEVICE else PERSONAL_KINDS
        if kind not in kinds:
            raise InvalidMemoryError("kind", f"{kind.value} is not allowed in tier {tier.value}")
        tiers = (Tier.DEVICE,) if tier is Tier.DEVICE else PERSONAL_TIERS
        now = self.now()
        ttls = self._ttls

        def job(conn: sqlite3.Connection) -> SaveResult:
            owner.check_not_rejected(conn, text)
            existing = owner.find_duplicate(conn, text, tiers, now)
            if existing is not None:
                return SaveResult(existing, created=False)
            intent = MemoryIntent(
                op=IntentOp.CREATE, memory_id=owner.new_memory_id(), tier=tier, kind=kind,
                text=text, authority=authority, sources=refs, subject=subject, auto=False,
            )
            result = apply_intents(
                conn, [intent], now=now, temporary_ttl=ttls[0], long_term_ttl=ttls[1],
                origin="host",
            )
            return SaveResult(result.records[0], created=True)

        saved = await self.transaction(job)
        if saved.created:
            await self.index_vectors(max_rows=EMBED_AFTER_WRITE)
        return saved

    async def update_memory(
        self, memory_id: str, text: str, *, expected_revision: int,
        authority: Authority = Authority.DIRECT_USER_STATEMENT, origin: str = "host",
    ) -> MemoryRecord:
        """Replace a live memory's text (compare-and-set on `expected_revision`:
        `RevisionConflictError` when it moved on). Refused as `save_memory` is: a secret
        (`SecretInStatementError`), a text the owner rejected (`RejectedContentError`),
        and a memory of higher authority than `authority` (`AuthorityError`)."""
        text = validate_text(text)
        if not isinstance(expected_revision, int) or isinstance(expected_revision, bool) \
                or expected_revision < 1:
            raise InvalidMemoryError("expected_revision", "must be a positive integer (the "
                                     "revision the caller read)")
        intent = MemoryIntent(
            op=IntentOp.UPDATE, memory_id=memory_id, expected_revision=expected_revision,
            text=text, authority=Authority(authority),
            sources=(SourceRef(SourceKind.AGENT, origin),),
        )
        result = await self.apply([intent], origin=origin)
        return result.records[0]

    async def history(self, memory_id: str) -> list[MemoryRevision]:
        """Every revision of a memory, oldest first, with its text then (its content:
        for the host only). `MemoryNotFoundError` when no such memory is stored (a
        memory compacted by cleanup takes its history with it)."""

        def job(conn: sqlite3.Connection) -> list[MemoryRevision]:
            if fetch_record(conn, memory_id) is None:
                raise MemoryNotFoundError(memory_id)
            return memory_history.read(conn, memory_id)

        return await self.read(job)

    async def forget(self, memory_id: str, reason: str) -> MemoryRecord:
        """Tombstone a memory as the owner's rejection; its text is refused from now on.

        No copy of the text stays in the database files (`owner.forget`), the WAL
        included: the write is followed by a truncating checkpoint."""
        reason = owner.validate_reason(reason)
        now = self.now()

        def job(conn: sqlite3.Connection) -> MemoryRecord:
            record = _write(lambda c: owner.forget(c, memory_id, reason, now), self._emit)(conn)
            maintenance.purge_freed(conn)
            return record

        self._writes += 1
        return await self._worker.run(job)

    async def recent_rejections(self) -> list[str]:
        """The 8 newest rejected texts (180 chars each, 1600 in all), newest first."""
        return await self.read(owner.recent_rejections)

    async def rejected_many(self, texts: Sequence[str]) -> list[bool]:
        """`is_rejected` for each of `texts`, in order, in one store-thread job."""
        norms = [normalize_text(t) if isinstance(t, str) else "" for t in texts]
        if not norms:
            return []
        return await self.read(lambda conn: [is_rejected_norm(conn, n) for n in norms])

    async def is_rejected(self, text: str) -> bool:
        norm = normalize_text(text) if isinstance(text, str) else ""
        return await self.read(lambda conn: is_rejected_norm(conn, norm))

    # -- listing and maintenance -------------------------------------------------------

    async def list_records(
        self, *, tier: Tier | None = None, include_inactive: bool = False, limit: int = 1000,
        where: MemoryFilter = NO_FILTER, by_time: bool | None = None,
    ) -> list[MemoryRecord]:
        """Memories newest first: by when their content happened or arrived when
        `by_time` (default: when `where` bounds the time), else by last update."""
        if not isinstance(where, MemoryFilter):
            raise InvalidMemoryError("where", "must be a MemoryFilter")
        now = self.now()
        ordered = where.by_time if by_time is None else bool(by_time)
        return await self.read(
            lambda conn: maintenance.list_records(
                conn, now, tier=tier, include_inactive=include_inactive, limit=limit,
                where=where, by_time=ordered,
            )
        )

    async def export(self) -> list[dict[str, Any]]:
        """Every live record and tombstone as JSON-ready dicts (one per JSON Lines line)."""
        now = self.now()
        return await self.read(lambda conn: maintenance.export(conn, now))

    async def delete_all(self) -> int:
        """Delete every memory, tombstone and rejection; returns the memories removed."""
        return await self.transaction(maintenance.delete_all)

    async def cleanup_expired(self) -> CleanupStats:
        """Compact expired, deleted and superseded rows to id tombstones; vacuum freed pages."""
        now = self.now()

        def job(conn: sqlite3.Connection) -> CleanupStats:
            before = maintenance.database_bytes(conn)
            removed = _write(lambda c: maintenance.cleanup_expired(c, now), self._emit)(conn)
            if removed == 0:
                return CleanupStats(removed=0, bytes_freed=0)
            maintenance.compact(conn)
            return CleanupStats(removed, max(0, before - maintenance.database_bytes(conn)))

        self._writes += 1
        return await self._worker.run(job)

    @property
    def corruption_seen(self) -> bool:
        """A call failed with `StoreCorruptError` since the store opened or was repaired."""
        return self._worker.corruption_seen

    async def check(self, *, full: bool = True) -> StoreHealth:
        """Check the database (`PRAGMA integrity_check`, or `quick_check` when not
        `full`) and the full-text index (FTS5's integrity check, its structure, that it
        indexes exactly the active memories); changes nothing (`memory.fts_index`)."""

        def job(conn: sqlite3.Connection) -> StoreHealth:
            conn.execute("BEGIN IMMEDIATE")  # FTS5's check is an INSERT; nothing is kept
            try:
                return fts_index.check(conn, full=full)
            finally:
                conn.execute("ROLLBACK")

        return await self._worker.run(job)

    async def repair_index(self) -> RepairResult:
        """Derive the full-text index again from the memories, whatever state it is in,
        and check the result; loses no memory. Refuses (`StoreCorruptError`) when the
        database itself fails SQLite's integrity check: that is not the index's damage
        and rebuilding the index would not mend it."""

        def job(conn: sqlite3.Connection) -> RepairResult:
            conn.execute("BEGIN IMMEDIATE")
            try:
                before = fts_index.check(conn)
                if not before.database_ok:
                    raise StoreCorruptError("its contents (SQLite's integrity check)")
                rows = fts_index.repair(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("BEGIN IMMEDIATE")
            try:
                after = fts_index.check(conn)
            finally:
                conn.execute("ROLLBACK")
            maintenance.purge_freed(conn)
            return RepairResult(indexed=rows, before=before, after=after)

        self._writes += 1
        result = await self._worker.run(job)
        self._recall_cache = RecallCache()
        self._dfs = DocFreqCache()
        if result.after.ok:
            self._worker.corruption_seen = False
        return result

    async def stats(self) -> dict[str, int]:
        now = self.now()
        return await self.read(lambda conn: maintenance.stats(conn, now))


def _by_subject(
    conn: sqlite3.Connection, subjects: Sequence[str], now_us: int
) -> dict[str, MemoryRecord]:
    found: dict[str, MemoryRecord] = {}
    for subject in dict.fromkeys(subjects):
        row = conn.execute(
            f"SELECT {COLUMNS} FROM memories WHERE subject = ? AND status = 'active' "
            "AND (expires_us IS NULL OR expires_us > ?) ORDER BY updated_us DESC LIMIT 1",
            (subject, now_us),
        ).fetchone()
        if row is not None:
            found[subject] = record_from_row(row)
    return found
