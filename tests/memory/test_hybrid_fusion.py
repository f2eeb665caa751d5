"""How hybrid recall weighs its two legs, with an embedder whose meanings are set by hand
(`ConceptEmbedder`): what the fused score does with a given BM25 match and a given
cosine, independent of any model (the bundled model's behaviour: tests/memory/test_hybrid.py,
and on public data: bench/lifebench.py --lang zh --questions-lang en)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory import MemoryStore
from companion_memory.memory.embedding import Vectors
from tests.memory.helpers import create

CONCEPTS = {
    "flight": ("航班", "plane", "flight"),
    "meeting": ("standup", "meeting"),
    "dinner": ("火锅", "dinner"),
    "parcel": ("paczka", "parcel"),
    "bill": ("invoice", "bill"),
    "weather": ("rain", "weather"),
}


class ConceptEmbedder:
    """A text's vector is a shared axis (twice) plus the axis of the concept it names (the
    last axis when it names none), so unrelated texts have a cosine of 0.8 (about what
    the bundled model gives unrelated texts) and texts naming the same concept 1.0."""

    name = "concepts-test"
    dim = len(CONCEPTS) + 2

    def _one(self, text: str) -> Vectors:
        vector = np.zeros(self.dim, dtype=np.float32)
        vector[0] = 2.0
        folded = text.casefold()
        for axis, words in enumerate(CONCEPTS.values(), start=1):
            if any(word in folded for word in words):
                vector[axis] = 1.0
                break
        else:
            vector[-1] = 1.0
        out: Vectors = vector / np.linalg.norm(vector)
        return out

    def documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._one(t) for t in texts])

    def query(self, text: str) -> Vectors:
        return self._one(text)


MEMORIES = {
    "flight": "航班 CA933 明天上午9点从北京起飞",
    "standup": "Team standup tomorrow morning moved to room 4",
    "dinner": "王磊：今晚七点一起去吃火锅",
    "parcel": "Paczka czeka w paczkomacie do czwartku",
    "bill": "The electricity invoice of 48 euros is due on Friday",
    "weather": "Rain expected this afternoon, take an umbrella",
    "gym": "Gym class on Monday is cancelled",
    "library": "The library book is due back next week",
    "dentist": "Dentist appointment on the 14th at 10",
    "car": "Car service booked for Saturday at 8",
}


@pytest.fixture
async def store(tmp_path: Path, clock: FakeClock) -> AsyncIterator[MemoryStore]:
    opened = await MemoryStore.open(tmp_path / "m.db", clock=clock, embedder=ConceptEmbedder())
    await opened.apply([create(mid, text) for mid, text in MEMORIES.items()])
    yield opened
    await opened.close()


async def top(store: MemoryStore, question: str) -> list[str]:
    return [hit.record.memory_id for hit in await store.recall(question, limit=3)]


async def test_a_partial_word_match_does_not_outweigh_the_meaning(store: MemoryStore) -> None:
    """Half of the question's words are in an unrelated memory and none in the one that
    answers it (written in another language): the answer comes first. Before, the best
    BM25 match of the pool took the whole lexical share, however little of the question
    it matched."""
    assert (await top(store, "When does my plane leave tomorrow morning?"))[0] == "flight"


async def test_a_full_word_match_keeps_its_weight(store: MemoryStore) -> None:
    """A memory holding every word of the question is still first, even when another
    memory is closer in meaning."""
    assert (await top(store, "standup tomorrow morning room"))[0] == "standup"
    assert (await top(store, "electricity invoice Friday"))[0] == "bill"
