"""Forgetting a memory that leaked a secret leaves no copy of the secret anywhere.

The leaked memory is written with plain SQL, as a memory stored before the
secret check existed would be: the store's own paths now refuse such text.
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import date
from pathlib import Path

import orjson

from companion_memory.memory import MemoryStore, sweep_ledger
from companion_memory.memory.records import normalize_text
from companion_memory.memory.search_text import register as register_search_text
from tests.notifications.harness import T0, all_prompt_text, contract_step, event, pipeline

SENTINEL = "sk-proj-Q7vX2mK9pL4wR8tY3nB6cJ1hF5dS0aZe"
LEAKED = f"The deploy key for the home server is {SENTINEL}"


def _insert_memory(conn: sqlite3.Connection, memory_id: str, text: str, detail: str) -> None:
    us = int(T0.timestamp() * 1_000_000)
    conn.execute(
        "INSERT INTO memories (memory_id, revision, tier, kind, text, norm, authority, sources, "
        "created_us, updated_us, status, auto, detail) "
        "VALUES (?, 1, 'long_term', 'fact', ?, ?, 'direct_user_statement', '[\"context:1\"]', "
        "?, ?, 'active', 0, ?)",
        (memory_id, text, normalize_text(text), us, us, detail),
    )


def _plant_leak(conn: sqlite3.Connection) -> None:
    _insert_memory(conn, "leak", LEAKED, f"server deploy key {SENTINEL}")
    _insert_memory(conn, "copy", f"Anna sent the home server key {SENTINEL} by mail", "")
    staged = {"episode_id": "ep-1", "items": [
        {"action": "add", "index": 0, "kind": "device_procedure", "text": LEAKED},
        {"action": "add", "index": 1, "kind": "device_procedure", "text": "Wi-Fi is on"},
    ]}
    conn.execute(
        "INSERT INTO episode_ledger (episode_id, day, state, proposal_json, proposal_digest, "
        "registered_at, updated_at) VALUES ('ep-1', '2026-03-02', 'done', ?, 'd', ?, ?)",
        (orjson.dumps(staged).decode(), T0.isoformat(), T0.isoformat()),
    )
    page = orjson.dumps({
        "candidates": [{"action": "add", "text": LEAKED, "digest": "x", "sources": []}],
        "raw": orjson.dumps({"candidates": [{"text": LEAKED}]}).decode(),
    }).decode()
    sweep_ledger.put_stage(conn, sweep_ledger.Stage(
        1, "w-1", date(2026, 3, 2), 1, page, sweep_ledger.digest_text(page), T0))


def _database_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.glob("memory.sqlite3*")))


async def test_forgetting_a_leaked_secret_removes_every_copy(tmp_path: Path) -> None:
    async with pipeline(tmp_path, [contract_step]) as p:  # a model, to read its prompt
        await p.store.transaction(_plant_leak)
        assert SENTINEL.encode() in await asyncio.to_thread(_database_bytes, tmp_path)

        await p.store.forget("leak", f"it holds the key {SENTINEL}")

        # Still recognised: the same text (any case or spacing), and the same message
        # with another key in it, are refused as the owner's rejection.
        assert await p.store.is_rejected(LEAKED)
        assert await p.store.is_rejected("  the deploy KEY for the home server is " + SENTINEL)
        assert await p.store.is_rejected(LEAKED.replace(SENTINEL, "sk-proj-" + "Zq8" * 12))
        assert not await p.store.is_rejected("The deploy key for the garden shed")
        gists = await p.store.recent_rejections()
        assert gists == ["The deploy key for the home server is [redacted]"]

        # A later model prompt carries the gist, never the secret.
        p.publish(event("Dinner on Friday at 7 at the Greek place?"))
        await p.processor.run_batch()
        prompt = all_prompt_text(p.provider)
        assert "The deploy key for the home server is [redacted]" in prompt
        assert SENTINEL not in prompt

        exported = orjson.dumps(await p.store.export()).decode()
        assert SENTINEL not in exported
        copy = next(r for r in await p.memories() if r.memory_id == "copy")
        assert copy.text == "Anna sent the home server key [redacted] by mail"
        assert copy.revision == 2

        def staged(conn: sqlite3.Connection) -> tuple[str, str, str, str]:
            proposal, digest = conn.execute(
                "SELECT proposal_json, proposal_digest FROM episode_ledger").fetchone()
            output, stage_digest = conn.execute(
                "SELECT output, digest FROM sweep_stages").fetchone()
            return proposal, digest, output, stage_digest

        proposal, digest, output, stage_digest = await p.store.read(staged)
        items = orjson.loads(proposal)["items"]
        assert [i["index"] for i in items] == [1]  # the other item keeps its index
        assert orjson.loads(output)["candidates"] == []
        assert sweep_ledger.digest_text(output) == stage_digest and digest != "d"

    # Nothing of the secret is left in the database files, free pages and WAL included.
    data = await asyncio.to_thread(_database_bytes, tmp_path)
    assert SENTINEL.encode() not in data
    assert b"Q7vX2mK9pL4wR8tY3nB6cJ1hF5dS0aZe" not in data


def _downgrade(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    register_search_text(conn)  # the memories triggers name its functions
    conn.executescript(f"""
        PRAGMA secure_delete = ON;
        BEGIN;
        DELETE FROM schema_migrations WHERE name = '0005_memory_rejection_fingerprints';
        DROP TABLE memory_rejections;
        CREATE TABLE memory_rejections (
            id INTEGER PRIMARY KEY AUTOINCREMENT, memory_id TEXT NOT NULL, norm TEXT NOT NULL,
            text TEXT NOT NULL, reason TEXT NOT NULL, at_us INTEGER NOT NULL);
        CREATE INDEX memory_rejections_norm ON memory_rejections (norm);
        INSERT INTO memories (memory_id, revision, tier, kind, text, norm, authority, sources,
            created_us, updated_us, status, status_reason, auto, detail)
            VALUES ('old', 2, 'long_term', 'fact', '{LEAKED}', '{normalize_text(LEAKED)}',
            'inference', '[]', 1, 2, 'deleted', 'owner: no', 1, '{SENTINEL}');
        INSERT INTO memory_rejections (memory_id, norm, text, reason, at_us)
            VALUES ('old', '{normalize_text(LEAKED)}', '{LEAKED}', 'no', 2);
        COMMIT;
        PRAGMA wal_checkpoint(TRUNCATE);
    """)
    conn.close()


async def test_rejections_written_before_are_converted_by_the_migration(
    tmp_path: Path,
) -> None:
    path = tmp_path / "memory.db"
    store = await MemoryStore.open(path)
    await store.close()
    # Put the database back to the shape it had before rejections kept no text.
    await asyncio.to_thread(_downgrade, path)

    store = await MemoryStore.open(path)
    try:
        assert await store.is_rejected(LEAKED)
        assert await store.recent_rejections() == [
            "The deploy key for the home server is [redacted]"
        ]
        records = await store.list_records(include_inactive=True)
        assert [r.text for r in records] == ["The deploy key for the home server is [redacted]"]
    finally:
        await store.close()
    data = await asyncio.to_thread(
        lambda: b"".join(p.read_bytes() for p in sorted(tmp_path.glob("memory.db*"))))
    assert SENTINEL.encode() not in data
