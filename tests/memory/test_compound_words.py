"""Compound words: `wifi` finds "Wi-Fi", `email` finds "e-mail", `wi-fi` finds "WiFi".

The index holds `search_document(text, detail)` (stems of the words and of their
joined forms); `expected_vocab` recomputes, from the live rows, the
document count every term must have, so a trigger that inserts one form and deletes
another (or a migration that misses a row) shows up as a mismatch.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections import Counter
from pathlib import Path

from companion_memory.memory import MemoryStore
from companion_memory.memory.database import _apply_migrations
from companion_memory.memory.migrations import MIGRATIONS
from companion_memory.memory.recall import query_terms
from companion_memory.memory.search_text import joined_forms, search_document, search_text
from tests.memory.helpers import create, insert_old_row, remove, update

WORD = re.compile(r"[^\W_]+")


def expected_vocab(conn: sqlite3.Connection) -> Counter[str]:
    docs: Counter[str] = Counter()
    for text, detail in conn.execute(
        "SELECT text, detail FROM memories WHERE status = 'active'"
    ):
        docs.update(set(WORD.findall(search_document(str(text), str(detail)))))
    return docs


def index_vocab(conn: sqlite3.Connection) -> Counter[str]:
    rows = conn.execute("SELECT term, doc FROM memories_vocab")
    return Counter({str(term): int(doc) for term, doc in rows})


async def ids(store: MemoryStore, query: str) -> set[str]:
    return {hit.record.memory_id for hit in await store.recall(query, limit=10)}


def test_search_text_joins_only_hyphenated_words() -> None:
    assert search_text("Home Wi-Fi is Lighthouse") == "Home Wi-Fi is Lighthouse\nWiFi"
    assert search_text("plain words - a dash, no compound") == "plain words - a dash, no compound"
    assert search_text("no hyphen at all") == "no hyphen at all"
    assert joined_forms("e-mail, X-ray-9 and e\u2011mail") == ["email", "Xray9"]
    assert query_terms("wi-fi code") == ["wi", "fi", "code", "cod", "wifi"]  # + stems
    assert query_terms("wifi") == ["wifi"]


async def test_joined_and_hyphenated_queries_find_each_other(store: MemoryStore) -> None:
    await store.apply([
        create("a", "The home Wi-Fi network is called Lighthouse"),
        create("b", "Send the invoice by e-mail to the landlord"),
        create("c", "Office wifi is flaky on Mondays"),
        create("d", "Anna prefers email over calls"),
    ])
    assert await ids(store, "wifi") == {"a", "c"}
    assert await ids(store, "wi-fi") == {"a", "c"}
    assert await ids(store, "email") == {"b", "d"}
    assert await ids(store, "e-mail") >= {"b", "d"}
    assert await ids(store, "lighthouse") == {"a"}
    related = await store.related_many(["wifi down again", "new e-mail from Anna"], limit=5)
    assert {r.memory_id for r in related[0]} == {"a", "c"}
    assert {r.memory_id for r in related[1]} >= {"b", "d"}
    assert await store.read(index_vocab) == await store.read(expected_vocab)


async def test_updates_and_removals_keep_the_index_exact(store: MemoryStore) -> None:
    await store.apply([create("a", "Wi-Fi password is on the fridge"),
                       create("b", "Ethernet cable in the drawer")])
    await store.apply([update("a", 1, "Ethernet-only setup now, no wireless")])
    assert await ids(store, "wifi") == set()
    assert await ids(store, "ethernetonly") == {"a"}
    await store.apply([remove("a", 2)])
    assert await ids(store, "ethernet") == {"b"}
    assert await store.read(index_vocab) == await store.read(expected_vocab)
    assert "ethernetonly" not in await store.read(index_vocab)


def old_database(path: Path) -> None:
    """A database at migration 0002 (raw-text index) holding one hyphenated memory."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        _apply_migrations(conn, [m for m in MIGRATIONS if m.name < "0003"])
        insert_old_row(conn, "old", "Guest Wi-Fi is BlueFox", norm="guest wi-fi is bluefox")
        assert index_vocab(conn) == Counter({"guest": 1, "wi": 1, "fi": 1, "is": 1,
                                             "bluefox": 1})
    finally:
        conn.close()


async def test_migration_reindexes_rows_written_before_it(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    await asyncio.to_thread(old_database, path)
    store = await MemoryStore.open(path)
    try:
        assert await ids(store, "wifi") == {"old"}
        assert await store.read(index_vocab) == await store.read(expected_vocab)
        await store.apply([remove("old", 1)])  # the delete trigger removes the joined form
        assert await store.read(index_vocab) == Counter()
    finally:
        await store.close()
