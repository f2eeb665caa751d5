"""Content-free memory write events for the host: after the commit only, bounded per
subscriber (a slow one loses its oldest events, counted, and blocks nobody)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from companion_memory import (
    InvalidInputError,
    Kind,
    MemoryWrite,
    MemoryWriteStream,
    NotificationEvent,
    Runtime,
    Tier,
)
from companion_memory.core.clock import FakeClock
from companion_memory.device import parse_config
from companion_memory.memory import (
    IntentOp,
    MemoryIntent,
    MemoryStore,
    RevisionConflictError,
    SourceRef,
)
from companion_memory.storage.monitor import FakeDiskProbe
from tests.memory.helpers import create, update

NOW = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
KEYWORDS = parse_config({"memory": {"embedder": "none"}})


def runtime(tmp_path: Path) -> Runtime:
    return Runtime(KEYWORDS, root=tmp_path / "root", clock=FakeClock(NOW),
                   probe=FakeDiskProbe(free_bytes=4 << 30), start_worker=False)


async def drain(stream: MemoryWriteStream) -> list[MemoryWrite]:
    """What the stream holds now (reading it never waits while events are queued)."""
    return [await anext(stream) for _ in range(stream.pending())]


async def test_every_scenario_writes_events_without_content(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        stream = rt.memory_writes()
        seen: list[MemoryWrite] = []
        unsubscribe = rt.on_memory_write(seen.append)
        await rt.feed([NotificationEvent.create(
            kind="added", key="k1", app_id="net.whatsapp.WhatsApp", title="Anna",
            body="Dinner on Saturday at the Italian place?", category="social",
            posted_at=NOW - timedelta(hours=1))])
        await rt.run_once()
        saved = (await rt.save_memory("The spare key is with Ben")).record
        await rt.update_memory(saved.memory_id, "The spare key is with Carla",
                               expected_revision=1)
        await rt.forget(saved.memory_id, reason="wrong")
        writes = await _first(stream, 4)
        assert [(w.op, w.origin) for w in writes] == [
            ("create", "notifications"), ("create", "host"), ("update", "host"),
            ("forget", "host")]
        assert writes[1:] and {w.memory_id for w in writes[1:]} == {saved.memory_id}
        assert [w.revision for w in writes[1:]] == [1, 2, 3]
        assert writes[0].tier in (Tier.TEMPORARY, Tier.LONG_TERM)
        assert writes[1].kind is Kind.FACT and writes[1].at == NOW
        assert seen == writes
        text = repr(writes)
        for word in ("Dinner", "Italian", "Anna", "Ben", "Carla", "spare"):
            assert word not in text
        unsubscribe()
        await rt.save_memory("Mia is allergic to nuts")
        assert len(seen) == 4 and stream.pending() == 1
    # the runtime's close ends the stream after what it still holds
    rest = [w async for w in stream]
    assert [w.op for w in rest] == ["create"] and stream.closed


async def _first(stream: MemoryWriteStream, n: int) -> list[MemoryWrite]:
    out: list[MemoryWrite] = []
    async with asyncio.timeout(10):
        async for write in stream:
            out.append(write)
            if len(out) == n:
                break
    return out


async def test_a_slow_subscriber_loses_its_oldest_events_and_blocks_nobody(
    tmp_path: Path,
) -> None:
    async with runtime(tmp_path) as rt:
        slow = rt.memory_writes(capacity=3)
        fast = rt.memory_writes()
        ids = [(await rt.save_memory(f"Fact number {n} about the garden")).record.memory_id
               for n in range(8)]
        assert slow.dropped == 5 and [w.memory_id for w in await drain(slow)] == ids[-3:]
        assert fast.dropped == 0 and [w.memory_id for w in await drain(fast)] == ids
        slow.close()
        await rt.save_memory("One more fact about the shed")
        assert slow.pending() == 0 and fast.pending() == 1
        with pytest.raises(InvalidInputError, match="capacity"):
            rt.memory_writes(capacity=0)
        with pytest.raises(InvalidInputError, match="callback"):
            rt.on_memory_write("not callable")  # type: ignore[arg-type]


async def test_no_event_for_a_rolled_back_write(tmp_path: Path) -> None:
    async with await MemoryStore.open(tmp_path / "m.db", clock=FakeClock(NOW)) as store:
        seen: list[MemoryWrite] = []
        store.subscribe_writes(seen.append)
        await store.apply([create("a", "Dinner with Anna on Friday")], origin="notifications")
        assert [(w.memory_id, w.op, w.origin) for w in seen] == [("a", "create",
                                                                  "notifications")]
        # the second intent fails: the batch rolls back, the first intent's create too
        with pytest.raises(RevisionConflictError):
            await store.apply([create("b", "Lunch with Ben on Monday"),
                               update("a", 7, "Dinner with Anna on Saturday")])
        assert await store.get("b") is None
        assert len(seen) == 1

        def failing(conn: object) -> None:
            from companion_memory.memory.intents import apply_intents
            apply_intents(conn, [create("c", "Tea with Carla")], now=NOW,  # type: ignore[arg-type]
                          temporary_ttl=timedelta(days=7), long_term_ttl=timedelta(days=90))
            raise RuntimeError("the caller's own step fails after the intents applied")

        with pytest.raises(RuntimeError):
            await store.transaction(failing)
        assert await store.get("c") is None and len(seen) == 1
        await store.apply([MemoryIntent(op=IntentOp.REINFORCE, memory_id="a",
                                        expected_revision=1,
                                        sources=(SourceRef.parse("context:9"),))])
        assert [w.op for w in seen] == ["create", "reinforce"]


async def test_an_expired_memory_is_a_write_event_when_the_cleaner_removes_it(
    tmp_path: Path,
) -> None:
    clock = FakeClock(NOW)
    async with await MemoryStore.open(tmp_path / "m.db", clock=clock) as store:
        seen: list[MemoryWrite] = []
        store.subscribe_writes(seen.append)
        await store.apply([create("a", "Dinner with Anna on Friday", tier=Tier.TEMPORARY),
                           create("b", "Lunch with Ben on Monday", tier=Tier.LONG_TERM)])
        await clock.advance((store.ttls[0] + timedelta(hours=1)).total_seconds())
        assert (await store.cleanup_expired()).removed == 1
        expired = [w for w in seen if w.op == "expire"]
        assert [(w.memory_id, w.origin, w.tier, w.revision) for w in expired] == [
            ("a", "store", Tier.TEMPORARY, 1)]
        assert expired[0].at == clock.now()
        # nothing left to expire: no second event
        await store.cleanup_expired()
        assert [w.op for w in seen].count("expire") == 1
