"""save_memory duplicate detection, forget/rejections, export, cleanup and stats."""

from __future__ import annotations

from datetime import timedelta

import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory import (
    InvalidMemoryError,
    Kind,
    MemoryNotFoundError,
    MemoryStore,
    RejectedContentError,
    Status,
    Tier,
)
from tests.memory.helpers import create, reinforce, remove


async def test_save_memory_creates_then_returns_exact_duplicate(store: MemoryStore) -> None:
    first = await store.save_memory("Prefers oat milk in coffee", kind=Kind.PREFERENCE,
                                    sources=["agent:turn-1"])
    assert first.created and first.record.expires_at is None and not first.record.auto
    again = await store.save_memory("  prefers OAT milk in coffee! ", kind=Kind.PREFERENCE,
                                    sources=["agent:turn-2"])
    assert not again.created and again.record.memory_id == first.record.memory_id
    assert (await store.stats())["long_term.active"] == 1


async def test_save_memory_returns_near_duplicate(store: MemoryStore) -> None:
    first = await store.save_memory("Anna's birthday is on March 4", kind=Kind.FACT,
                                    sources=["agent:t"])
    near = await store.save_memory("Anna birthday is March 4th, 4", kind=Kind.FACT,
                                   sources=["agent:t"])
    assert not near.created and near.record.memory_id == first.record.memory_id
    other = await store.save_memory("Anna's wedding is on June 4", kind=Kind.FACT,
                                    sources=["agent:t"])
    assert other.created


async def test_save_memory_validation(store: MemoryStore) -> None:
    with pytest.raises(InvalidMemoryError, match="text: must not be empty"):
        await store.save_memory(" ", kind=Kind.FACT, sources=["agent:t"])
    with pytest.raises(InvalidMemoryError, match="at least one source is required"):
        await store.save_memory("x", kind=Kind.FACT, sources=[])
    with pytest.raises(InvalidMemoryError, match="unknown source kind"):
        await store.save_memory("x", kind=Kind.FACT, sources=["web:1"])
    with pytest.raises(InvalidMemoryError, match="device_quirk is not allowed in tier long_term"):
        await store.save_memory("x", kind=Kind.DEVICE_QUIRK, sources=["agent:t"])
    assert (await store.stats())["live"] == 0


async def test_forget_tombstones_and_records_rejection(store: MemoryStore) -> None:
    await store.apply([create("a", "Likes jazz concerts")])
    forgotten = await store.forget("a", "wrong")
    assert forgotten.status is Status.DELETED and forgotten.revision == 2
    assert await store.recall("jazz") == []
    assert await store.is_rejected("likes JAZZ concerts.")
    assert not await store.is_rejected("likes rock concerts")
    assert await store.recent_rejections() == ["Likes jazz concerts"]
    with pytest.raises(RejectedContentError):
        await store.save_memory("Likes jazz concerts", kind=Kind.PREFERENCE, sources=["agent:t"])
    with pytest.raises(MemoryNotFoundError):
        await store.forget("nope", "x")
    with pytest.raises(InvalidMemoryError, match="reason: must be a non-empty string"):
        await store.forget("a", "  ")


async def test_recent_rejections_are_bounded(store: MemoryStore) -> None:
    texts = [f"{i} " + "word " * 60 for i in range(10)]
    await store.apply([create(f"m{i}", t.strip()) for i, t in enumerate(texts)])
    for i in range(10):
        await store.forget(f"m{i}", "no")
    shown = await store.recent_rejections()
    assert len(shown) == 8
    assert all(len(t) <= 180 for t in shown)
    assert sum(len(t) for t in shown) <= 1600
    assert shown[0].startswith("9 ") and shown[-1].startswith("2 ")


async def test_export_has_live_records_and_tombstones(store: MemoryStore, clock: FakeClock) -> None:
    await store.apply([create("live"), create("gone", "Old plan"),
                       create("tmp", "Soon expired", tier=Tier.TEMPORARY)])
    await store.forget("gone", "wrong")
    clock.set_wall(clock.now() + timedelta(days=8))
    rows = await store.export()
    assert [(r["memory_id"], r["tombstone"]) for r in rows] == [("live", False), ("gone", True)]
    assert rows[1]["reason"] == "owner: wrong"
    stats = await store.cleanup_expired()
    assert stats.removed == 2
    rows = await store.export()
    assert {(r["memory_id"], r["status"]) for r in rows} == {
        ("live", "active"), ("gone", "deleted"), ("tmp", "expired")
    }


async def test_cleanup_reports_bytes_freed(store: MemoryStore, clock: FakeClock) -> None:
    big = [create(f"t{i}", f"Temporary note {i} " + "filler " * 60, tier=Tier.TEMPORARY)
           for i in range(400)]
    await store.apply(big)
    clock.set_wall(clock.now() + timedelta(days=7, seconds=1))
    before = (await store.stats())["database_bytes"]
    result = await store.cleanup_expired()
    assert result.removed == 400
    assert result.bytes_freed > 0
    assert (await store.stats())["database_bytes"] == before - result.bytes_freed
    assert (await store.cleanup_expired()).removed == 0


async def test_reinforced_long_term_survives_past_90_days(
    store: MemoryStore, clock: FakeClock
) -> None:
    await store.apply([create("a"), create("b", "Other")])
    clock.set_wall(clock.now() + timedelta(days=60))
    await store.apply([reinforce("a", 1)])
    clock.set_wall(clock.now() + timedelta(days=31))
    assert [r.memory_id for r in await store.list_records()] == ["a"]
    assert len(await store.list_records(include_inactive=True)) == 2


async def test_list_records_stats_and_delete_all(store: MemoryStore) -> None:
    await store.apply([create("a"), create("d", "Dock", tier=Tier.DEVICE,
                                           kind=Kind.DEVICE_LOCATION), create("x", "X")])
    await store.apply([remove("x", 1)])
    assert [r.memory_id for r in await store.list_records(tier=Tier.DEVICE)] == ["d"]
    stats = await store.stats()
    assert stats["long_term.active"] == 1 and stats["device.active"] == 1
    assert stats["long_term.deleted"] == 1 and stats["live"] == 2
    assert await store.delete_all() == 3
    assert (await store.stats())["live"] == 0 and await store.export() == []
