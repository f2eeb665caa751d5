"""Chinese, Japanese and Korean are searchable: a word inside a run of characters is found.

To FTS5's `unicode61` a run of kanji, kana, hanzi or hangul is one token, so before
migration 0010 "歯医者" found nothing in "明日10時に歯医者の予約があります". The index
and the query now hold such runs as overlapping character bigrams
(`memory.search_text.words_of`); 0010 fills the index of an existing store again.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion_memory.memory import MemoryStore
from companion_memory.memory.database import _apply_migrations
from companion_memory.memory.migrations import MIGRATIONS
from companion_memory.memory.recall import query_terms
from companion_memory.memory.rejections import register as register_rejections
from companion_memory.memory.search_text import (
    CJK_CHARS,
    TOKEN,
    cjk_terms,
    search_document,
    words_of,
)
from companion_memory.memory.search_text import register as register_search_text
from tests.memory.helpers import create, insert_old_row

MEMORIES = {
    "ja": "明日10時に歯医者の予約があります",
    "zh": "明天上午十点预约了牙医",
    "ko": "내일 오전 10시에 치과에 예약이 있어요",
    "ja_other": "土曜日に友達と映画を見に行きます",
    "zh_other": "周末和朋友去公园散步",
    "ko_other": "토요일에 친구와 영화를 봐요",
    "en": "Dentist appointment with Dr Lee on Tuesday at 3pm",
}


async def ids(store: MemoryStore, query: str) -> list[str]:
    return [hit.record.memory_id for hit in await store.recall(query, limit=10)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("歯医者", "ja"),  # inside the run 時に歯医者の予約があります
        ("予約", "ja"),
        ("歯医者の予約はいつ", "ja"),
        ("预约", "zh"),
        ("牙医", "zh"),
        ("치과", "ko"),  # the memory says 치과에 (with its particle)
        ("치과는 언제", "ko"),
        ("映画", "ja_other"),
        ("公园", "zh_other"),
        ("영화", "ko_other"),
    ],
)
async def test_a_word_inside_a_cjk_run_finds_its_memory(
    store: MemoryStore, query: str, expected: str
) -> None:
    await store.apply([create(mid, text) for mid, text in MEMORIES.items()])
    found = await ids(store, query)
    assert found and found[0] == expected, found


async def test_latin_recall_beside_cjk_memories_is_unchanged(store: MemoryStore) -> None:
    await store.apply([create(mid, text) for mid, text in MEMORIES.items()])
    assert await ids(store, "dentist") == ["en"]
    assert await ids(store, "Zahnarzt") == ["en"]  # the glossary still works


def test_runs_become_overlapping_bigrams() -> None:
    assert words_of("明日10時に歯医者") == ["明日", "10", "時に", "に歯", "歯医", "医者"]
    assert words_of("치과에 가요") == ["치과", "과에", "가요"]
    assert words_of("a 猫 b") == ["a", "猫", "b"]  # a single character is its own term
    assert words_of("10時") == ["10", "時"]
    assert cjk_terms("ｶﾞｲﾄﾞ") == ["ガイ", "イド"]  # half-width katakana as full-width
    assert query_terms("歯医者") == ["歯医", "医者"]
    assert query_terms("wi-fiパスワード") == ["wi", "fi", "パス", "スワ", "ワー", "ード", "wifi"]


def test_the_document_holds_the_bigrams_unstemmed_and_unfolded() -> None:
    # folding would take the voicing mark off が and split 과 into jamo
    document = search_document("ガイドが치과", "歯医者")
    assert document.split() == ["ガイ", "イド", "ドが", "が치", "치과", "歯医", "医者"]


_CJK_CHAR = re.compile(f"[{CJK_CHARS}]")
_LATIN = st.text(max_size=60).filter(lambda t: _CJK_CHAR.search(t) is None)


@given(_LATIN)
def test_text_without_cjk_splits_as_before(text: str) -> None:
    folded = text.casefold()
    assert words_of(folded) == TOKEN.findall(folded)


def _old_document(text: str, detail: str | None) -> str:
    """What releases before 0010 indexed for a CJK text, as far as a run goes: the run as
    one token (the Latin stems do not matter here)."""
    return f"{text}\n{detail or ''}".casefold()


def _store_at_0009(path: Path) -> None:
    """A store written by a release at 0009: its index holds each CJK run as one token."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        register_search_text(conn)
        register_rejections(conn)
        conn.create_function("cm_search_doc", 2, _old_document, deterministic=True)
        conn.execute("PRAGMA journal_mode = WAL")
        _apply_migrations(conn, [m for m in MIGRATIONS if m.name < "0010"])
        for i, (mid, text) in enumerate([*MEMORIES.items(), ("gone", "歯医者の予約を取り消した")]):
            insert_old_row(conn, mid, text, kind="event", norm=f"n{i}", at_us=i)
        conn.execute("UPDATE memories SET status = 'deleted' WHERE memory_id = 'gone'")
        assert conn.execute(  # the old index: a word inside a run is not a term
            "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH '\"歯医\"'"
        ).fetchone()[0] == 0
    finally:
        conn.close()


async def test_a_store_from_before_0010_answers_cjk_queries_after_open(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    await asyncio.to_thread(_store_at_0009, path)
    store = await MemoryStore.open(path)
    try:
        assert (await ids(store, "歯医者"))[:1] == ["ja"]
        assert (await ids(store, "牙医"))[:1] == ["zh"]
        assert (await ids(store, "치과"))[:1] == ["ko"]
        assert "gone" not in await ids(store, "歯医者")  # only active memories are indexed
        health = await store.check()
        assert health.ok, health.problems
        assert health.indexed_rows == health.active_rows == len(MEMORIES)
        documents = await store.read(lambda conn: dict(conn.execute(
            "SELECT m.memory_id, f.text FROM memories_fts AS f "
            "JOIN memories AS m ON m.rowid = f.rowid")))
        assert documents["ja"] == search_document(MEMORIES["ja"], "")
    finally:
        await store.close()
