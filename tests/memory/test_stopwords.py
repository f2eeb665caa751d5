"""A question's function words are left out in the languages it speaks, and only there
(`memory.stopwords`)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory.recall import query_terms
from companion_memory.memory.records import Kind
from companion_memory.memory.search_text import fold
from companion_memory.memory.stopwords import BASE, BASE_WORDS, LOCALES, dropped
from companion_memory.memory.store import MemoryStore

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize("code", sorted(LOCALES))
def test_every_table_is_folded_words(code: str) -> None:
    table = LOCALES[code]
    assert len(table) >= 30, "a table names a language's common function words"
    for word in table:
        assert word == fold(word) and word.strip() == word and " " not in word, (code, word)


def test_the_base_tables_are_english_and_german() -> None:
    assert set(BASE) == {"en", "de"}
    assert LOCALES["en"] | LOCALES["de"] == BASE_WORDS


@pytest.mark.parametrize(
    ("question", "left_out"),
    [
        # the question speaks the locale: its function words go, its content stays
        ("¿A qué hora y dónde es el cumple de Valentina?",
         {"a", "que", "y", "donde", "es", "el", "de"}),
        ("Quando vai faltar água no condomínio?", {"quando", "vai", "no"}),
        ("Bila Faizal mula kerja sekarang?", {"bila", "sekarang"}),
        ("Kiedy jest spotkanie z Anią?", {"kiedy", "jest", "z"}),
        ("Когда приедет Олена?", {"когда"}),  # one word outside Latin letters is enough
        # an English question keeps words that are function words elsewhere: names here
        ("What did Dan say to Ada?", {"what", "did", "to"}),
        ("When is Ana de Souza coming?", {"when", "is"}),
    ],
)
def test_left_out_by_the_languages_a_question_speaks(question: str, left_out: set[str]) -> None:
    words = [fold(w) for w in question.replace("?", " ").replace("¿", " ").split()]
    assert dropped(words) == left_out


async def test_a_portuguese_question_finds_the_answer_not_the_chat(tmp_path: Path) -> None:
    """Without the Portuguese table, "quando", "vai", "a" and "de" match every chat line
    in Portuguese and rank it above the water notice, which shares one content word."""
    store = await MemoryStore.open(tmp_path / "m.sqlite3", clock=FakeClock(T0))
    try:
        await store.save_memory(
            "Mãe on WhatsApp: quando você vai ligar? A vida aqui de casa vai bem, e a "
            "tia vai jantar com a gente quando puder", kind=Kind.EVENT,
            sources=["agent:turn-1"])
        notice = (await store.save_memory(
            "Condomínio: interrupção de água na quinta-feira das 9h às 15h",
            kind=Kind.EVENT, sources=["agent:turn-2"])).record
        hits = await store.recall("Quando vai faltar água no condomínio?", limit=2)
        assert [h.record.memory_id for h in hits] == [notice.memory_id]
        assert "quando" not in query_terms("Quando vai faltar água no condomínio?")
        assert "dan" in query_terms("What did Dan say to Ada?")
    finally:
        await store.close()
