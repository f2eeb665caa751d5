"""The episode ledger on a plain sqlite3 connection: transitions, guards and recovery."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from companion_memory.memory import episode_ledger as ledger
from companion_memory.memory.episode_ledger import EpisodeState, LedgerStateError
from companion_memory.memory.migrations import of_area

NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:", isolation_level=None)
    # the ledger and the work ledger that counts its failures, in registry order
    # (without 0016, which carries over the tables of other areas)
    made = [*of_area("episode_ledger"), *of_area("work_ledger")[:1]]
    for migration in sorted(made, key=lambda m: m.name):
        connection.executescript(migration.sql)
    yield connection
    connection.close()


def state(conn: sqlite3.Connection, eid: str) -> EpisodeState:
    row = ledger.get(conn, eid)
    assert row is not None
    return row.state


def test_tables_are_prefixed() -> None:
    for migration in of_area("episode_ledger"):
        assert migration.name.split("_", 1)[1].startswith("episode_")
        for line in migration.sql.splitlines():
            if line.startswith(("CREATE TABLE", "CREATE INDEX", "ALTER TABLE")):
                assert line.split()[2].startswith("episode_"), line


def test_happy_path(conn: sqlite3.Connection) -> None:
    assert ledger.register(conn, [("2026-01-01", "a"), ("2026-01-01", "b")], NOW) == 2
    assert ledger.register(conn, [("2026-01-01", "a")], NOW) == 0
    ledger.mark_processing(conn, ["a", "b"], "batch1", {"a": "d1"}, NOW)
    assert state(conn, "a") is EpisodeState.PROCESSING
    digest = ledger.mark_proposed(conn, "a", '{"items": []}', NOW)
    row = ledger.get(conn, "a")
    assert row is not None and row.proposal_digest == digest and row.proposal() == {"items": []}
    assert [r.episode_id for r in ledger.proposed(conn, 5)] == ["a"]
    ledger.mark_done(conn, "a", digest, ["m1"], NOW)
    row = ledger.get(conn, "a")
    assert row is not None and row.state is EpisodeState.DONE and row.applied == ("m1",)
    assert ledger.counts(conn)["done"] == 1 and ledger.counts(conn)["processing"] == 1


def test_illegal_transitions_name_the_state(conn: sqlite3.Connection) -> None:
    ledger.register(conn, [("2026-01-01", "a")], NOW)
    with pytest.raises(LedgerStateError, match="episode a is pending; this transition needs"):
        ledger.mark_proposed(conn, "a", "{}", NOW)
    with pytest.raises(LedgerStateError, match="is not in the ledger"):
        ledger.mark_processing(conn, ["zzz"], "b", {}, NOW)
    ledger.mark_processing(conn, ["a"], "b", {}, NOW)
    digest = ledger.mark_proposed(conn, "a", "{}", NOW)
    with pytest.raises(LedgerStateError, match="different staged proposal"):
        ledger.mark_done(conn, "a", "other-digest", [], NOW)
    ledger.mark_done(conn, "a", digest, [], NOW)
    with pytest.raises(LedgerStateError, match="is done"):
        ledger.mark_processing(conn, ["a"], "c", {}, NOW)


def test_retry_backoff_and_budget(conn: sqlite3.Connection) -> None:
    ledger.register(conn, [("2026-01-01", "a")], NOW)
    later = NOW + timedelta(minutes=5)
    for attempt in (1, 2):
        ledger.mark_processing(conn, ["a"], "b", {}, NOW)
        assert ledger.mark_retry(conn, "a", "stale_revision", NOW, later, 3) is (
            EpisodeState.RETRY
        )
        row = ledger.get(conn, "a")
        assert row is not None and row.attempts == attempt and row.reason == "stale_revision"
        assert ledger.candidates(conn, NOW, 5) == []  # backing off
        assert ledger.due_count(conn, NOW) == 0
        assert [r.episode_id for r in ledger.candidates(conn, later, 5)] == ["a"]
    ledger.mark_processing(conn, ["a"], "b", {}, later)
    assert ledger.mark_retry(conn, "a", "stale_revision", later, later, 3) is (
        EpisodeState.IGNORED
    )
    row = ledger.get(conn, "a")
    assert row is not None and row.reason == "retry_budget_exhausted:stale_revision"
    assert row.attempts == 3


def test_release_does_not_charge(conn: sqlite3.Connection) -> None:
    ledger.register(conn, [("2026-01-01", "a")], NOW)
    ledger.mark_processing(conn, ["a"], "b", {}, NOW)
    ledger.release(conn, ["a"], NOW)
    row = ledger.get(conn, "a")
    assert row is not None and row.state is EpisodeState.PENDING and row.attempts == 0


def test_recover_charges_interrupted_and_keeps_staged(conn: sqlite3.Connection) -> None:
    ledger.register(conn, [("2026-01-01", x) for x in "abc"], NOW)
    ledger.mark_processing(conn, ["a", "b", "c"], "b1", {}, NOW)
    ledger.mark_proposed(conn, "c", "{}", NOW)
    out = ledger.recover(conn, NOW, retry_budget=2)
    assert out == {"interrupted": 2, "exhausted": 0, "proposed": 1}
    # interrupted rows are taken first, in registration order
    assert [r.episode_id for r in ledger.candidates(conn, NOW, 5)] == ["a", "b"]
    out = ledger.recover(conn, NOW, retry_budget=2)  # a second crash spends the budget
    assert out["exhausted"] == 2
    row = ledger.get(conn, "a")
    assert row is not None and row.reason == "retry_budget_exhausted:interrupted"
    assert state(conn, "c") is EpisodeState.PROPOSED


def test_ignored_with_reason(conn: sqlite3.Connection) -> None:
    ledger.register(conn, [("2026-01-01", "a")], NOW)
    ledger.mark_ignored(conn, "a", "status_failed", NOW)
    row = ledger.get(conn, "a")
    assert row is not None and row.state is EpisodeState.IGNORED
    assert row.to_dict()["reason"] == "status_failed"
