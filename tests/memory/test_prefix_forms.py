"""A word of a language without a stemmer here is found in another of its inflected forms.

Turkish, Finnish, Hungarian and the Slavic languages inflect by suffixes, and a question
seldom uses the form the message used: "toplantı" asked, "toplantıya" written. Since
migration 0018 every word of a text that is neither English nor German is also indexed
by its first five letters (`memory.search_text.prefix_form`), and so is the question's.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from companion_memory.memory import MemoryStore
from companion_memory.memory.database import _apply_migrations
from companion_memory.memory.migrations import MIGRATIONS
from companion_memory.memory.recall import query_terms
from companion_memory.memory.rejections import register as register_rejections
from companion_memory.memory.search_text import (
    BOTH,
    ENGLISH,
    PREFIX,
    language,
    prefix_form,
    search_document,
    words_of,
)
from companion_memory.memory.search_text import register as register_search_text
from tests.memory.helpers import create

MEMORIES = {
    "tr": "Yarınki toplantıya yarım saat geç kalacağım, başlayın",
    "pl": "Wizyta u dentysty przesunięta na czwartek, godz. 15:30",
    "fi": "Palaverin paikka vaihtui, nähdään neuvotteluhuoneessa Kuusi",
    "hu": "A vacsorát szombatra tettük át, a lakásunkon lesz",
    "other": "Hafta sonu pazar alışverişi, elma ve peynir",
}


async def ids(store: MemoryStore, query: str) -> list[str]:
    return [hit.record.memory_id for hit in await store.recall(query, limit=10)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("toplantı ne zaman", "tr"),  # the memory says toplantıya
        ("dentysta", "pl"),  # the memory says dentysty
        ("palaveri", "fi"),  # the memory says palaverin
        ("vacsora", "hu"),  # the memory says vacsorát
    ],
)
async def test_another_inflected_form_finds_its_memory(
    store: MemoryStore, query: str, expected: str
) -> None:
    await store.apply([create(mid, text) for mid, text in MEMORIES.items()])
    assert (await ids(store, query))[:1] == [expected]


async def test_an_english_question_is_not_cut_to_prefixes(store: MemoryStore) -> None:
    await store.apply([
        create("carpet", "The carpet is delivered on Monday"),
        create("carpenter", "The carpenter comes on Tuesday"),
    ])
    assert "carpe" not in query_terms("When is the carpet delivered?")
    assert await ids(store, "When is the carpet delivered?") == ["carpet"]


def test_prefix_forms_are_made_for_long_alphabetic_words_of_latin_greek_and_cyrillic() -> None:
    assert prefix_form("toplantıya") == "topla"
    assert prefix_form("vacsorát") == "vacso"  # folded: accents off
    assert prefix_form("встречу") == "встре"
    assert prefix_form("όνομα") == "ονομα"
    assert prefix_form("yarın") == "yarın"  # exactly five letters: the word itself
    assert prefix_form("saat") == ""  # shorter
    assert prefix_form("ak712") == prefix_form("2025abc") == ""  # holds a digit
    assert prefix_form("ประชุมพรุ่งนี้") == ""  # Thai: one run, not a word
    assert prefix_form("الاجتماع") == ""  # Arabic: the article is a prefix


def test_only_text_that_is_neither_english_nor_german_gets_prefix_forms() -> None:
    assert language(words_of("the meeting is at ten")) == ENGLISH
    assert language(words_of("der termin ist morgen")) == BOTH
    assert language(words_of("toplantı yarın saat onda")) == BOTH | PREFIX
    assert "topla" in search_document("Toplantı yarın", None).split()
    assert "meeti" not in search_document("The meeting is tomorrow", None).split()
    assert "termi" not in search_document("Der Termin ist morgen", None).split()


def _old_document(text: str, detail: str | None) -> str:
    """What releases before 0018 indexed for these texts: no prefix forms."""
    return " ".join(t for t in search_document(text, detail).split() if len(t) != 5)


def _store_at_0017(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        register_search_text(conn)
        register_rejections(conn)
        conn.create_function("cm_search_doc", 2, _old_document, deterministic=True)
        conn.execute("PRAGMA journal_mode = WAL")
        _apply_migrations(conn, [m for m in MIGRATIONS if m.name < "0018"])
        for i, (mid, text) in enumerate(MEMORIES.items()):
            conn.execute(
                "INSERT INTO memories (memory_id, revision, tier, kind, text, norm, authority, "
                "sources, created_us, updated_us, status, auto) VALUES (?, 1, 'long_term', "
                "'event', ?, ?, 'inference', '[]', ?, ?, 'active', 1)",
                (mid, text, f"n{i}", i, i),
            )
        assert conn.execute(  # the old index has no prefix form
            "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH '\"topla\"'"
        ).fetchone()[0] == 0
    finally:
        conn.close()


async def test_a_store_from_before_0018_finds_inflected_forms_after_open(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    await asyncio.to_thread(_store_at_0017, path)
    store = await MemoryStore.open(path)
    try:
        assert (await ids(store, "toplantı ne zaman"))[:1] == ["tr"]
        assert (await ids(store, "dentysta"))[:1] == ["pl"]
        health = await store.check()
        assert health.ok, health.problems
        assert health.indexed_rows == health.active_rows == len(MEMORIES)
    finally:
        await store.close()
