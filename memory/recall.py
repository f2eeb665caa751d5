"""Full-text recall over the `memories_fts` index (FTS5, BM25), and the dense seam.

User text never reaches FTS5 as syntax: the query is split into words the same
way the `unicode61` tokenizer splits them, stopwords are dropped, and each word
is sent as a quoted string joined with OR. An empty or all-stopword query raises
`EmptyQueryError` instead of scanning everything.

Ranking is `ORDER BY bm25(memories_fts)` (research/durability.md: 35-52% faster
than `ORDER BY rank`). Only active rows are in the index; tier and expiry are
filtered in the same statement.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Sequence
from typing import Protocol, runtime_checkable

from memory.errors import EmptyQueryError
from memory.records import MemoryRecord, Tier
from memory.rows import COLUMNS, record_from_row

_WORD = re.compile(r"[^\W_]+")

_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself no nor not now of off on
    once only or other our ours ourselves out over own same she should so some such than
    that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves s t don doesn didn isn wasn weren won wouldn
    shouldn couldn ll re ve d m o y tell remind remember know anything something please
"""

STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""English function words plus assistant filler ("remind", "tell") that carry no topic."""

MAX_QUERY_TERMS = 32


def query_terms(text: str) -> list[str]:
    """The searchable words of `text`: casefolded, stopwords dropped, order kept, unique."""
    words = _WORD.findall(text.casefold()) if isinstance(text, str) else []
    terms = [w for w in words if w not in STOPWORDS]
    return list(dict.fromkeys(terms))[:MAX_QUERY_TERMS]


def match_expression(terms: Sequence[str]) -> str:
    """An FTS5 MATCH string: each term quoted (so it is never syntax), joined with OR."""
    if not terms:
        raise EmptyQueryError()
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


GATE_DOC_FREQ = 300
"""A term is 'common' when it is in more documents than this and than twice the rarest
query term (see `search`)."""


def _doc_freqs(conn: sqlite3.Connection, terms: Sequence[str]) -> dict[str, int]:
    marks = ", ".join("?" for _ in terms)
    rows = conn.execute(
        f"SELECT term, doc FROM memories_vocab WHERE term IN ({marks})", tuple(terms)
    ).fetchall()
    return {str(term): int(doc) for term, doc in rows}


def search(
    conn: sqlite3.Connection,
    terms: Sequence[str],
    *,
    now_us: int,
    tiers: Collection[Tier],
    limit: int,
) -> list[tuple[MemoryRecord, float]]:
    """Top `limit` live records in `tiers` by BM25; scores are positive (higher is better).

    Selective-term gate: when a query mixes selective terms (the rarest; see
    GATE_DOC_FREQ) with common ones, candidates are the documents holding at least
    one selective term, scored by BM25 over *all* query terms (two MATCH branches,
    `sel AND common` and `sel NOT common`, carry the same phrases and so the same
    IDFs as the plain OR query). Documents with only common terms are considered
    only when the candidates do not fill `limit`, by running the plain
    OR query. This keeps the cost proportional to the selective postings.
    """
    tier_values = sorted({Tier(t).value for t in tiers})
    if not tier_values or limit <= 0:
        return []
    marks = ", ".join("?" for _ in tier_values)
    cols = ", ".join(f"m.{c.strip()}" for c in COLUMNS.split(","))
    filters = (
        f"m.status = 'active' AND m.tier IN ({marks}) "
        "AND (m.expires_us IS NULL OR m.expires_us > ?)"
    )
    dfs = _doc_freqs(conn, terms) if len(terms) > 1 else {}
    gate = max(GATE_DOC_FREQ, 2 * min((dfs.get(t, 0) for t in terms), default=0))
    selective = [t for t in terms if dfs.get(t, 0) <= gate]
    common = [t for t in terms if dfs.get(t, 0) > gate]
    rows: list[sqlite3.Row] = []
    if selective and common:
        sel, com = match_expression(selective), match_expression(common)
        sql = (
            f"SELECT {cols}, c.score FROM ("
            "SELECT rowid AS rid, bm25(memories_fts) AS score FROM memories_fts "
            "WHERE memories_fts MATCH ? UNION ALL "
            "SELECT rowid AS rid, bm25(memories_fts) AS score FROM memories_fts "
            "WHERE memories_fts MATCH ?) AS c JOIN memories AS m ON m.rowid = c.rid "
            f"WHERE {filters} ORDER BY c.score LIMIT ?"
        )
        rows = conn.execute(
            sql, (f"({sel}) AND ({com})", f"({sel}) NOT ({com})", *tier_values, now_us, limit)
        ).fetchall()
    if len(rows) < limit:
        sql = (
            f"SELECT {cols}, bm25(memories_fts) AS score FROM memories_fts "
            "JOIN memories AS m ON m.rowid = memories_fts.rowid "
            f"WHERE memories_fts MATCH ? AND {filters} "
            "ORDER BY bm25(memories_fts) LIMIT ?"
        )
        rows = conn.execute(
            sql, (match_expression(terms), *tier_values, now_us, limit)
        ).fetchall()
    return [(record_from_row(row), -float(row[15])) for row in rows]


RELATED_TERMS = 4
"""At most this many of a text's rarest indexed terms drive a related-memory lookup."""

RELATED_POSTINGS = 256
"""Posting budget of a related-memory lookup: rarer terms are added while their summed
document counts stay within it (see `related_search`)."""


DF_CACHE_TERMS = 4096
DF_CACHE_WRITES = 32
"""Cached document counts are dropped after this many store write transactions."""


class DocFreqCache:
    """Per-term document counts for choosing a lookup's rarest terms (store thread only).

    `memories_vocab.doc` walks a term's whole posting list, so it costs as much as
    the postings it counts. The counts only choose which terms a related lookup
    sends to FTS5 (what comes back is always a real, current FTS5 match ranked by
    BM25), so slightly stale counts are fine: they are dropped after
    DF_CACHE_WRITES write transactions or when DF_CACHE_TERMS terms are held.
    """

    def __init__(self) -> None:
        self._dfs: dict[str, int] = {}
        self._generation = -1

    def lookup(
        self, conn: sqlite3.Connection, terms: Collection[str], generation: int
    ) -> dict[str, int]:
        if generation - self._generation >= DF_CACHE_WRITES or len(self._dfs) > DF_CACHE_TERMS:
            self._dfs.clear()
            self._generation = generation
        missing = [t for t in terms if t not in self._dfs]
        for start in range(0, len(missing), 256):
            chunk = missing[start:start + 256]
            found = _doc_freqs(conn, chunk)
            for term in chunk:
                self._dfs[term] = found.get(term, 0)
        return self._dfs


def related_search(
    conn: sqlite3.Connection,
    terms: Sequence[str],
    *,
    now_us: int,
    tiers: Collection[Tier],
    limit: int,
    max_terms: int = RELATED_TERMS,
    dfs: dict[str, int] | None = None,
) -> list[MemoryRecord]:
    """Top `limit` live records for the rarest few of `terms` that are indexed.

    A bounded lookup for context (the related memories shown next to a
    notification), cheaper than `search`: terms no live memory holds are dropped
    without a MATCH (no terms left: no query at all); the rarest terms form a
    BM25 OR query while their summed document counts fit RELATED_POSTINGS (at
    most `max_terms`). When even the rarest term is more common than that, the
    two rarest must both occur (AND). So the cost follows a bounded number of
    postings, not the text's most common words or the corpus size. `dfs`: document
    counts to choose by (e.g. from a `DocFreqCache`); looked up when None.
    """
    tier_values = sorted({Tier(t).value for t in tiers})
    if not terms or not tier_values or limit <= 0:
        return []
    if dfs is None:
        dfs = _doc_freqs(conn, terms)
    present = sorted((t for t in terms if dfs.get(t, 0) > 0), key=lambda t: dfs[t])
    if not present:
        return []
    chosen = present[:1]
    postings = dfs[present[0]]
    for term in present[1:max_terms]:
        postings += dfs[term]
        if postings > RELATED_POSTINGS:
            break
        chosen.append(term)
    if dfs[present[0]] > RELATED_POSTINGS and len(present) > 1:
        expression = f"{match_expression(present[:1])} AND {match_expression(present[1:2])}"
    else:
        expression = match_expression(chosen)
    marks = ", ".join("?" for _ in tier_values)
    cols = ", ".join(f"m.{c.strip()}" for c in COLUMNS.split(","))
    sql = (
        f"SELECT {cols} FROM memories_fts "
        "JOIN memories AS m ON m.rowid = memories_fts.rowid "
        f"WHERE memories_fts MATCH ? AND m.status = 'active' AND m.tier IN ({marks}) "
        "AND (m.expires_us IS NULL OR m.expires_us > ?) "
        "ORDER BY bm25(memories_fts) LIMIT ?"
    )
    rows = conn.execute(
        sql, (expression, *tier_values, now_us, limit)
    ).fetchall()
    return [record_from_row(row) for row in rows]


def token_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the searchable words of two texts (0..1)."""
    left, right = set(query_terms(a)), set(query_terms(b))
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


@runtime_checkable
class DenseLeg(Protocol):
    """An optional semantic retriever fused with BM25 (no embedding model by default).

    `search` is called off the event loop (in a worker thread) and returns
    `(memory_id, similarity)` pairs, best first. It may return ids that are
    deleted, expired or in other tiers: the store filters them. Keeping its index
    in step with the store is the implementation's job (e.g. from `export()`).
    """

    def search(self, query: str, limit: int) -> Sequence[tuple[str, float]]: ...


RRF_K = 60


def fuse(
    lexical: Sequence[str], dense: Sequence[str], *, k: int = RRF_K
) -> list[tuple[str, float]]:
    """Reciprocal rank fusion of two ranked id lists."""
    scores: dict[str, float] = {}
    for ranking in (lexical, dense):
        for rank, memory_id in enumerate(ranking):
            scores[memory_id] = scores.get(memory_id, 0.0) + 1.0 / (k + rank + 1)
    return sorted(scores.items(), key=lambda item: -item[1])
