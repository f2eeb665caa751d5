"""A runtime whose memory index goes bad while it runs: the round that meets it keeps the
notifications pending and says why in status; the next round's storage step derives the
index again from the memories and the pending work is committed. Nothing is lost."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from companion_memory.ble.events import NotificationEvent
from companion_memory.core.clock import FakeClock
from companion_memory.device import Runtime, parse_config
from companion_memory.storage.monitor import FakeDiskProbe

START = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
CONFIG = parse_config({"worker": {"idle_delay_s": 60}})


def ev(key: str, body: str) -> NotificationEvent:
    return NotificationEvent.create(kind="added", key=key, app_id="net.whatsapp.WhatsApp",
                                    title="Anna", body=body, posted_at=START)


def _damage_index(db: Path) -> None:
    """What FTS5 refuses: a structure record claiming more levels than it allows."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        block = conn.execute("SELECT block FROM memories_fts_data WHERE id = 10").fetchone()[0]
        conn.execute("UPDATE memories_fts_data SET block = ? WHERE id = 10",
                     (bytes(block[:4]) + b"\x90\x34" + bytes(block[5:]),))
    finally:
        conn.close()


async def test_a_round_repairs_a_malformed_index_and_loses_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    clock = FakeClock(START)
    async with Runtime(CONFIG, root=root, clock=clock, start_worker=False,
                       probe=FakeDiskProbe(free_bytes=4 << 30)) as runtime:
        await runtime.feed([ev("k1", "Dinner on Saturday at 7 at the Italian place?")])
        await runtime.run_once()
        assert (await runtime.status()).store_problem is None
        assert (await runtime.check_store()).ok

        await asyncio.to_thread(_damage_index, root / "memory.sqlite3")
        await runtime.feed([ev("k2", "The ferry to Hiddensee leaves at 10:15 tomorrow")])
        first = await runtime.run_once()
        notes = next(r for r in first.reports if r.processor == "notifications")
        assert notes.error == "store_corrupt" and notes.gaps == 0
        status = await runtime.status()
        assert status.pending == 1 and status.gap_count == 0
        assert status.store_problem is not None and "rebuilds it" in status.store_problem
        assert "store_problem" in status.to_dict()

        await clock.advance(61)  # past the notification processor's back-off
        second = await runtime.run_once()
        storage = next(r for r in second.reports if r.processor == "storage")
        assert storage.error is None and storage.extra["index_repaired"] >= 1
        notes = next(r for r in second.reports if r.processor == "notifications")
        assert notes.error is None and notes.applied == 1
        status = await runtime.status()
        assert status.pending == 0 and status.gap_count == 0 and status.store_problem is None
        assert (await runtime.check_store()).ok
        assert await runtime.recall_memory("ferry Hiddensee")
        assert await runtime.recall_memory("dinner Saturday Italian")
