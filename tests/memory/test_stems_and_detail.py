"""Recall knows what the raw log knows: sources' words, English/German stems, accents, glossary.

Migration 0004 indexes `search_document(text, detail)`: the memory's statement and its
search-only detail (the words of the notifications it came from) as Snowball stems of
both languages plus glossary words of the other language. Detail is cleared when the log
would drop its sources, or with the memory when its Temporary TTL ends first.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory import (
    IntentOp,
    Kind,
    MemoryIntent,
    MemoryStore,
    SourceKind,
    SourceRef,
    Tier,
)
from companion_memory.memory.database import _apply_migrations
from companion_memory.memory.migrations import MIGRATIONS
from companion_memory.memory.recall import NEWER_WITHIN, prefer_newer, query_terms
from companion_memory.memory.records import InvalidMemoryError
from companion_memory.memory.search_text import search_document
from tests.memory.helpers import create, insert_old_row


def with_detail(
    memory_id: str, text: str, detail: str, *, until: object = None, tier: Tier = Tier.TEMPORARY
) -> MemoryIntent:
    return MemoryIntent(
        op=IntentOp.CREATE, memory_id=memory_id, tier=tier, kind=Kind.EVENT, text=text,
        sources=(SourceRef(SourceKind.CONTEXT, "1"),), detail=detail,
        detail_until=until,  # type: ignore[arg-type]
    )


async def ids(store: MemoryStore, query: str) -> list[str]:
    return [hit.record.memory_id for hit in await store.recall(query, limit=10)]


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("Priya is researching coral reefs", "research"),
        ("Max painted a dinosaur at the kita", "paint"),
        ("Zwei Termine beim Zahnarzt im April", "Termin"),
        ("Die Tierärztin hat angerufen", "tierarztin"),
        ("Ihr ICE fährt heute von Gleis 7", "which platform"),
        ("Zahnarzttermin am Donnerstag", "dentist appointment"),
        ("Der Kurs fällt aus, Nachholtermin am Samstag", "saturday"),
        ("Dentist on Friday at 9", "Zahnarzt"),
    ],
)
async def test_stems_accents_and_the_glossary_find_the_memory(
    store: MemoryStore, text: str, query: str
) -> None:
    await store.apply([create("m", text), create("other", "Buy oat milk and bread")])
    assert await ids(store, query) == ["m"]


async def test_detail_words_are_searchable_but_never_shown(store: MemoryStore) -> None:
    detail = ("WhatsApp\nAnna\nLong message. " + "filler words here. " * 40
              + "The spare key is under the blue flowerpot.")
    await store.apply([with_detail("m", "WhatsApp message from Anna", detail)])
    hits = await store.recall("flowerpot", limit=5)
    assert [h.record.memory_id for h in hits] == ["m"]
    assert hits[0].record.text == "WhatsApp message from Anna"
    assert "flowerpot" not in str(hits[0].record.to_dict())


WORDS = "Abholung Lindenstrasse 12 bis Mittwoch"


async def test_the_temporary_ttl_governs_and_the_words_never_outlive_the_log(
    tmp_path: Path,
) -> None:
    """`detail_until` (when the log drops the sources) never extends a Temporary memory:
    with a TTL shorter than the log's retention the memory and its words go at the TTL;
    with a longer one the words go when the log drops them and the memory stays."""
    clock = FakeClock()
    store = await MemoryStore.open(tmp_path / "m.db", clock=clock,
                                   temporary_ttl=timedelta(days=7))
    try:
        start = clock.now()
        until = start + timedelta(days=14)
        await store.apply([with_detail("m", "Parcel from DHL", WORDS, until=until)])
        record = await store.get("m")
        assert record is not None and record.expires_at == start + timedelta(days=7)
        clock.set_wall(start + timedelta(days=6))
        assert await ids(store, "Lindenstrasse") == ["m"]
        clock.set_wall(start + timedelta(days=7, seconds=1))
        await store.cleanup_expired()
        assert await ids(store, "Lindenstrasse") == [] and await store.get("m") is None
    finally:
        await store.close()
    clock = FakeClock()
    store = await MemoryStore.open(tmp_path / "long.db", clock=clock,
                                   temporary_ttl=timedelta(days=30))
    try:
        start = clock.now()
        await store.apply([with_detail("m", "Parcel from DHL", WORDS,
                                       until=start + timedelta(days=14))])
        record = await store.get("m")
        assert record is not None and record.expires_at == start + timedelta(days=30)
        clock.set_wall(start + timedelta(days=14, seconds=1))
        await store.cleanup_expired()
        assert await ids(store, "Lindenstrasse") == []  # the log dropped the words
        assert await ids(store, "parcel DHL") == ["m"]  # the memory lives its TTL
    finally:
        await store.close()


async def test_a_long_term_memory_loses_only_its_detail_when_the_log_drops_it(
    tmp_path: Path, clock: FakeClock
) -> None:
    store = await MemoryStore.open(tmp_path / "m.db", clock=clock)
    try:
        until = clock.now() + timedelta(days=14)
        await store.apply([with_detail("m", "Nina moved to Lychener Strasse",
                                       "Hausnummer 14, dritter Stock", until=until,
                                       tier=Tier.LONG_TERM)])
        clock.set_wall(until + timedelta(seconds=1))
        await store.cleanup_expired()
        assert await ids(store, "Hausnummer") == []
        assert await ids(store, "Lychener") == ["m"]
    finally:
        await store.close()


async def test_an_update_replaces_the_indexed_detail(store: MemoryStore) -> None:
    await store.apply([with_detail("m", "Party at Sanne's", "bij ons thuis, Javastraat")])
    await store.apply([MemoryIntent(
        op=IntentOp.UPDATE, memory_id="m", expected_revision=1, text="Party at Sanne's",
        sources=(SourceRef(SourceKind.CONTEXT, "2"),), detail="Café De Ponteneur, Oost",
    )])
    assert await ids(store, "Ponteneur") == ["m"]
    assert await ids(store, "Javastraat") == []
    vocab = await store.read(index_vocab)
    assert vocab == await store.read(expected_vocab)


def test_detail_is_bounded() -> None:
    with pytest.raises(InvalidMemoryError, match="detail"):
        with_detail("m", "x y z", "a" * 9000)


def index_vocab(conn: sqlite3.Connection) -> Counter[str]:
    rows = conn.execute("SELECT term, doc FROM memories_vocab")
    return Counter({str(t): int(d) for t, d in rows})


def expected_vocab(conn: sqlite3.Connection) -> Counter[str]:
    docs: Counter[str] = Counter()
    for text, detail in conn.execute("SELECT text, detail FROM memories WHERE status = 'active'"):
        docs.update(set(search_document(str(text), str(detail)).split()))
    return docs


def database_at_0003(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        from companion_memory.memory.search_text import register

        register(conn)
        _apply_migrations(conn, [m for m in MIGRATIONS if m.name < "0004"])
        insert_old_row(conn, "old", "Priya is researching Termine")
    finally:
        conn.close()


async def test_migration_0004_rebuilds_an_existing_index(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    await asyncio.to_thread(database_at_0003, path)
    store = await MemoryStore.open(path)
    try:
        assert await ids(store, "research") == ["old"]
        assert await ids(store, "Termin") == ["old"]
        assert await store.read(index_vocab) == await store.read(expected_vocab)
    finally:
        await store.close()


async def test_a_newer_memory_about_the_same_thing_ranks_first(
    tmp_path: Path, clock: FakeClock
) -> None:
    for window, first in ((0.2, "new"), (0.0, "old")):
        store = await MemoryStore.open(tmp_path / f"{window}.db", clock=clock,
                                       newer_within=window)
        try:
            await store.apply([create("old", "Vet appointment for Bruno on Wednesday 11 March "
                                             "at 16:20 with Dr. Sommer")])
            clock.set_wall(clock.now() + timedelta(hours=1))
            await store.apply([create("new", "Vet appointment for Bruno moved to Friday "
                                             "13 March at 9:00 with Dr. Sommer, new time")])
            order = await ids(store, "when is Bruno's vet appointment")
            assert order[0] == first and set(order) == {"old", "new"}
            # a newer memory that misses a query term the older one holds does not jump
            assert (await ids(store, "Wednesday vet"))[0] == "old"
        finally:
            await store.close()


async def test_newer_means_what_it_says_not_when_it_was_written(
    tmp_path: Path, clock: FakeClock
) -> None:
    store = await MemoryStore.open(tmp_path / "m.db", clock=clock)
    try:
        said = clock.now()
        await store.apply([create("moved", "Vet appointment for Bruno moved to Friday "
                                           "13 March at 9:00 with Dr. Sommer, new time")])
        clock.set_wall(clock.now() + timedelta(hours=20))
        # the night's consolidated line of the day before: written last, about older news
        line = dataclasses.replace(
            create("line", "Mon 9 March: vet appointment for Bruno on Wednesday 11 March at "
                           "16:20 with Dr. Sommer", tier=Tier.LONG_TERM),
            occurred_at=said - timedelta(days=1))
        await store.apply([line])
        order = await ids(store, "when is Bruno's vet appointment")
        assert order[0] == "moved" and set(order) == {"moved", "line"}
    finally:
        await store.close()


async def test_a_newer_notice_with_the_same_order_number_ranks_first(
    tmp_path: Path, clock: FakeClock
) -> None:
    """The change names the order by its number, not by what was ordered: it lacks a word
    of the question the shipping notice holds ("fryer"), but shares the reference number,
    so when the two score alike the newer one comes first."""
    store = await MemoryStore.open(tmp_path / "m.db", clock=clock)
    try:
        await store.apply([create("shipped", "Shop: order 250507K9Q2 (air fryer, black) has "
                                             "been shipped, delivery on Friday")])
        clock.set_wall(clock.now() + timedelta(days=1))
        await store.apply([create("moved", "Shop: we could not deliver order 250507K9Q2 "
                                           "today, new delivery on Saturday")])
        await store.apply([create("other", "Shop: order 260101X1Y2 (kettle) could not be "
                                           "delivered today, new delivery on Monday")])
        records = {}
        for memory_id in ("shipped", "moved", "other"):
            record = await store.get(memory_id)
            assert record is not None
            records[memory_id] = record
        terms = query_terms("when is the air fryer delivery")
        assert "fryer" in terms
        swapped = await store.read(lambda conn: prefer_newer(
            conn, [(records["shipped"], 1.0), (records["moved"], 0.9)], terms, NEWER_WITHIN))
        assert [r.memory_id for r, _ in swapped] == ["moved", "shipped"]
        # another order's change, alike in score, is another thing: no swap
        kept = await store.read(lambda conn: prefer_newer(
            conn, [(records["shipped"], 1.0), (records["other"], 0.9)], terms, NEWER_WITHIN))
        assert [r.memory_id for r, _ in kept] == ["shipped", "other"]
    finally:
        await store.close()


async def test_newer_within_is_checked(tmp_path: Path) -> None:
    with pytest.raises(InvalidMemoryError, match="newer_within"):
        await MemoryStore.open(tmp_path / "x.db", newer_within=1.5)


async def test_every_english_word_of_the_glossary_gives_its_german_words(
    store: MemoryStore,
) -> None:
    # before 0018, 27 English words ("meeting", "room", "time") were never glossed back
    await store.apply([create("m", "The team meeting moved to room 4"),
                       create("other", "Buy oat milk and bread")])
    assert await ids(store, "Besprechung") == ["m"]
    assert await ids(store, "Raum") == ["m"]


def _old_document(text: str, detail: str | None) -> str:
    """What releases before 0018 indexed for these texts: no German word for "meeting"."""
    skipped = {"elternabend", "elternab", "besprechung", "besprech", "sitzung", "treffen",
               "treff"}
    return " ".join(t for t in search_document(text, detail).split() if t not in skipped)


def database_at_0017(path: Path) -> None:
    from companion_memory.memory.rejections import register as register_rejections
    from companion_memory.memory.search_text import register

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        register(conn)
        register_rejections(conn)
        conn.create_function("cm_search_doc", 2, _old_document, deterministic=True)
        _apply_migrations(conn, [m for m in MIGRATIONS if m.name < "0018"])
        insert_old_row(conn, "old", "The team meeting is on Monday")
        assert conn.execute("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH "
                            "'besprechung'").fetchone()[0] == 0
    finally:
        conn.close()


async def test_migration_0018_rebuilds_an_existing_index(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    await asyncio.to_thread(database_at_0017, path)
    store = await MemoryStore.open(path)
    try:
        assert await ids(store, "Besprechung") == ["old"]
        assert await store.read(index_vocab) == await store.read(expected_vocab)
    finally:
        await store.close()
