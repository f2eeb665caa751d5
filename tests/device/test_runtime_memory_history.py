"""The owner's update of a memory and a memory's history, through the host API; forget
scrubs the history as every other copy (a real `Runtime`, keyword recall)."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from companion_memory import (
    Authority,
    ConflictError,
    InvalidInputError,
    MemoryNotFoundError,
    MemoryRevision,
    NotificationEvent,
    Runtime,
    Status,
)
from companion_memory.core.clock import FakeClock
from companion_memory.device import parse_config
from companion_memory.memory.records import RevisionConflictError, SecretInStatementError
from companion_memory.storage.monitor import FakeDiskProbe

NOW = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
KEYWORDS = parse_config({"memory": {"embedder": "none"}})
OLD_WORD = "Halvorsenweg"


def runtime(tmp_path: Path, clock: FakeClock) -> Runtime:
    return Runtime(KEYWORDS, root=tmp_path / "root", clock=clock,
                   probe=FakeDiskProbe(free_bytes=4 << 30), start_worker=False)


def _every_table_row(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        names = [n for (n,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        return repr([conn.execute(f'SELECT * FROM "{n}"').fetchall() for n in names])
    finally:
        conn.close()


def _database_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.glob("memory.sqlite3*")))


async def test_the_owner_updates_with_compare_and_set(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    async with runtime(tmp_path, clock) as rt:
        saved = (await rt.save_memory("The spare key is with Ben")).record
        await clock.advance(60)
        updated = await rt.update_memory(saved.memory_id, "The spare key is with Carla",
                                         expected_revision=saved.revision)
        assert updated.revision == saved.revision + 1
        assert updated.text == "The spare key is with Carla"
        assert updated.authority is Authority.DIRECT_USER_STATEMENT
        assert [h.record.memory_id for h in await rt.recall_memory("Carla")] == [
            saved.memory_id]
        with pytest.raises(RevisionConflictError) as stale:
            await rt.update_memory(saved.memory_id, "The spare key is with Dora",
                                   expected_revision=saved.revision)
        assert isinstance(stale.value, ConflictError) and "Dora" not in str(stale.value)
        secret = "The alarm PIN is 4831, password hunter2xyz!"
        with pytest.raises(SecretInStatementError) as refused:
            await rt.update_memory(saved.memory_id, secret, expected_revision=updated.revision)
        assert "4831" not in str(refused.value) and "hunter2" not in str(refused.value)
        with pytest.raises(InvalidInputError, match="expected_revision"):
            await rt.update_memory(saved.memory_id, "x y", expected_revision=0)
        with pytest.raises(MemoryNotFoundError):
            await rt.update_memory("mem-nope", "x y", expected_revision=1)
        assert (await rt.read_memory(saved.memory_id)).revision == updated.revision
        with pytest.raises(MemoryNotFoundError):
            await rt.read_memory("mem-nope")

        history = await rt.memory_history(saved.memory_id)
        assert all(isinstance(r, MemoryRevision) for r in history)
        assert [(r.revision, r.op, r.origin, r.text) for r in history] == [
            (1, "create", "host", "The spare key is with Ben"),
            (2, "update", "host", "The spare key is with Carla"),
        ]
        assert [r.at for r in history] == [NOW, NOW + timedelta(seconds=60)]
        with pytest.raises(MemoryNotFoundError):
            await rt.memory_history("mem-nope")
        await rt.forget(saved.memory_id, "wrong")
        assert (await rt.read_memory(saved.memory_id)).status is Status.DELETED


async def test_a_notification_memory_has_its_history(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    async with runtime(tmp_path, clock) as rt:
        event = NotificationEvent.create(
            kind="added", key="k1", app_id="net.whatsapp.WhatsApp", title="Anna",
            body="Dinner on Saturday at the Italian place?", category="social",
            posted_at=NOW - timedelta(hours=1))
        await rt.feed([event])
        await rt.run_once()
        (memory,) = await rt.list_memories()
        history = await rt.memory_history(memory.memory_id)
        assert [(r.revision, r.op, r.origin) for r in history] == [(1, "create",
                                                                    "notifications")]
        assert history[0].text == memory.text


async def test_forget_scrubs_the_history(tmp_path: Path) -> None:
    clock = FakeClock(NOW)
    root = tmp_path / "root"
    async with runtime(tmp_path, clock) as rt:
        saved = (await rt.save_memory(f"The storage unit is at {OLD_WORD} 12")).record
        updated = await rt.update_memory(saved.memory_id, "The storage unit moved to the "
                                         "harbour", expected_revision=saved.revision)
        other = (await rt.save_memory("Mia is allergic to nuts")).record
        assert OLD_WORD in await asyncio.to_thread(_every_table_row, root / "memory.sqlite3")
        await rt.forget(updated.memory_id, reason="wrong")
        history = await rt.memory_history(updated.memory_id)
        assert [r.op for r in history] == ["create", "update", "forget"]
        assert [r.text for r in history] == [None, None, None]
        assert history[-1].reason == "forgotten_by_owner"
        kept = await rt.memory_history(other.memory_id)
        assert [r.text for r in kept] == ["Mia is allergic to nuts"]
        assert OLD_WORD not in await asyncio.to_thread(_every_table_row,
                                                       root / "memory.sqlite3")
    assert OLD_WORD.encode() not in await asyncio.to_thread(_database_bytes, root)
