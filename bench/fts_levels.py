"""How FTS5 index upkeep strategies grow the index's structure over many rounds.

Each round writes one row into an FTS5 table and deletes the oldest every third round
(a store whose memories expire), then runs one upkeep strategy:

- `optimize`: FTS5 'optimize' after every round (what releases before migration 0008
  did after each cleanup that removed rows);
- `merge`: FTS5 'merge' with a positive page count (what `memory.fts_index.compact` does
  to a large index);
- `automerge`: nothing beyond what FTS5 does on every write;
- `rebuild`: FTS5 'rebuild' every 50 rounds (what `forget` does).

It prints the most levels the structure record reached, the round at which SQLite
refused the index (if it did), the index's bytes and the rows left, with the SQLite
version in use.

    .venv/bin/python bench/fts_levels.py [--rounds 5000]
"""

from __future__ import annotations

import argparse
import sqlite3
import time

from companion_memory.memory.fts_index import FTS5_MAX_LEVELS, MERGE_PAGES, varint

STRATEGIES = ("optimize", "merge", "automerge", "rebuild")


def _levels(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT block FROM t_data WHERE id = 10").fetchone()
    return varint(bytes(row[0]), 4)[0] if row is not None else 0


def run(strategy: str, rounds: int) -> dict[str, object]:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE VIRTUAL TABLE t USING fts5 (x)")
    most = 0
    broke: int | None = None
    started = time.perf_counter()
    for i in range(rounds):
        try:
            conn.execute("INSERT INTO t (rowid, x) VALUES (?, ?)",
                         (i, f"note {i} about the dentist on day {i // 24}"))
            if i % 3 == 0:
                conn.execute("DELETE FROM t WHERE rowid = ?", (i // 3,))
            if strategy == "optimize":
                conn.execute("INSERT INTO t (t) VALUES ('optimize')")
            elif strategy == "merge":
                conn.execute("INSERT INTO t (t, rank) VALUES ('merge', ?)", (MERGE_PAGES,))
            elif strategy == "rebuild" and i % 50 == 0:
                conn.execute("INSERT INTO t (t) VALUES ('rebuild')")
            conn.execute("SELECT count(*) FROM t WHERE t MATCH 'dentist'").fetchone()
        except sqlite3.DatabaseError:
            broke = i
            break
        most = max(most, _levels(conn))
    data = conn.execute("SELECT coalesce(sum(length(block)), 0) FROM t_data").fetchone()[0]
    rows = conn.execute("SELECT count(*) FROM t").fetchone()[0]
    return {"strategy": strategy, "most_levels": most, "broke_at_round": broke,
            "index_bytes": int(data), "rows": int(rows),
            "seconds": round(time.perf_counter() - started, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5000)
    args = parser.parse_args()
    print(f"SQLite {sqlite3.sqlite_version}; FTS5 refuses more than {FTS5_MAX_LEVELS} levels; "
          f"{args.rounds} rounds")
    print(f"{'strategy':<10} {'most levels':>11} {'broke at':>9} {'index bytes':>12} "
          f"{'rows':>6} {'s':>6}")
    for strategy in STRATEGIES:
        r = run(strategy, args.rounds)
        print(f"{r['strategy']:<10} {r['most_levels']:>11} {r['broke_at_round'] or '-':>9} "
              f"{r['index_bytes']:>12} {r['rows']:>6} {r['seconds']:>6}")


if __name__ == "__main__":
    main()
