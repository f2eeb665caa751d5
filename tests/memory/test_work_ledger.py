"""The one work ledger on a plain SQLite connection: counting, poisoning, clearing."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from companion_memory.core.errors import InvalidInputError
from companion_memory.memory import work_ledger as W
from companion_memory.memory.migrations import of_area
from companion_memory.memory.work_ledger import Scenario

NOW = datetime(2026, 3, 10, 12, tzinfo=UTC)


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.executescript(of_area("work_ledger")[0].sql)
    yield db
    db.close()


def fail(conn: sqlite3.Connection, scenario: Scenario, key: str, *, budget: int = 3,
         at: datetime = NOW, retry_at: datetime | None = None) -> W.WorkAttempt:
    return W.record_failure(conn, scenario, key, "model_timeout", now=at, budget=budget,
                            retry_at=retry_at)


def test_failures_count_up_to_the_budget_then_poison(conn: sqlite3.Connection) -> None:
    later = NOW + timedelta(minutes=5)
    first = fail(conn, Scenario.EPISODES, "ep-1", retry_at=later)
    assert (first.attempts, first.next_attempt_at, first.poisoned) == (1, later, False)
    fail(conn, Scenario.EPISODES, "ep-1", retry_at=later)
    third = fail(conn, Scenario.EPISODES, "ep-1", retry_at=later)
    assert (third.attempts, third.poisoned_at, third.next_attempt_at) == (3, NOW, None)
    # the same key of another scenario is another unit
    assert W.count(conn, Scenario.SWEEP, "ep-1") == 0
    assert [w.key for w in W.poisoned(conn)] == ["ep-1"]
    assert W.counts(conn)["episodes"] == {"retrying": 0, "poisoned": 1}


def test_a_reason_code_is_cut_and_never_more(conn: sqlite3.Connection) -> None:
    row = W.record_failure(conn, Scenario.SWEEP, "w|1", "x" * 500, now=NOW, budget=3)
    assert row.last_code == "x" * W.CODE_CHARS


def test_numbered_clear_keeps_poisoned_batches(conn: sqlite3.Connection) -> None:
    fail(conn, Scenario.NOTIFICATIONS, W.notification_key(4), budget=1)
    fail(conn, Scenario.NOTIFICATIONS, W.notification_key(9))
    fail(conn, Scenario.NOTIFICATIONS, W.notification_key(12))
    fail(conn, Scenario.EPISODES, "7")
    # numbers, not text: "12" sorts before "9" as text but is kept
    assert W.clear_numbered_through(conn, Scenario.NOTIFICATIONS, 10) == 1
    assert [k for k in ("4", "9", "12")
            if W.get(conn, Scenario.NOTIFICATIONS, k) is not None] == ["4", "12"]
    assert W.count(conn, Scenario.EPISODES, "7") == 1
    assert W.clear_numbered_through(conn, Scenario.NOTIFICATIONS, 10,
                                    keep_poisoned=False) == 1


def test_a_poisoned_batch_is_dropped_after_it_was_kept(conn: sqlite3.Connection) -> None:
    fail(conn, Scenario.NOTIFICATIONS, "4", budget=1)
    fail(conn, Scenario.EPISODES, "ep-1", budget=1)
    later = NOW + W.POISON_KEPT[Scenario.NOTIFICATIONS] + timedelta(seconds=1)
    fail(conn, Scenario.NOTIFICATIONS, "30", at=later)
    fail(conn, Scenario.EPISODES, "ep-2", at=later)
    assert W.get(conn, Scenario.NOTIFICATIONS, "4") is None
    assert W.get(conn, Scenario.EPISODES, "ep-1") is not None  # episodes keep theirs


def test_clear_and_clear_below(conn: sqlite3.Connection) -> None:
    for window in ("2026-03-01@UTC#a", "2026-03-05@UTC#b"):
        fail(conn, Scenario.SWEEP, W.sweep_key(1, window))
    assert W.clear_below(conn, Scenario.SWEEP, "2026-03-02") == 1
    assert W.clear(conn, Scenario.SWEEP, [W.sweep_key(1, "2026-03-05@UTC#b")]) == 1
    assert W.poisoned(conn, Scenario.SWEEP) == [] and W.counts(conn)["sweep"]["retrying"] == 0


def test_bad_input_names_what_is_allowed(conn: sqlite3.Connection) -> None:
    with pytest.raises(InvalidInputError, match="unknown work scenario 'mail'; known: "
                                                "notifications, episodes, sweep"):
        W.record_failure(conn, "mail", "1", "x", now=NOW, budget=3)
    with pytest.raises(InvalidInputError, match="retry budget must be a positive integer"):
        W.record_failure(conn, Scenario.SWEEP, "1", "x", now=NOW, budget=0)
    with pytest.raises(InvalidInputError, match="work key must be text of 1 to 200"):
        W.record_failure(conn, Scenario.SWEEP, "", "x", now=NOW, budget=3)
