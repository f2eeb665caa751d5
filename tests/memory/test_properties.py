"""Property tests: any interleaving of intents keeps revisions monotonic, never
resurrects a tombstone and never duplicates under retry (receipts)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion_memory.memory import (
    Authority,
    CursorAdvance,
    MemoryIntent,
    MemoryStoreError,
    Tier,
    apply_intents,
)
from companion_memory.memory.database import open_database
from companion_memory.memory.maintenance import RECEIPT_RETENTION, cleanup_expired
from tests.memory.helpers import create, promote, reinforce, remove, supersede, update

IDS = ["a", "b", "c"]
TTL = (timedelta(days=7), timedelta(days=90))
AUTHORITIES = list(Authority)

step = st.one_of(
    st.tuples(
        st.just("batch"),
        st.lists(
            st.tuples(
                st.sampled_from(["create", "create_tmp", "update", "reinforce", "remove",
                                 "promote", "supersede"]),
                st.sampled_from(IDS),
                st.integers(-1, 1),
                st.sampled_from(AUTHORITIES),
                st.sampled_from(IDS),
            ),
            min_size=1,
            max_size=3,
        ),
        st.sampled_from([None, "r0", "r1", "r2", "r3"]),
        st.booleans(),
    ),
    st.tuples(st.just("advance"), st.integers(1, 100)),
    st.tuples(st.just("cleanup")),
)


def snapshot(conn: sqlite3.Connection) -> tuple[Any, ...]:
    rows = conn.execute(
        "SELECT memory_id, revision, status, tier, text, reinforced, expires_us "
        "FROM memories ORDER BY memory_id"
    ).fetchall()
    tombs = conn.execute("SELECT memory_id, status FROM memory_tombstones ORDER BY 1").fetchall()
    cursor = conn.execute("SELECT value FROM memory_cursors").fetchall()
    return (tuple(rows), tuple(tombs), tuple(cursor))


def build(spec: tuple[str, str, int, Authority, str], revisions: dict[str, int], n: int) -> (
    MemoryIntent
):
    op, mid, delta, authority, other = spec
    rev = max(1, revisions.get(mid, 1) + delta)
    if op == "create":
        return create(mid, f"fact {mid} {n}", authority=authority)
    if op == "create_tmp":
        return create(mid, f"note {mid} {n}", tier=Tier.TEMPORARY, authority=authority)
    if op == "update":
        return update(mid, rev, f"changed {mid} {n}", authority=authority)
    if op == "reinforce":
        return reinforce(mid, rev)
    if op == "remove":
        return remove(mid, rev, authority=authority)
    if op == "promote":
        return promote(mid, rev, f"p-{mid}-{rev}")
    return supersede(mid, rev, other, authority=authority)


def run_batch(
    conn: sqlite3.Connection, intents: list[MemoryIntent], now: datetime,
    cursor: CursorAdvance | None, receipt: str | None,
) -> Any:
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = apply_intents(conn, intents, now=now, temporary_ttl=TTL[0],
                               long_term_ttl=TTL[1], cursor=cursor, receipt=receipt)
        conn.execute("COMMIT")
        return result
    except BaseException:
        conn.execute("ROLLBACK")
        raise


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=1, max_size=25))
def test_any_interleaving_keeps_invariants(steps: list[Any]) -> None:
    conn = open_database(":memory:")
    now = datetime(2026, 1, 1, tzinfo=UTC)
    revisions: dict[str, int] = {}
    dead: set[str] = set()
    receipts: dict[str, datetime] = {}  # receipt -> when it was applied
    try:
        for n, item in enumerate(steps):
            if item[0] == "advance":
                now += timedelta(days=item[1])
            elif item[0] == "cleanup":
                conn.execute("BEGIN IMMEDIATE")
                cleanup_expired(conn, now)
                conn.execute("COMMIT")
                # cleanup drops receipts older than the retention; a later retry of such a
                # batch is no longer a replay, but must still neither duplicate nor resurrect
                receipts = {r: t for r, t in receipts.items() if now - t <= RECEIPT_RETENTION}
            else:
                _, specs, receipt, with_cursor = item
                intents = [build(spec, revisions, n) for spec in specs]
                stored = conn.execute("SELECT value FROM memory_cursors").fetchone()
                position = 0 if stored is None else stored[0]
                cursor = CursorAdvance("n", position, position + 1) if with_cursor else None
                before = snapshot(conn)
                try:
                    result = run_batch(conn, intents, now, cursor, receipt)
                except MemoryStoreError:
                    assert snapshot(conn) == before, "a failed batch wrote something"
                    continue
                if receipt in receipts:
                    assert result.replayed and snapshot(conn) == before
                    continue
                if receipt is not None:
                    receipts[receipt] = now
                    after = snapshot(conn)
                    retry = run_batch(conn, intents, now, cursor, receipt)
                    assert retry.replayed and snapshot(conn) == after
            # invariants after every step
            rows = conn.execute(
                "SELECT memory_id, revision, status, expires_us FROM memories"
            ).fetchall()
            assert len({r[0] for r in rows}) == len(rows)
            for mid, revision, status, _expires in rows:
                assert revision >= revisions.get(mid, 0), "revision went backwards"
                revisions[mid] = revision
                if mid in dead:
                    assert status != "active", f"tombstone {mid} resurrected"
                if status != "active":
                    dead.add(mid)
            tombstoned = {r[0] for r in conn.execute("SELECT memory_id FROM memory_tombstones")}
            dead |= tombstoned
            assert not tombstoned & {r[0] for r in rows}
            indexed = conn.execute(
                "SELECT rowid FROM memories_fts WHERE memories_fts MATCH "
                "'\"fact\" OR \"note\" OR \"changed\"' ORDER BY rowid"
            ).fetchall()
            active = conn.execute(
                "SELECT rowid FROM memories WHERE status = 'active' ORDER BY rowid"
            ).fetchall()
            assert indexed == active, "the FTS index is out of step with active rows"
    finally:
        conn.close()
