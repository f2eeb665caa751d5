"""Audit regression: forgetting a memory twice must not crowd the rejection list."""

from __future__ import annotations

from companion_memory.memory import MemoryStore, Status
from tests.memory.helpers import create, remove


async def test_forgetting_twice_keeps_one_rejection(store: MemoryStore) -> None:
    await store.apply([create("a", "Likes jazz concerts"), create("b", "Owns a red bicycle")])
    await store.forget("b", "wrong")
    await store.forget("a", "wrong")
    again = await store.forget("a", "still wrong")
    assert again.status is Status.DELETED and again.revision == 2
    # The 8 newest rejections go into every extraction prompt: a repeat must not push
    # other rejections out of that window.
    assert await store.recent_rejections() == ["Likes jazz concerts", "Owns a red bicycle"]
    assert (await store.stats())["rejections"] == 2


async def test_owner_forget_after_a_worker_removal_still_records_the_rejection(
        store: MemoryStore) -> None:
    await store.apply([create("a", "Likes jazz concerts")])
    await store.apply([remove("a", 1)])
    await store.forget("a", "never true")
    assert await store.is_rejected("likes jazz concerts")
