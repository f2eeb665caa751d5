"""MemoryIntent execution: compare-and-set, authority, rejections, receipts, cursors."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory import (
    Authority,
    AuthorityError,
    CursorAdvance,
    CursorConflictError,
    IntentOp,
    InvalidMemoryError,
    Kind,
    MemoryInactiveError,
    MemoryIntent,
    MemoryNotFoundError,
    MemoryStore,
    RejectedContentError,
    RevisionConflictError,
    Status,
    Tier,
)
from tests.memory.helpers import create, promote, reinforce, remove, supersede, update


async def test_create_uses_caller_id_and_sets_expiry(store: MemoryStore, clock: FakeClock) -> None:
    result = await store.apply([create("n-1"), create("t-1", "Parcel due", tier=Tier.TEMPORARY)])
    long_term, temporary = result.records
    assert long_term.memory_id == "n-1" and long_term.revision == 1
    assert long_term.expires_at == clock.now() + timedelta(days=90)
    assert temporary.expires_at == clock.now() + timedelta(days=7)
    assert result.skipped == [] and not result.replayed


async def test_non_auto_and_device_records_do_not_expire(store: MemoryStore) -> None:
    result = await store.apply([
        create("owner", auto=False),
        create("dev", "Hold the crown 3 s to pair", tier=Tier.DEVICE, kind=Kind.DEVICE_PROCEDURE),
    ])
    assert [r.expires_at for r in result.records] == [None, None]


async def test_create_of_existing_id_is_an_idempotent_skip(store: MemoryStore) -> None:
    await store.apply([create("a")])
    result = await store.apply([create("a", "different text")])
    assert result.records == [] and result.skipped == [("a", "exists")]
    record = await store.get("a")
    assert record is not None and record.text.startswith("Dentist")


async def test_create_never_resurrects_a_tombstone(store: MemoryStore) -> None:
    await store.apply([create("a")])
    await store.apply([remove("a", 1)])
    result = await store.apply([create("a", "new text")])
    assert result.skipped == [("a", "tombstoned")]
    record = await store.get("a")
    assert record is not None and record.status is Status.DELETED
    await store.cleanup_expired()
    assert await store.get("a") is None
    result = await store.apply([create("a", "new text")])
    assert result.skipped == [("a", "tombstoned")]
    assert await store.get("a") is None


async def test_update_reinforce_bump_revision(store: MemoryStore, clock: FakeClock) -> None:
    await store.apply([create("a")])
    updated = (await store.apply([update("a", 1, "Dentist moved to Wednesday")])).records[0]
    assert updated.revision == 2 and updated.text == "Dentist moved to Wednesday"
    assert [s.to_str() for s in updated.sources] == ["context:1", "context:2"]
    clock.set_wall(clock.now() + timedelta(days=30))
    reinforced = (await store.apply([reinforce("a", 2)])).records[0]
    assert reinforced.revision == 3 and reinforced.reinforced == 1
    assert reinforced.expires_at == clock.now() + timedelta(days=90)


async def test_stale_revision_is_a_conflict_with_a_clear_message(store: MemoryStore) -> None:
    await store.apply([create("a")])
    await store.apply([update("a", 1, "v2")])
    with pytest.raises(RevisionConflictError) as info:
        await store.apply([update("a", 1, "v3")])
    assert str(info.value) == "memory a is at revision 2, not 1; re-read and retry"
    assert info.value.code == "revision_conflict"
    assert info.value.expected == 1 and info.value.actual == 2


async def test_unknown_id_is_not_found(store: MemoryStore) -> None:
    with pytest.raises(MemoryNotFoundError, match="memory ghost does not exist"):
        await store.apply([reinforce("ghost", 1)])


async def test_lower_authority_cannot_amend_higher(store: MemoryStore) -> None:
    await store.apply([create("a", authority=Authority.DIRECT_USER_STATEMENT)])
    with pytest.raises(AuthorityError) as info:
        await store.apply([update("a", 1, "changed", authority=Authority.INFERENCE)])
    assert str(info.value) == (
        "a inference intent cannot update memory a, which has authority "
        "direct_user_statement; only an equal or higher authority may amend it"
    )
    with pytest.raises(AuthorityError):
        await store.apply([remove("a", 1, authority=Authority.AGENT_CONCLUSION)])
    ok = await store.apply([update("a", 1, "changed", authority=Authority.DIRECT_USER_STATEMENT)])
    assert ok.records[0].revision == 2


async def test_error_in_batch_writes_nothing(store: MemoryStore) -> None:
    with pytest.raises(MemoryNotFoundError):
        await store.apply(
            [create("a"), reinforce("missing", 1)],
            cursor=CursorAdvance("notifications", 0, 10),
            receipt="batch-1",
        )
    assert await store.get("a") is None
    assert await store.get_cursor("notifications") == 0
    result = await store.apply([create("a")], receipt="batch-1")
    assert not result.replayed and len(result.records) == 1


async def test_receipt_makes_a_retry_a_noop(store: MemoryStore) -> None:
    first = await store.apply(
        [create("a"), create("b", "Gym at 7")],
        cursor=CursorAdvance("notifications", 0, 2),
        receipt="r-1",
    )
    again = await store.apply(
        [create("a"), create("b", "Gym at 7")],
        cursor=CursorAdvance("notifications", 0, 2),
        receipt="r-1",
    )
    assert again.replayed and [r.memory_id for r in again.records] == ["a", "b"]
    assert first.records == again.records
    assert await store.get_cursor("notifications") == 2
    assert (await store.stats())["long_term.active"] == 2


async def test_cursor_conflict(store: MemoryStore) -> None:
    assert await store.get_cursor("notifications") == 0
    await store.apply([], cursor=CursorAdvance("notifications", 0, 5))
    with pytest.raises(CursorConflictError) as info:
        await store.apply([create("a")], cursor=CursorAdvance("notifications", 3, 8))
    assert str(info.value) == "cursor notifications is at 5, not 3; re-read it and retry from there"
    assert await store.get("a") is None
    with pytest.raises(InvalidMemoryError, match="a cursor never goes back"):
        CursorAdvance("notifications", 5, 4)


async def test_rejected_text_is_refused(store: MemoryStore) -> None:
    await store.apply([create("a", "Likes pineapple pizza")])
    await store.forget("a", "not true")
    with pytest.raises(RejectedContentError) as info:
        await store.apply([create("b", "  likes PINEAPPLE pizza. ")])
    assert info.value.code == "rejected_by_owner"
    assert "owner rejected" in str(info.value)
    assert await store.get("b") is None


async def test_promote_moves_temporary_to_long_term_with_receipt(
    store: MemoryStore, clock: FakeClock
) -> None:
    await store.apply([create("t", "Parcel due", tier=Tier.TEMPORARY)])
    promoted = (await store.apply([promote("t", 1, "p-1")])).records[0]
    assert promoted.tier is Tier.LONG_TERM and promoted.revision == 2
    assert promoted.expires_at == clock.now() + timedelta(days=90)
    again = await store.apply([promote("t", 1, "p-1")])
    assert again.skipped == [("t", "promoted")]
    rows = await store.read(
        lambda c: c.execute("SELECT memory_id, from_revision FROM memory_promotions").fetchall()
    )
    assert rows == [("t", 1)]
    with pytest.raises(InvalidMemoryError, match="only temporary memories can be promoted"):
        await store.apply([promote("t", 2, "p-2")])


async def test_supersede_marks_older_record(store: MemoryStore) -> None:
    await store.apply([create("dev-1", "Pair by holding crown", tier=Tier.DEVICE,
                              kind=Kind.DEVICE_PROCEDURE)])
    result = await store.apply([
        create("dev-2", "Pair by double tap", tier=Tier.DEVICE, kind=Kind.DEVICE_PROCEDURE),
        supersede("dev-1", 1, "dev-2"),
    ])
    old = await store.get("dev-1")
    assert old is not None and old.status is Status.SUPERSEDED and old.superseded_by == "dev-2"
    assert [r.memory_id for r in result.records] == ["dev-2", "dev-1"]
    assert [h.record.memory_id for h in await store.recall("pair", tiers=[Tier.DEVICE])] == [
        "dev-2"
    ]
    with pytest.raises(MemoryNotFoundError, match="memory nowhere does not exist"):
        await store.apply([supersede("dev-2", 1, "nowhere")])


async def test_amending_inactive_records_is_refused(store: MemoryStore, clock: FakeClock) -> None:
    await store.apply([create("a"), create("t", "x y", tier=Tier.TEMPORARY)])
    await store.apply([remove("a", 1)])
    with pytest.raises(MemoryInactiveError) as info:
        await store.apply([reinforce("a", 2)])
    assert str(info.value) == (
        "memory a is deleted; only active records can be changed (create a new memory instead)"
    )
    clock.set_wall(clock.now() + timedelta(days=8))
    with pytest.raises(MemoryInactiveError, match="memory t is expired"):
        await store.apply([reinforce("t", 1)])


def test_intent_validation_messages() -> None:
    with pytest.raises(InvalidMemoryError, match="text: must not be empty"):
        MemoryIntent(op=IntentOp.CREATE, memory_id="a", tier=Tier.LONG_TERM, kind=Kind.FACT,
                     text="  ", sources=("context:1",))  # type: ignore[arg-type]
    with pytest.raises(InvalidMemoryError, match="at most 500 are allowed"):
        create("a", "x" * 501)
    with pytest.raises(InvalidMemoryError, match="at least one source is required"):
        MemoryIntent(op=IntentOp.CREATE, memory_id="a", tier=Tier.LONG_TERM, kind=Kind.FACT,
                     text="ok")
    with pytest.raises(InvalidMemoryError, match="device_quirk is not allowed in tier long_term"):
        create("a", kind=Kind.DEVICE_QUIRK)
    with pytest.raises(InvalidMemoryError, match="a positive revision is required for update"):
        MemoryIntent(op=IntentOp.UPDATE, memory_id="a", text="x", sources=("context:1",))  # type: ignore[arg-type]


async def test_apply_intents_requires_a_transaction(store: MemoryStore) -> None:
    from companion_memory.memory import apply_intents

    now = store.now()
    with pytest.raises(RuntimeError, match="inside a transaction"):
        await store.read(
            lambda c: (c.execute("COMMIT"), apply_intents(
                c, [create("a")], now=now, temporary_ttl=timedelta(days=7),
                long_term_ttl=timedelta(days=90)))
        )


async def test_old_receipts_are_dropped_by_cleanup(store: MemoryStore, clock: FakeClock) -> None:
    await store.apply([create("a")], receipt="old")
    await clock.advance(60 * 86400)
    await store.apply([create("b", "Gym at 7")], receipt="recent")

    def receipts(conn: Any) -> list[str]:
        return [r[0] for r in conn.execute("SELECT receipt FROM memory_receipts ORDER BY 1")]

    assert await store.read(receipts) == ["old", "recent"]
    await clock.advance(31 * 86400)  # "old" is now 91 days old, "recent" 31
    await store.cleanup_expired()
    assert await store.read(receipts) == ["recent"]
    again = await store.apply([create("b", "Gym at 7")], receipt="recent")
    assert again.replayed
