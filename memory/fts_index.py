"""The full-text index's upkeep: merging, rebuilding, and checking it.

Since migration `0008_memory_fts_own_content` the FTS5 table keeps its own copy of
each indexed document (`search_document(text, detail)` as written when the row was
indexed). A delete or update removes the row by rowid and FTS5 tokenizes the copy it
stored, so the index is consistent with its content by construction: nothing
recomputes the document at delete time, and a change to `memory.search_text` between
releases can make an old document's stems older, never the index inconsistent.

Why the index is never 'optimize'd: FTS5's 'optimize' writes the merged segment one
level above the highest level in use, so every call adds a level to the index's
structure record (two, once the record has grown). FTS5 refuses a structure record
with more than `FTS5_MAX_LEVELS` levels as corrupt (on SQLite 3.40 the next 'optimize'
or read after about 2,000 calls fails with "database disk image is malformed"). The
product ran 'optimize' after every cleanup that removed rows, so a store broke after
about two thousand rounds. Routine compaction (`compact`) uses FTS5's incremental 'merge'
(bounded work, the level count stays logarithmic in what was written) or, once the
index is spread over more than a few segments and is small enough, a rebuild from its
own content into one segment; where every old segment must go (an owner's `forget`: no
page may keep a forgotten word) the index is rebuilt, which resets the structure.

`check` reports what a doctor needs (content-free codes); `repair` re-derives the
whole index from the memories, whatever state the index is in.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from companion_memory.memory.schema import FTS_FILL, FTS_TABLE

FTS5_MAX_LEVELS = 2000
"""FTS5 refuses a structure record with more levels (or segments) than this
(FTS5_MAX_SEGMENT in fts5_index.c) as corrupt."""

LEVELS_REBUILD_AT = 64
"""Compaction rebuilds the index when its structure has more levels than this; merges
alone keep it far below (a level per factor of 4 written), so only a store written by
an older release gets there."""

MERGE_PAGES = 256
"""Leaf pages of incremental merge work per compaction (FTS5 'merge', N > 0)."""

REBUILD_SEGMENTS = 2
"""Compaction rebuilds an index of more segments than this plus one per
`REBUILD_ROWS_PER_SEGMENT` rows (when it is small enough): each query reads every
segment (a year-old store of 122 memories in 7 segments answered in 5x the p95 of the
same memories in one), and a larger index, which costs more to rebuild, is rebuilt less
often."""

REBUILD_ROWS_PER_SEGMENT = 1_000

REBUILD_MAX_ROWS = 5_000
"""The most rows compaction rebuilds at once; a larger index gets merge work instead
(a rebuild tokenizes every row in C; a one-off check on a busy 2-core machine took 0.07 s
for 1,000 and 0.7 s for 5,000 rows of 80 words)."""

STRUCTURE_ROWID = 10
"""The rowid of the structure record in `memories_fts_data` (FTS5_STRUCTURE_ROWID)."""

_STRUCTURE_V2 = b"\xff\x00\x00\x01"  # marks the newer structure format (SQLite >= 3.43)

@dataclass(frozen=True, slots=True)
class IndexStructure:
    """The FTS5 structure record: how the index's segments are laid out."""

    levels: int
    segments: int
    write_counter: int


@dataclass(frozen=True, slots=True)
class StoreHealth:
    """What `check` found. `problems` are content-free codes; empty means healthy."""

    problems: tuple[str, ...]
    active_rows: int
    indexed_rows: int | None
    structure: IndexStructure | None
    database_ok: bool

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def needs_repair(self) -> bool:
        """The index must be rebuilt (`repair`); the memories themselves are intact
        whenever `database_ok`."""
        return bool(self.problems) and self.database_ok


def varint(blob: bytes, pos: int) -> tuple[int, int]:
    """SQLite's big-endian varint at `pos` of an FTS5 record, and the position after it."""
    value = 0
    for i in range(8):
        byte = blob[pos + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos + i + 1
    return (value << 8) | blob[pos + 8], pos + 9


def read_structure(conn: sqlite3.Connection) -> IndexStructure | None:
    """The index's structure record, decoded; None for an index never written to.

    Raises ValueError for a record too short to decode."""
    row = conn.execute(
        "SELECT block FROM memories_fts_data WHERE id = ?", (STRUCTURE_ROWID,)
    ).fetchone()
    if row is None or not row[0]:
        return None
    blob = bytes(row[0])
    pos = 4  # the configuration cookie
    if blob[pos : pos + 4] == _STRUCTURE_V2:
        pos += 4
    try:
        levels, pos = varint(blob, pos)
        segments, pos = varint(blob, pos)
        counter, _ = varint(blob, pos)
    except IndexError as err:
        raise ValueError("the FTS5 structure record is truncated") from err
    return IndexStructure(levels, segments, counter)


def indexed_rows(conn: sqlite3.Connection) -> int:
    """Rows in the index (the N of BM25's idf), from its averages record."""
    row = conn.execute("SELECT block FROM memories_fts_data WHERE id = 1").fetchone()
    if row is None or not row[0]:
        return 0
    return varint(bytes(row[0]), 0)[0]


def compact(conn: sqlite3.Connection) -> str:
    """Keep the index in few segments after a cleanup; returns what it did.

    A search reads every segment, so an index spread over more than `REBUILD_SEGMENTS`
    segments (one more per `REBUILD_ROWS_PER_SEGMENT` rows) and of at most
    `REBUILD_MAX_ROWS` rows is rebuilt from its own content into one segment (its cost
    follows the live rows, not what was ever written). Otherwise it gets bounded
    incremental merge work (`MERGE_PAGES`; deleted entries of the merged segments are
    dropped). A structure grown past
    `LEVELS_REBUILD_AT` levels is always rebuilt. Call inside a write transaction."""
    structure = read_structure(conn)
    if structure is None:
        return "none"
    rows = indexed_rows(conn)
    if structure.levels > LEVELS_REBUILD_AT or (
        rows <= REBUILD_MAX_ROWS
        and structure.segments > REBUILD_SEGMENTS + rows // REBUILD_ROWS_PER_SEGMENT
    ):
        rebuild(conn)
        return "rebuild"
    conn.execute("INSERT INTO memories_fts (memories_fts, rank) VALUES ('merge', ?)",
                 (MERGE_PAGES,))
    return "merge"


def rebuild(conn: sqlite3.Connection) -> None:
    """Rebuild the index from its own content: one segment, no deleted entries, no page
    of the old segments left in use. Call inside a write transaction."""
    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')")


def readable(conn: sqlite3.Connection) -> bool:
    """Whether the index can be opened and searched (True when there is no index yet).

    A structure record FTS5 refuses makes even opening the table fail on some SQLite
    versions ("vtable constructor failed"), on others the first search."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memories_fts'"
    ).fetchone()
    if exists is None:
        return True
    try:
        structure = read_structure(conn)
        conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH '\"cm\"' LIMIT 1"
        ).fetchall()
    except (sqlite3.DatabaseError, ValueError):
        return False
    return structure is None or structure.levels <= FTS5_MAX_LEVELS


def reset_structure(conn: sqlite3.Connection) -> None:
    """Replace the structure record with that of an empty index (same configuration
    cookie), so that an index FTS5 refuses to open can be opened and then dropped or
    cleared. The index is then inconsistent with its content until `repair` (or the
    migration that replaces it) has run: call only on the way there, inside one write
    transaction with it."""
    row = conn.execute(
        "SELECT block FROM memories_fts_data WHERE id = ?", (STRUCTURE_ROWID,)
    ).fetchone()
    cookie = bytes(row[0])[:4] if row is not None and row[0] else b"\x00\x00\x00\x00"
    conn.execute(
        "INSERT OR REPLACE INTO memories_fts_data (id, block) VALUES (?, ?)",
        (STRUCTURE_ROWID, cookie + b"\x00\x00\x00"),  # 0 levels, 0 segments, counter 0
    )


def repair(conn: sqlite3.Connection) -> int:
    """Drop the index and derive it again from the memories, whatever state it is in
    (an unreadable structure record included); returns the rows indexed. Loses no
    memory: the index holds nothing the memories do not. Call inside a write
    transaction on a connection with `cm_search_doc` registered."""
    conn.execute("DROP TABLE IF EXISTS memories_vocab")
    try:
        conn.execute("DROP TABLE IF EXISTS memories_fts")
    except sqlite3.DatabaseError:
        reset_structure(conn)
        conn.execute("DROP TABLE IF EXISTS memories_fts")
    for statement in (s.strip() for s in FTS_TABLE.split(";")):
        if statement:
            conn.execute(statement)
    conn.execute(FTS_FILL)
    return int(conn.execute("SELECT count(*) FROM memories_fts").fetchone()[0])


def _database_check(conn: sqlite3.Connection, full: bool) -> tuple[bool, bool]:
    """(the database is sound, SQLite's check found the index damaged). Since SQLite
    3.44 `integrity_check` also runs FTS5's own check and reports the index's damage in
    rows naming the table ("malformed inverted index for FTS5 table main.memories_fts");
    those rows are the index's problem, which `repair` mends, not the database's."""
    pragma = "integrity_check" if full else "quick_check"
    rows = [str(row[0]) for row in conn.execute(f"PRAGMA {pragma}").fetchall()]
    problems = [row for row in rows if row != "ok"]
    index = [row for row in problems if "memories_fts" in row]
    return len(index) == len(problems), bool(index)


def check(conn: sqlite3.Connection, *, full: bool = True) -> StoreHealth:
    """Check the database and the index without changing either.

    - `database`: SQLite's `integrity_check` (`quick_check` when not `full`) is not ok
      for anything but the index (SQLite 3.44+ checks the index there too);
    - `index_integrity`: FTS5's own 'integrity-check' of its segments fails;
    - `index_unreadable`: the structure record, the vocabulary or a scan of the index
      cannot be read;
    - `index_levels`: the structure has more than `LEVELS_REBUILD_AT` levels (it would
      break at `FTS5_MAX_LEVELS`);
    - `index_rows`: the indexed rows are not exactly the active memories.
    """
    problems: list[str] = []
    index_damaged = False
    try:
        database_ok, index_damaged = _database_check(conn, full)
    except sqlite3.DatabaseError:
        database_ok = False
    if not database_ok:
        problems.append("database")
    active = int(conn.execute(
        "SELECT count(*) FROM memories WHERE status = 'active'"
    ).fetchone()[0])
    structure: IndexStructure | None = None
    indexed: int | None = None
    try:
        structure = read_structure(conn)
        conn.execute("SELECT count(*) FROM memories_vocab").fetchone()
        indexed = int(conn.execute("SELECT count(*) FROM memories_fts").fetchone()[0])
        missing = conn.execute(
            "SELECT count(*) FROM memories WHERE status = 'active' "
            "AND rowid NOT IN (SELECT rowid FROM memories_fts)"
        ).fetchone()[0]
        if missing or indexed != active:
            problems.append("index_rows")
    except (sqlite3.DatabaseError, ValueError):
        problems.append("index_unreadable")
    try:
        conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')")
    except sqlite3.DatabaseError:
        index_damaged = True
    if index_damaged:
        problems.append("index_integrity")
    if structure is not None and structure.levels > LEVELS_REBUILD_AT:
        problems.append("index_levels")
    return StoreHealth(tuple(problems), active, indexed, structure, database_ok)
