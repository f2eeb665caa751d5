"""Hybrid recall: BM25 over the full-text index fused with the embedding's cosine.

Both legs give a candidate pool (the BM25 top `pool` and the cosine top `pool`); every
candidate is then scored on both signals, where known:

- lexical: its BM25 score over the best BM25 score of the pool (0 when the words do
  not match), times the share of the question the store's words can match at all
  (`known_share`: near 1 when asked in the memories' language, small when asked in
  another);
- dense: how far its cosine rises above the store's typical cosine to this query (the
  median over every stored vector, or `DENSE_BASELINE` while the store holds fewer
  than `BASELINE_MIN_VECTORS`: unrelated texts score about 0.75-0.8 with e5), in units
  of `DENSE_SCALE`, clipped to 0..1. A fixed scale, not the best candidate's rise: a
  store of a few memories would otherwise turn a difference of 0.01 into 0 against 1.
  A memory not yet embedded takes its lexical share here, neither helped nor hurt.

The fused score is `dense_weight * dense + (1 - dense_weight) * lexical`. A weighted
mix, not reciprocal rank fusion: RRF throws away how much better one candidate is, and
loses to the stronger leg when one leg is much stronger (docs/benchmarks.md). The
weight was chosen on the tuning corpus only (bench/hybrid_tune.py); the held-out,
blind and LifeBench figures are reported, never tuned on.

Then `prefer_newer` moves a newer memory about the same thing above an older one that
it nearly ties. "The same thing" is judged by the query's words (as without vectors)
or by meaning: the two memories' vectors are at least `SAME_MEANING` alike.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from companion_memory.memory.filters import NO_FILTER, MemoryFilter
from companion_memory.memory.recall import RecallCache, prefer_newer, search
from companion_memory.memory.records import MemoryRecord, Tier
from companion_memory.memory.rows import COLUMNS, record_from_row, to_us
from companion_memory.memory.vectors import VectorIndex, live_filter

DENSE_WEIGHT = 0.45
"""Share of the dense leg in the fused score (chosen on the tuning corpus)."""

DENSE_SCALE = 0.08
"""A cosine this far above the baseline counts as a full dense match."""

DENSE_BASELINE = 0.78
"""The baseline cosine of a store with few vectors (e5-small, unrelated texts)."""

BASELINE_MIN_VECTORS = 64

DENSE_FLOOR = 0.25
"""A candidate that matches none of the question's words is returned only when its dense
share reaches this (a cosine 0.02 above the baseline): a store always has a nearest
vector, and an unrelated memory is not an answer."""

POOL_MIN = 30
"""Each leg contributes at least this many candidates (3x the limit when larger)."""

SAME_MEANING = 0.93
"""Two memories whose vectors are at least this alike (cosine) are about the same thing
for `prefer_newer` (a rescheduled appointment and the original one)."""

SAME_MEANING_WINDOW = 0.5
"""A newer memory about the same thing by meaning is ranked above the older one when its
fused score is at least half the older one's: the change itself ("moved to Thursday")
often shares fewer words with the question than what it changed."""


@dataclass(frozen=True, slots=True)
class HybridQuery:
    terms: Sequence[str]
    vector: npt.NDArray[np.float32]
    tiers: Collection[Tier]
    now_us: int
    limit: int
    newer_within: float
    dense_weight: float = DENSE_WEIGHT
    where: MemoryFilter = NO_FILTER
    """Time, app, sender and kinds (`memory.filters`): both legs rank only what matches."""
    words: Sequence[Sequence[str]] = ()
    """The search forms of each of the question's words (`memory.recall.query_words`),
    for `known_share`; none: the lexical leg keeps its whole share."""


RECENT_BOOST = 1.0
RECENT_HOURS = 12.0
"""A Temporary memory's fused score is raised by up to RECENT_BOOST (x2 when just
written), fading with its age (e-folding RECENT_HOURS: x1.14 a day on): what arrived in
the last hours is what a question asked now is most often about, and once the daily
sweep keeps months of dated lines a recent memory would otherwise be crowded out by
older lines that share its words. Long-Term memories are not raised (a line written
today may be about a day weeks ago). Chosen on one LifeBench user (fenghaoran), asked one
hour after the evidence: a year, x1.5 over 24 h 0.592, x2 over 12 h 0.626 (0.623 before
the sweep kept anything), the month-end figure the same (0.377) for both."""


def known_share(conn: sqlite3.Connection, query: HybridQuery, cache: RecallCache) -> float:
    """How much of the question the lexical leg can match at all: the idf mass of the
    question's words that some memory holds (by any of the word's forms), over the idf
    mass of all its words, a word no memory holds counting FTS5's idf of an unknown term
    (ln((N + 0.5) / 0.5)). 1.0 when there are no words to weigh.

    Each candidate's lexical share is multiplied by it. Asked in the memories' language,
    nearly every word of a question is one the store knows, and BM25 ranks as before;
    asked in another language (an English question of Chinese notifications), most words
    are unknown, the few that match ("message", a number, an app's name) match by
    accident, and meaning decides. Before, the best BM25 match of the pool took the
    whole lexical share however little of the question it matched. Chosen on LifeBench's
    tuning user (fenghaoran) in its two editions (docs/benchmarks.md)."""
    words = [forms for forms in query.words if forms]
    if not words:
        return 1.0
    cache.refresh(conn)
    dfs = cache.doc_freqs(conn, list(dict.fromkeys(f for forms in words for f in forms)))
    n = cache.n_docs
    known = total = 0.0
    for forms in words:
        held = [dfs.get(f, 0) for f in forms if dfs.get(f, 0) > 0]
        df = max(held) if held else 0  # the word's commonest form in the store
        idf = max(math.log((n - df + 0.5) / (df + 0.5)) if n else 0.0, 1e-6)
        total += idf
        known += idf if held else 0.0
    return known / total if known > 0 else 1.0


def pool_size(limit: int) -> int:
    return max(POOL_MIN, 3 * limit)


@dataclass(frozen=True, slots=True)
class LexicalLeg:
    """The BM25 candidates of a question, read before its embedding is ready.

    The question's embedding takes most of a hybrid recall's time and needs no database,
    so when the question runs on one thread the store reads this leg meanwhile (the
    engine releases the GIL; on two cores the two run at once). `mark` is the
    connection's write mark when it was read: `hybrid_search` uses the leg only if the
    mark is unchanged, so a memory forgotten or changed in between is never returned
    from the earlier read."""

    mark: object
    hits: list[tuple[MemoryRecord, float]]
    rowid_of: dict[str, int]


def lexical_leg(
    conn: sqlite3.Connection,
    terms: Sequence[str],
    tiers: Collection[Tier],
    now_us: int,
    limit: int,
    cache: RecallCache,
    where: MemoryFilter,
    mark: object,
) -> LexicalLeg:
    """The BM25 pool of a hybrid recall and the rowids of its memories (one snapshot)."""
    hits = search(
        conn, terms, now_us=now_us, tiers=tiers, limit=pool_size(limit), cache=cache,
        where=where,
    ) if terms else []
    rowid_of: dict[str, int] = {}
    if hits:
        ids = [record.memory_id for record, _ in hits]
        marks = ", ".join("?" for _ in ids)
        rowid_of = {
            str(mid): int(rid) for mid, rid in conn.execute(
                f"SELECT memory_id, rowid FROM memories WHERE memory_id IN ({marks})", ids
            )
        }
    return LexicalLeg(mark, hits, rowid_of)


def hybrid_search(
    conn: sqlite3.Connection,
    query: HybridQuery,
    index: VectorIndex,
    cache: RecallCache,
    mark: object,
    early: LexicalLeg | None = None,
) -> list[tuple[MemoryRecord, float]]:
    """The top `query.limit` live records by the fused score, best first (one snapshot:
    call inside a read transaction). `mark`: the database's write mark, for the index;
    `early`: the BM25 leg read before the question's embedding was ready, used only if
    the mark has not moved since."""
    limit = query.limit
    pool = pool_size(limit)
    where = query.where
    if early is not None and early.mark == mark:
        lexical, rowid_of = early.hits, early.rowid_of
    else:  # not read ahead, or the store changed since: read it in this snapshot
        found = lexical_leg(conn, query.terms, query.tiers, query.now_us, limit, cache,
                            where, mark)
        lexical, rowid_of = found.hits, found.rowid_of
    index.refresh(conn, mark)
    rowids, sims = index.similarities(query.vector)
    baseline = DENSE_BASELINE
    if sims.size >= BASELINE_MIN_VECTORS:
        baseline = float(np.median(sims))  # the store's typical cosine, filter or not
    if where.active and sims.size:
        # only what the filter keeps competes for the pool, so a narrow filter still
        # gets its best matches (not the store's best, mostly filtered away)
        keep = np.isin(rowids, _matching(conn, query))
        rowids, sims = rowids[keep], sims[keep]
    by_rowid: dict[int, MemoryRecord] = {}
    lex_of: dict[int, float] = {}
    if lexical:
        top = max(score for _, score in lexical) or 1.0
        top /= known_share(conn, query, cache)
        for record, score in lexical:
            rid = rowid_of[record.memory_id]
            by_rowid[rid] = record
            lex_of[rid] = max(0.0, score) / top
    cos_of: dict[int, float] = {}
    if sims.size:
        n = min(sims.size, pool * 2)
        best = np.argpartition(-sims, n - 1)[:n]
        best = best[np.argsort(-sims[best], kind="stable")]
        wanted = [int(rowids[i]) for i in best]
        live = live_filter(conn, wanted, tiers=query.tiers, now_us=query.now_us,
                           where=where.sql())
        dense_ids = [rid for rid in wanted if rid in live][:pool]
        missing = [rid for rid in dense_ids if rid not in by_rowid]
        for start in range(0, len(missing), 500):
            chunk = missing[start:start + 500]
            marks = ", ".join("?" for _ in chunk)
            for row in conn.execute(
                f"SELECT rowid, {COLUMNS} FROM memories WHERE rowid IN ({marks})", chunk
            ):
                by_rowid[int(row[0])] = record_from_row(tuple(row[1:]))
        candidates = np.fromiter(by_rowid, dtype=np.int64)
        for at in np.nonzero(np.isin(rowids, candidates))[0]:
            cos_of[int(rowids[at])] = float(sims[at])
    weight = query.dense_weight
    scored: list[tuple[MemoryRecord, float, int]] = []
    for rid, record in by_rowid.items():
        lex = lex_of.get(rid, 0.0)
        cos = cos_of.get(rid)
        dense = lex if cos is None else min(1.0, max(0.0, (cos - baseline) / DENSE_SCALE))
        if lex == 0 and dense < DENSE_FLOOR:
            continue
        fused = weight * dense + (1 - weight) * lex
        if record.tier is Tier.TEMPORARY:
            age_h = max(0.0, (query.now_us - to_us(record.created_at)) / 3.6e9)
            fused *= 1.0 + RECENT_BOOST * math.exp(-age_h / RECENT_HOURS)
        scored.append((record, fused, rid))
    scored.sort(key=lambda item: (-item[1], -item[2]))
    head = scored[:limit + 3] if query.newer_within > 0 else scored[:limit]
    hits = [(record, score) for record, score, _ in head]
    if query.newer_within <= 0:
        return hits[:limit]
    rid_of = {record.memory_id: rid for record, _, rid in head}
    vec_of = index.vectors_of([rid for _, _, rid in head])

    def same_meaning(older: MemoryRecord, newer: MemoryRecord) -> bool:
        a, b = vec_of.get(rid_of[older.memory_id]), vec_of.get(rid_of[newer.memory_id])
        return a is not None and b is not None and float(a @ b) >= SAME_MEANING

    return prefer_newer(
        conn, hits, query.terms, query.newer_within, same=same_meaning,
        same_window=SAME_MEANING_WINDOW,
    )[:limit]


def _matching(conn: sqlite3.Connection, query: HybridQuery) -> npt.NDArray[np.int64]:
    """The rowids of the live memories in the query's tiers that its filter keeps."""
    tier_values = sorted({Tier(t).value for t in query.tiers})
    marks = ", ".join("?" for _ in tier_values)
    extra, params = query.where.sql()
    rows = conn.execute(
        f"SELECT rowid FROM memories WHERE status = 'active' AND tier IN ({marks}) "
        f"AND (expires_us IS NULL OR expires_us > ?){extra}",
        (*tier_values, query.now_us, *params),
    )
    return np.fromiter((int(r[0]) for r in rows), dtype=np.int64)
