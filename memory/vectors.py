"""Dense vectors of the memories, stored beside the full-text index.

Each active memory has at most one vector (`memory_vectors`, migration
`0010_memory_vectors`): the embedding of its statement followed by its search-only
detail (the words of its sources), L2-normalized, quantized to int8 with one scale per
vector (384 bytes and a float: 100,000 memories take about 40 MB). Triggers delete a
memory's vector when the memory is deleted or its text, detail or status changes, so a
vector never outlives what it was computed from (a forgotten memory keeps none); the
store embeds what lacks one after each write (`pending` / `put`), in small batches.

`VectorIndex` keeps the vectors in memory for search, as int8 rows, and follows the
table by vector id (every put gets a new id): after a write it reads the ids, drops
the rows gone and loads only the new ones. Search converts the rows to float32 a block
at a time and takes the best by dot product (= cosine: both sides are unit vectors).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence

import numpy as np
import numpy.typing as npt

from companion_memory.memory.records import Tier

DDL = """
CREATE TABLE memory_vectors (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_rowid INTEGER NOT NULL UNIQUE,
    model TEXT NOT NULL,
    scale REAL NOT NULL,
    vec BLOB NOT NULL
);

CREATE TRIGGER memory_vectors_on_delete AFTER DELETE ON memories
BEGIN
    DELETE FROM memory_vectors WHERE memory_rowid = old.rowid;
END;

CREATE TRIGGER memory_vectors_on_change AFTER UPDATE OF text, detail, status ON memories
BEGIN
    DELETE FROM memory_vectors WHERE memory_rowid = old.rowid;
END;
"""
"""The vectors' table and the triggers that keep it from outliving its memories."""

BLOCK_ROWS = 8_192
"""Rows converted to float32 at a time by a search (12 MB of float32 for 384 dims)."""


def document(text: str, detail: str) -> str:
    """What is embedded for a memory: its statement, then its sources' words."""
    return f"{text}\n{detail}" if detail else text


def quantize(vectors: npt.NDArray[np.float32]) -> tuple[list[bytes], list[float]]:
    """int8 rows (each scaled by its largest absolute value) and their scales."""
    peaks = np.abs(vectors).max(axis=1)
    peaks[peaks == 0] = 1.0
    scaled = np.rint(vectors / peaks[:, None] * 127.0).astype(np.int8)
    return [row.tobytes() for row in scaled], [float(p) / 127.0 for p in peaks]


def pending(conn: sqlite3.Connection, model: str, limit: int) -> list[tuple[int, str]]:
    """Up to `limit` active memories without a vector of `model`: (rowid, document)."""
    rows = conn.execute(
        "SELECT m.rowid, m.text, m.detail FROM memories AS m "
        "LEFT JOIN memory_vectors AS v ON v.memory_rowid = m.rowid "
        "WHERE m.status = 'active' AND (v.id IS NULL OR v.model != ?) "
        "ORDER BY m.rowid DESC LIMIT ?",
        (model, limit),
    ).fetchall()
    return [(int(rowid), document(str(text), str(detail or ""))) for rowid, text, detail in rows]


def put(
    conn: sqlite3.Connection,
    model: str,
    items: Sequence[tuple[int, str]],
    vectors: npt.NDArray[np.float32],
) -> int:
    """Store the vectors of `items` (from `pending`), in a write transaction. A memory
    whose document changed since it was read is skipped (its vector would be stale); so
    is one no longer active. Returns how many were stored."""
    blobs, scales = quantize(vectors)
    stored = 0
    for (rowid, doc), blob, scale in zip(items, blobs, scales, strict=True):
        row = conn.execute(
            "SELECT text, detail FROM memories WHERE rowid = ? AND status = 'active'", (rowid,)
        ).fetchone()
        if row is None or document(str(row[0]), str(row[1] or "")) != doc:
            continue
        conn.execute("DELETE FROM memory_vectors WHERE memory_rowid = ?", (rowid,))
        conn.execute(
            "INSERT INTO memory_vectors (memory_rowid, model, scale, vec) VALUES (?, ?, ?, ?)",
            (rowid, model, scale, blob),
        )
        stored += 1
    return stored


def coverage(conn: sqlite3.Connection, model: str) -> tuple[int, int]:
    """(active memories with a vector of `model`, active memories)."""
    with_vector, active = conn.execute(
        "SELECT count(v.id), count(*) FROM memories AS m "
        "LEFT JOIN memory_vectors AS v ON v.memory_rowid = m.rowid AND v.model = ? "
        "WHERE m.status = 'active'",
        (model,),
    ).fetchone()
    return int(with_vector), int(active)


class VectorIndex:
    """The stored vectors of one model, in memory, following the table (store thread)."""

    def __init__(self, model: str, dim: int) -> None:
        self.model = model
        self.dim = dim
        self._ids = np.zeros(0, dtype=np.int64)
        self._rowids = np.zeros(0, dtype=np.int64)
        self._scales = np.zeros(0, dtype=np.float32)
        self._rows = np.zeros((0, dim), dtype=np.int8)
        self._mark: object = None
        self.loads = 0
        """Vectors read from the table so far (a measure of the refresh cost)."""

    def __len__(self) -> int:
        return int(self._ids.size)

    @property
    def rowids(self) -> npt.NDArray[np.int64]:
        """The memory rowid of each held vector, in the order `similarities` returns."""
        return self._rowids

    def refresh(self, conn: sqlite3.Connection, mark: object) -> None:
        """Bring the rows up to date unless `mark` (the database's write mark) is the one
        of the last refresh: read the table's vector ids, drop the rows whose id is gone,
        load the rows whose id is new."""
        if mark == self._mark:
            return
        current = np.fromiter(
            (r[0] for r in conn.execute(
                "SELECT id FROM memory_vectors WHERE model = ? ORDER BY id", (self.model,)
            )),
            dtype=np.int64,
        )
        keep = np.isin(self._ids, current, assume_unique=True)
        fresh = current[~np.isin(current, self._ids, assume_unique=True)]
        ids, rowids, scales, rows = (
            [self._ids[keep]], [self._rowids[keep]], [self._scales[keep]], [self._rows[keep]]
        )
        for start in range(0, fresh.size, 512):
            chunk = [int(i) for i in fresh[start:start + 512]]
            marks = ", ".join("?" for _ in chunk)
            got = conn.execute(
                f"SELECT id, memory_rowid, scale, vec FROM memory_vectors WHERE id IN ({marks})",
                chunk,
            ).fetchall()
            good = [g for g in got if len(g[3]) == self.dim]
            if not good:
                continue
            ids.append(np.array([g[0] for g in good], dtype=np.int64))
            rowids.append(np.array([g[1] for g in good], dtype=np.int64))
            scales.append(np.array([g[2] for g in good], dtype=np.float32))
            rows.append(np.frombuffer(b"".join(g[3] for g in good), dtype=np.int8)
                        .reshape(len(good), self.dim))
            self.loads += len(good)
        self._ids = np.concatenate(ids)
        self._rowids = np.concatenate(rowids)
        self._scales = np.concatenate(scales)
        self._rows = np.concatenate(rows)
        self._mark = mark

    def similarities(self, query: npt.NDArray[np.float32]) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.float32]
    ]:
        """(memory rowids, cosine similarity to `query`) for every held vector."""
        out = np.empty(self._ids.size, dtype=np.float32)
        q = np.asarray(query, dtype=np.float32)
        for start in range(0, self._ids.size, BLOCK_ROWS):
            # numpy's own loop over the int8 rows, not BLAS: `@` hands a block this size
            # to OpenBLAS's thread pool, whose threads then spin for milliseconds and took
            # the second core from the question's embedding (docs/benchmarks.md,
            # "Question threads"); the loop also skips the float copy of every block
            block = self._rows[start:start + BLOCK_ROWS]
            out[start:start + BLOCK_ROWS] = np.einsum(
                "ij,j->i", block, q, dtype=np.float32) * self._scales[start:start + BLOCK_ROWS]
        return self._rowids, out

    def vectors_of(self, rowids: Collection[int]) -> dict[int, npt.NDArray[np.float32]]:
        """The held vectors (dequantized, float32) of the memories `rowids` that have one."""
        wanted = np.fromiter(rowids, dtype=np.int64)
        hit = np.nonzero(np.isin(self._rowids, wanted))[0]
        return {
            int(self._rowids[i]): self._rows[i].astype(np.float32) * self._scales[i] for i in hit
        }

    def best(self, query: npt.NDArray[np.float32], n: int) -> list[tuple[int, float]]:
        """The `n` most similar memories: (rowid, cosine), best first."""
        rowids, sims = self.similarities(query)
        if sims.size == 0 or n <= 0:
            return []
        n = min(n, sims.size)
        top = np.argpartition(-sims, n - 1)[:n]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(rowids[i]), float(sims[i])) for i in top]


def live_filter(
    conn: sqlite3.Connection,
    rowids: Sequence[int],
    *,
    tiers: Collection[Tier],
    now_us: int,
    where: tuple[str, tuple[object, ...]] = ("", ()),
) -> set[int]:
    """The rowids among `rowids` that are active, unexpired, in `tiers` and meet `where`
    (an extra " AND ..." condition and its parameters, `memory.filters`)."""
    if not rowids:
        return set()
    extra, extra_params = where
    tier_values = sorted({Tier(t).value for t in tiers})
    found: set[int] = set()
    for start in range(0, len(rowids), 500):
        chunk = list(rowids[start:start + 500])
        marks = ", ".join("?" for _ in chunk)
        tmarks = ", ".join("?" for _ in tier_values)
        found.update(
            int(r[0]) for r in conn.execute(
                f"SELECT rowid FROM memories WHERE rowid IN ({marks}) AND status = 'active' "
                f"AND tier IN ({tmarks}) AND (expires_us IS NULL OR expires_us > ?){extra}",
                (*chunk, *tier_values, now_us, *extra_params),
            )
        )
    return found


def neighbours(
    conn: sqlite3.Connection,
    index: VectorIndex,
    mark: object,
    memory_ids: Sequence[str],
    *,
    tiers: Collection[Tier],
    now_us: int,
    limit: int,
) -> dict[str, list[tuple[int, float]]]:
    """For each of `memory_ids` that has a vector: the `limit` live memories of `tiers`
    whose vectors are most alike (rowid, cosine), best first, the memory itself left out.
    One read snapshot (call inside a read transaction)."""
    if not memory_ids or limit <= 0:
        return {}
    index.refresh(conn, mark)
    own: dict[str, int] = {}
    ids = list(dict.fromkeys(memory_ids))
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ", ".join("?" for _ in chunk)
        own.update((str(mid), int(rid)) for mid, rid in conn.execute(
            f"SELECT memory_id, rowid FROM memories WHERE memory_id IN ({marks})", chunk))
    held = index.vectors_of(own.values())
    if not held:
        return {}
    tier_values = sorted({Tier(t).value for t in tiers})
    tmarks = ", ".join("?" for _ in tier_values)
    eligible = np.fromiter(
        (r[0] for r in conn.execute(
            f"SELECT rowid FROM memories WHERE status = 'active' AND tier IN ({tmarks}) "
            "AND (expires_us IS NULL OR expires_us > ?)", (*tier_values, now_us))),
        dtype=np.int64,
    )
    out: dict[str, list[tuple[int, float]]] = {}
    if eligible.size == 0:
        return {mid: [] for mid, rid in own.items() if rid in held}
    rowids = index.rowids
    mask = np.isin(rowids, eligible)
    for mid, rid in own.items():
        vector = held.get(rid)
        if vector is None:
            continue
        _, sims = index.similarities(vector)
        candidates = np.nonzero(mask & (rowids != rid))[0]
        if candidates.size == 0:
            out[mid] = []
            continue
        n = min(limit, candidates.size)
        top = candidates[np.argpartition(-sims[candidates], n - 1)[:n]]
        top = top[np.argsort(-sims[top], kind="stable")]
        out[mid] = [(int(rowids[i]), float(sims[i])) for i in top]
    return out
