"""Full-text recall over the `memories_fts` index (FTS5, BM25); `memory.hybrid` fuses it
with the embedding's cosine when the store has an embedder.

User text never reaches FTS5 as syntax: the query is split into words the same
way the `unicode61` tokenizer splits them, stopwords are dropped, and each word
is sent as a quoted string joined with OR. An empty or all-stopword query raises
`EmptyQueryError` instead of scanning everything.

Ranking is `ORDER BY bm25(memories_fts)` (35-52% faster than `ORDER BY
rank` when measured on this class of machine). Only active rows are in the index;
tier and expiry are filtered in the same statement.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import NamedTuple

from companion_memory.memory.errors import EmptyQueryError
from companion_memory.memory.filters import NO_FILTER, MemoryFilter
from companion_memory.memory.fts_index import indexed_rows
from companion_memory.memory.records import MemoryRecord, Tier
from companion_memory.memory.rows import COLUMNS, record_from_row
from companion_memory.memory.search_text import (
    fold,
    joined_words,
    language,
    search_document,
    word_forms,
    words_of,
)
from companion_memory.memory.stopwords import BASE_WORDS, dropped

STOPWORDS = BASE_WORDS
"""English and German function words plus assistant filler ("remind", "tell") that carry
no topic (folded: "für" is "fur"), left out of every question (`memory.stopwords`; another
locale's are left out of a question that speaks it)."""

MAX_QUERY_TERMS = 32


def query_terms(text: str) -> list[str]:
    """The searchable terms of `text`: each word's English and German stems, folded
    (`memory.search_text.word_forms`), function words dropped (`memory.stopwords`:
    English and German always, another locale's when the question speaks it), order
    kept, unique.

    A hyphenated word also gives its joined form ("wi-fi": `wi`, `fi`, `wifi`), which
    the index holds for hyphenated words (`memory.search_text`). A run of Chinese,
    Japanese or Korean characters gives its character bigrams, as the index holds it
    ("歯医者": `歯医`, `医者`), so a word inside a run is found.
    """
    terms = [form for forms in query_words(text) for form in forms]
    return list(dict.fromkeys(terms))[:MAX_QUERY_TERMS]


def query_words(text: str) -> list[tuple[str, ...]]:
    """The searchable forms of each word of `text` that is not a stopword, in order (what
    `query_terms` flattens): a word found by any of its forms is found once."""
    if not isinstance(text, str):
        return []
    folded = text.casefold()
    words = words_of(folded)
    if "-" in folded or "\u2010" in folded or "\u2011" in folded:
        words += joined_words(folded)
    langs = language(words)
    skip = dropped(fold(w) for w in words)
    return [tuple(word_forms(w, langs)) for w in words if fold(w) not in skip]


def match_expression(terms: Sequence[str]) -> str:
    """An FTS5 MATCH string: each term quoted (so it is never syntax), joined with OR."""
    if not terms:
        raise EmptyQueryError()
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def doc_freqs(conn: sqlite3.Connection, terms: Sequence[str]) -> dict[str, int]:
    """How many indexed rows hold each of `terms` (search forms); a term none holds is
    absent."""
    if not terms:
        return {}
    marks = ", ".join("?" for _ in terms)
    rows = conn.execute(
        f"SELECT term, doc FROM memories_vocab WHERE term IN ({marks})", tuple(terms)
    ).fetchall()
    return {str(term): int(doc) for term, doc in rows}


_doc_freqs = doc_freqs


BM25_K1 = 1.2
BM25_B = 0.75
"""FTS5's built-in bm25() constants; the pruning bound below depends on k1."""


def term_bound(n_docs: int, doc_freq: int) -> float:
    """An upper bound of one term's share of a row's FTS5 bm25() score.

    FTS5 adds idf * tf*(k1+1) / (tf + k1*(1-b+b*len/avglen)) per phrase, with
    idf = ln((N-df+0.5)/(df+0.5)) (1e-6 when not positive); the tf fraction is
    below k1+1 for any tf and length.
    """
    idf = math.log((n_docs - doc_freq + 0.5) / (doc_freq + 0.5)) if n_docs else 0.0
    return (idf if idf > 0 else 1e-6) * (BM25_K1 + 1)


def _exclusive_matches(new: Sequence[str], seen: Sequence[str], rest: Sequence[str]) -> list[str]:
    """MATCH strings for the rows holding a `new` term but no `seen` term.

    Every phrase occurs once in each string, so FTS5's bm25() over them equals
    bm25() of the plain OR query of all the terms (same phrases, same idf) for
    these rows. Two strings split the rows by whether they hold a `rest` term.
    """
    head = f"({match_expression(new)})"
    if not rest:
        return [f"{head} NOT ({match_expression(seen)})" if seen else head]
    others = match_expression(rest)
    if not seen:
        return [f"{head} AND ({others})", f"{head} NOT ({others})"]
    return [
        f"({head} AND ({others})) NOT ({match_expression(seen)})",
        f"{head} NOT ({match_expression([*seen, *rest])})",
    ]


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's `PRAGMA data_version` on `conn`: it changes when another connection to
    the file (another MemoryStore, another process) commits, and never for this
    connection's own commits. Inside a read transaction it is the snapshot's."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def write_mark(conn: sqlite3.Connection) -> tuple[int, int]:
    """A value that changes whenever the database may have changed since it was last
    read on `conn`: `data_version` for other connections' commits, `total_changes`
    (rows this connection inserted, updated or deleted, triggers included) for its own
    writes. Costs one pragma; no table is read."""
    return data_version(conn), conn.total_changes


class RecallCache:
    """Exact per-term statistics for `search`, valid while the database is unchanged.

    Holds the index's row count, document counts (`memories_vocab.doc` walks a
    term's whole posting list) and term ceilings (the highest bm25() share the
    term has in any row: one scoring pass over its rows). All are dropped when the
    connection's `write_mark` moves, whoever wrote (this store, another store on
    the file, another process), so pruning never rests on stale figures; while
    nothing is written they are kept. Store thread only.
    """

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self.n_docs = 0
        self._dfs: dict[str, int] = {}
        self._ceilings: dict[str, float] = {}
        self.rebuilds = 0
        """How often the statistics were dropped and the row count re-read."""

    def refresh(self, conn: sqlite3.Connection, generation: int | None = None) -> None:
        """Drop everything unless the database is unchanged since the last refresh.

        Unchanged: the same `write_mark(conn)` and the same `generation` (an extra key
        a caller may add). Call it inside the read transaction the search runs in, so
        the statistics and the rows come from one snapshot."""
        key = (generation, *write_mark(conn))
        if key != self._key:
            self._dfs.clear()
            self._ceilings.clear()
            self.n_docs = indexed_rows(conn)
            self._key = key
            self.rebuilds += 1
        if len(self._dfs) > DF_CACHE_TERMS:
            self._dfs.clear()
            self._ceilings.clear()

    def doc_freqs(self, conn: sqlite3.Connection, terms: Sequence[str]) -> dict[str, int]:
        missing = [t for t in terms if t not in self._dfs]
        if missing:
            found = _doc_freqs(conn, missing)
            for term in missing:
                self._dfs[term] = found.get(term, 0)
        return self._dfs

    def ceiling(self, conn: sqlite3.Connection, term: str) -> float:
        value = self._ceilings.get(term)
        if value is None:
            row = conn.execute(
                "SELECT bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ? "
                "ORDER BY bm25(memories_fts) LIMIT 1",
                (match_expression([term]),),
            ).fetchone()
            value = -float(row[0]) if row is not None and row[0] is not None else 0.0
            self._ceilings[term] = value
        return value


PLAIN_QUERY_POSTINGS = 4_096
"""`search` runs the plain OR query (one statement, no pruning) when the query's terms
have at most this many postings in all: scoring that many rows costs less than the
pruning's statements, each of which FTS5 plans on its own (and FTS5 since 3.4x
evaluates their NOT clauses per segment, 20x slower than 3.40 did)."""

FIRST_STEP_SHARE = 0.002
"""The first pruning step takes every term held by at most this share of rows."""


def search(
    conn: sqlite3.Connection,
    terms: Sequence[str],
    *,
    now_us: int,
    tiers: Collection[Tier],
    limit: int,
    cache: RecallCache | None = None,
    generation: int | None = None,
    where: MemoryFilter = NO_FILTER,
) -> list[tuple[MemoryRecord, float]]:
    """Top `limit` live records in `tiers` (and matching `where`) by BM25; scores are
    positive (higher is better).

    The exact top-k of the plain OR query (`ORDER BY bm25()` over every matching
    row) while scoring a bounded candidate set (max-score pruning): terms are
    taken rarest first; each step scores, with FTS5's bm25() over all query
    terms, the rows that hold a newly taken term and none taken before. It stops
    once `limit` rows are found and the k-th score beats the summed bounds of the
    terms not yet taken (any row not yet scored holds only those): first
    `term_bound`, then the cached exact ceilings. `cache` holds the per-term
    statistics while the file is unchanged (`RecallCache`; a fresh one when None);
    `generation` is an extra key of the cache a caller may add. Terms the index
    does not know by that spelling (df 0, e.g. diacritics) are taken first. When the
    terms' postings total at most `PLAIN_QUERY_POSTINGS`, the plain OR query itself
    runs (ties in rowid order).
    """
    tier_values = sorted({Tier(t).value for t in tiers})
    if not terms or not tier_values or limit <= 0:
        return []
    stats = cache if cache is not None else RecallCache()
    stats.refresh(conn, generation)
    dfs = stats.doc_freqs(conn, terms)
    marks = ", ".join("?" for _ in tier_values)
    cols = ", ".join(f"m.{c.strip()}" for c in COLUMNS.split(","))
    extra, extra_params = where.sql("m")
    filters = (
        f"m.status = 'active' AND m.tier IN ({marks}) "
        f"AND (m.expires_us IS NULL OR m.expires_us > ?){extra}"
    )
    kept = (*tier_values, now_us, *extra_params)
    if sum(dfs.get(t, 0) for t in terms) <= PLAIN_QUERY_POSTINGS:
        rows = conn.execute(
            "SELECT c.score, " + cols + " FROM (SELECT rowid AS rid, bm25(memories_fts) AS "
            "score FROM memories_fts WHERE memories_fts MATCH ?) AS c CROSS JOIN memories AS m "
            f"ON m.rowid = c.rid WHERE {filters} ORDER BY c.score, m.rowid LIMIT ?",
            (match_expression(terms), *kept, limit),
        ).fetchall()
        return [(record_from_row(tuple(r[1:])), -float(r[0])) for r in rows]
    order = sorted(terms, key=lambda t: dfs[t])
    bounds = [term_bound(stats.n_docs, dfs[t]) for t in order]
    unknown = sum(1 for t in order if dfs[t] == 0)
    rare = sum(1 for t in order if 0 < dfs[t] <= FIRST_STEP_SHARE * stats.n_docs)
    first = min(len(order), unknown + max(1, rare))
    best: list[tuple[float, tuple[object, ...]]] = []
    taken = 0
    while taken < len(order):
        step = first if taken == 0 else 1
        new, seen, rest = order[taken:taken + step], order[:taken], order[taken + step:]
        taken += step
        matches = _exclusive_matches(new, seen, rest)
        inner = " UNION ALL ".join(
            "SELECT rowid AS rid, bm25(memories_fts) AS score FROM memories_fts "
            "WHERE memories_fts MATCH ?" for _ in matches
        )
        rows = conn.execute(
            f"SELECT c.score, {cols} FROM (SELECT * FROM ({inner}) ORDER BY score LIMIT ?) "
            f"AS c CROSS JOIN memories AS m ON m.rowid = c.rid WHERE {filters} ORDER BY c.score",
            (*matches, limit, *kept),
        ).fetchall()
        if len(rows) < limit:  # the filters dropped some of the best: rank them all
            rows = conn.execute(
                f"SELECT c.score, {cols} FROM ({inner}) AS c CROSS JOIN memories AS m "
                f"ON m.rowid = c.rid WHERE {filters} ORDER BY c.score LIMIT ?",
                (*matches, *kept, limit),
            ).fetchall()
        best = sorted(
            [*best, *((float(r[0]), tuple(r[1:])) for r in rows)], key=lambda item: item[0]
        )[:limit]
        if len(best) < limit or taken == len(order):
            continue
        if -best[-1][0] > sum(bounds[taken:]) or -best[-1][0] > sum(
            stats.ceiling(conn, t) for t in order[taken:]
        ):
            break
    return [(record_from_row(row), -score) for score, row in best]


NEWER_WITHIN = 0.2
"""Default `prefer_newer` window: a newer hit that matches every query term an older one
matches is ranked above it when its score is at least (1 - this) of the older one's."""
TIEBREAK_EXTRA = 3
"""Candidates beyond `limit` scored for the tie-break, so a newer hit just below the cut
can take the place of an older one."""


def content_time(record: MemoryRecord) -> datetime:
    """When what a memory says happened or arrived: its newest source notification's
    posting time (`occurred_at`), else when it was last written. A day's consolidated line
    written tonight is as old as the messages it cites, not newer than one that came
    after them."""
    if record.occurred_at is not None:
        return record.occurred_at
    return max(record.created_at, record.updated_at)


def prefer_newer(
    conn: sqlite3.Connection,
    hits: list[tuple[MemoryRecord, float]],
    terms: Sequence[str],
    window: float,
    *,
    same: Callable[[MemoryRecord, MemoryRecord], bool] | None = None,
    same_window: float = 0.0,
) -> list[tuple[MemoryRecord, float]]:
    """`hits` (best first) with a newer hit moved above older ones that it nearly ties
    (newer by what it says: `content_time`).

    "About the same thing" is judged against the query: the newer hit's indexed words
    must include every query term the older one holds. Or by a reference both hold: the
    same order, booking or flight number (`_is_code`), whatever else the change says
    ("we could not deliver order 250507K9Q2 today" after "order 250507K9Q2 (air fryer)
    shipped"). "Nearly ties": its score is at
    least (1 - `window`) of the older one's. A moved appointment, a changed platform or a
    corrected address then comes before what it replaced when the two score alike.
    `same(older, newer)` (the hybrid recall passes the two memories' meaning) is a
    second test of "about the same thing", with its own window `same_window`.
    """
    if window <= 0 or len(hits) < 2:
        return hits
    wanted = set(terms)
    held: dict[str, set[str]] = {}
    codes: dict[str, set[str]] = {}

    def read() -> None:
        # read and stem the candidates' words only once a swap is possible at all
        ids = [record.memory_id for record, _ in hits]
        marks = ", ".join("?" for _ in ids)
        for mid, text, detail in conn.execute(
            f"SELECT memory_id, text, detail FROM memories WHERE memory_id IN ({marks})", ids
        ):
            words = set(search_document(str(text), str(detail or "")).split())
            held[str(mid)] = wanted & words
            codes[str(mid)] = {w for w in words if _is_code(w)}

    def terms_of(memory_id: str) -> set[str]:
        if not held:
            read()
        return held.get(memory_id, set())

    def same_code(older: str, newer: str) -> bool:
        if not held:
            read()
        return bool(codes.get(older, set()) & codes.get(newer, set()))

    out = list(hits)
    for i in range(1, len(out)):
        j = i
        while j > 0:
            older, newer = out[j - 1], out[j]
            if not (
                content_time(newer[0]) > content_time(older[0])
                and (
                    (
                        newer[1] >= (1 - window) * older[1]
                        and (
                            (
                                bool(shared := terms_of(older[0].memory_id))
                                and shared <= terms_of(newer[0].memory_id)
                            )
                            or same_code(older[0].memory_id, newer[0].memory_id)
                        )
                    )
                    or (
                        same is not None
                        and newer[1] >= (1 - same_window) * older[1]
                        and same(older[0], newer[0])
                    )
                )
            ):
                break
            out[j - 1], out[j] = newer, older
            j -= 1
    return out


CODE_MIN_CHARS = 5


def _is_code(word: str) -> bool:
    """An order, booking, flight or reference number: letters and digits in one word of
    at least CODE_MIN_CHARS ("250507k9q2", "ak712", "po2291" from "PO-2291")."""
    return (len(word) >= CODE_MIN_CHARS and word.isascii() and word.isalnum()
            and not word.isdigit() and not word.isalpha())


RELATED_TERMS = 4
"""At most this many of a text's rarest indexed terms drive a related-memory lookup."""

RELATED_POSTINGS = 256
"""Posting budget of a related-memory lookup: rarer terms are added while their summed
document counts stay within it (see `related_search`)."""

RELATED_WINDOW = 64
"""A related lookup ranks (BM25) only the newest this many rows its MATCH finds: ranking
costs ~1 us a row plus the join, and a lookup of rare terms may match RELATED_POSTINGS."""


DF_CACHE_TERMS = 4096
DF_CACHE_WRITES = 32
"""Cached document counts are dropped after this many store write transactions."""


class DocFreqCache:
    """Per-term document counts for choosing a lookup's rarest terms (store thread only).

    `memories_vocab.doc` walks a term's whole posting list, so it costs as much as
    the postings it counts. The counts only choose which terms a related lookup
    sends to FTS5 (what comes back is always a real, current FTS5 match ranked by
    BM25), so slightly stale counts are fine, except a stale 0, which would drop a
    term that a memory written since holds: a 0 is never reused. Counts are dropped after
    DF_CACHE_WRITES write transactions of this store, at once when another
    connection (another store on the file, another process) has committed
    (`data_version`), or when DF_CACHE_TERMS terms are held.
    """

    def __init__(self) -> None:
        self._dfs: dict[str, int] = {}
        self._generation = -1
        self._version: int | None = None

    def lookup(
        self, conn: sqlite3.Connection, terms: Collection[str], generation: int
    ) -> dict[str, int]:
        """`generation`: this store's write transactions so far."""
        version = data_version(conn)
        if (
            generation - self._generation >= DF_CACHE_WRITES
            or version != self._version
            or len(self._dfs) > DF_CACHE_TERMS
        ):
            self._dfs.clear()
            self._generation = generation
            self._version = version
        # a count of 0 is asked again every time: it would hide a memory written since
        # (the next notification from the same sender must see the one just made), and
        # asking for a term no row holds costs one vocabulary probe
        missing = [t for t in terms if not self._dfs.get(t)]
        for start in range(0, len(missing), 256):
            chunk = missing[start:start + 256]
            found = doc_freqs(conn, chunk)
            for term in chunk:
                self._dfs[term] = found.get(term, 0)
        return self._dfs


class RelatedQuery(NamedTuple):
    """What one related lookup sends to FTS5 (see `related_expression`)."""

    match: str
    rows: int
    """At most this many rows match (from the `dfs` it was chosen by; approximate when
    those counts are stale)."""
    common: bool
    """Even the rarest indexed term is in more than RELATED_POSTINGS rows."""


def related_expression(
    terms: Sequence[str], dfs: dict[str, int], *, max_terms: int = RELATED_TERMS
) -> RelatedQuery | None:
    """The MATCH of a related lookup; None when no term is indexed.

    The rarest terms are ORed while their summed document counts fit
    RELATED_POSTINGS (at most `max_terms`); when even the rarest is more common
    than that, the two rarest must both occur (the one term when it is alone).
    """
    present = sorted((t for t in terms if dfs.get(t, 0) > 0), key=lambda t: dfs[t])
    if not present:
        return None
    if dfs[present[0]] > RELATED_POSTINGS:
        if len(present) == 1:
            return RelatedQuery(match_expression(present), dfs[present[0]], True)
        both = f"{match_expression(present[:1])} AND {match_expression(present[1:2])}"
        return RelatedQuery(both, dfs[present[0]], True)
    chosen = present[:1]
    postings = dfs[present[0]]
    for term in present[1:max_terms]:
        if postings + dfs[term] > RELATED_POSTINGS:
            break
        postings += dfs[term]
        chosen.append(term)
    return RelatedQuery(match_expression(chosen), postings, False)


def related_search(
    conn: sqlite3.Connection,
    terms: Sequence[str],
    *,
    now_us: int,
    tiers: Collection[Tier],
    limit: int,
    max_terms: int = RELATED_TERMS,
    dfs: dict[str, int] | None = None,
    memo: dict[str, list[MemoryRecord]] | None = None,
) -> list[MemoryRecord]:
    """Top `limit` live records for the rarest few of `terms` that are indexed.

    A bounded lookup for context (the related memories shown next to a
    notification), cheaper than `search`: terms no live memory holds are dropped
    without a MATCH (no terms left: no query at all); the rarest terms form a
    BM25 OR query while their summed document counts fit RELATED_POSTINGS (at
    most `max_terms`); when it may match more than RELATED_WINDOW rows, only the
    newest RELATED_WINDOW matches are ranked. When even the rarest term is more
    common than RELATED_POSTINGS, the two rarest must both occur (AND) and the
    newest matches are returned unranked: every such row holds the same one or
    two terms, so BM25 would only reward short rows and repeats. So the cost
    follows a bounded number of postings and scored rows, not the text's most
    common words or the corpus size. Rows tied on BM25 come newest first.
    `dfs`: document counts to choose by (e.g. from a `DocFreqCache`); looked up
    when None. `memo`: results by MATCH string for
    lookups sharing one snapshot, tiers, limit and time (a batch), so texts that
    choose the same terms cost one query.
    """
    tier_values = sorted({Tier(t).value for t in tiers})
    if not terms or not tier_values or limit <= 0:
        return []
    if dfs is None:
        dfs = _doc_freqs(conn, terms)
    choice = related_expression(terms, dfs, max_terms=max_terms)
    if choice is None:
        return []
    expression = choice.match
    if memo is not None and expression in memo:
        return memo[expression]
    marks = ", ".join("?" for _ in tier_values)
    cols = ", ".join(f"m.{c.strip()}" for c in COLUMNS.split(","))
    floor = 0
    if choice.common:
        order = "memories_fts.rowid DESC"  # the newest matches; no scoring pass
    else:
        order = "bm25(memories_fts), memories_fts.rowid DESC"
        if choice.rows > RELATED_WINDOW:  # rank the newest RELATED_WINDOW matches, not all
            row = conn.execute(
                "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? "
                "ORDER BY rowid DESC LIMIT 1 OFFSET ?",
                (expression, RELATED_WINDOW - 1),
            ).fetchone()
            floor = int(row[0]) if row is not None else 0
    sql = (
        f"SELECT {cols} FROM memories_fts "
        "CROSS JOIN memories AS m ON m.rowid = memories_fts.rowid "
        "WHERE memories_fts MATCH ? AND memories_fts.rowid >= ? "
        f"AND m.status = 'active' AND m.tier IN ({marks}) "
        f"AND (m.expires_us IS NULL OR m.expires_us > ?) ORDER BY {order} LIMIT ?"
    )
    rows = conn.execute(sql, (expression, floor, *tier_values, now_us, limit)).fetchall()
    found = [record_from_row(row) for row in rows]
    if memo is not None:
        memo[expression] = found
    return found


def token_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the searchable words of two texts (0..1)."""
    left, right = set(query_terms(a)), set(query_terms(b))
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)
