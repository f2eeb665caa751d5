"""Recall: FTS5 BM25 over live records, stopwords, escaping, tiers, the dense seam."""

from __future__ import annotations

from datetime import timedelta

import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory import EmptyQueryError, InvalidMemoryError, Kind, MemoryStore, Tier
from companion_memory.memory.recall import match_expression, query_terms
from tests.memory.helpers import create, remove, supersede

CORPUS = {
    "dentist": "Dentist appointment with Dr Lee on Tuesday at 3pm",
    "parcel": "DHL parcel from Zalando arrives on Friday",
    "coffee": "Prefers oat milk in coffee",
    "mom": "Mom's birthday is on March 4",
    "gym": "Gym class moved to Thursday evening",
}


async def seed(store: MemoryStore) -> None:
    await store.apply([create(mid, text) for mid, text in CORPUS.items()])


async def test_recall_ranks_the_matching_memory_first(store: MemoryStore) -> None:
    await seed(store)
    hits = await store.recall("When is my dentist appointment?")
    assert [h.record.memory_id for h in hits] == ["dentist"]
    assert hits[0].score > 0
    assert [s.to_str() for s in hits[0].record.sources] == ["context:1"]
    hits = await store.recall("parcel coffee", limit=5)
    assert {h.record.memory_id for h in hits} == {"parcel", "coffee"}


async def test_recall_matches_without_diacritics_and_case(store: MemoryStore) -> None:
    await store.apply([create("cafe", "Meeting at Café Zürich")])
    assert [h.record.memory_id for h in await store.recall("cafe zurich")] == ["cafe"]


@pytest.mark.parametrize("query", ["", "   ", "the and of", "?!...", "what is it"])
async def test_empty_or_stopword_query_is_an_error(store: MemoryStore, query: str) -> None:
    with pytest.raises(EmptyQueryError) as info:
        await store.recall(query)
    assert str(info.value).startswith("the query has no searchable words")
    assert info.value.code == "empty_query"
    assert await store.related(query) == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"unbalanced dentist', ["dentist"]),
        ("NEAR(dentist parcel", ["dentist", "parcel"]),  # not NEAR(): both are found
        ("dentist AND OR NOT", ["dentist"]),
        ("col:dentist", ["dentist"]),  # not a column filter
        ("dent* parcel", ["parcel"]),  # not a prefix query: "dent" finds no dentist
        ("a^b -c coffee", ["coffee"]),
        ("coffee NOT milk", ["coffee"]),  # not NOT: the coffee memory holds "milk"
        ("-dentist parcel", ["dentist", "parcel"]),  # not a negation
    ],
)
async def test_fts_syntax_in_user_text_is_read_as_plain_words(
    store: MemoryStore, query: str, expected: list[str]
) -> None:
    await seed(store)
    hits = await store.recall(query)
    assert hits, query
    assert sorted(h.record.memory_id for h in hits) == sorted(expected)


def test_query_terms_are_quoted() -> None:
    assert query_terms("Where's the DHL parcel, parcel?") == ["dhl", "parcel"]
    assert match_expression(["dhl", "parcel"]) == '"dhl" OR "parcel"'


async def test_deleted_superseded_and_expired_never_come_back(
    store: MemoryStore, clock: FakeClock
) -> None:
    await seed(store)
    await store.apply([create("tmp", "Temporary dentist reminder", tier=Tier.TEMPORARY)])
    await store.apply([remove("dentist", 1)])
    assert [h.record.memory_id for h in await store.recall("dentist")] == ["tmp"]
    clock.set_wall(clock.now() + timedelta(days=7, seconds=1))
    assert await store.recall("dentist") == []
    await store.apply([create("gym2", "Gym class on Friday"), supersede("gym", 1, "gym2")])
    assert [h.record.memory_id for h in await store.recall("gym")] == ["gym2"]
    assert [r.memory_id for r in await store.related("gym class")] == ["gym2"]


async def test_device_tier_only_when_asked(store: MemoryStore) -> None:
    await seed(store)
    await store.apply([create("dev", "Charger dock is in the kitchen drawer", tier=Tier.DEVICE,
                              kind=Kind.DEVICE_LOCATION)])
    assert await store.recall("charger dock") == []
    hits = await store.recall("charger dock", tiers=[Tier.DEVICE])
    assert [h.record.memory_id for h in hits] == ["dev"]
    with pytest.raises(InvalidMemoryError, match="unknown tier"):
        await store.recall("charger", tiers=["attic"])  # type: ignore[list-item]


async def test_recall_limit(store: MemoryStore) -> None:
    await store.apply([create(f"m{i}", f"Meeting number {i} about budget") for i in range(12)])
    assert len(await store.recall("budget meeting")) == 10
    assert len(await store.recall("budget meeting", limit=3)) == 3
    with pytest.raises(InvalidMemoryError, match="limit: must be a positive integer"):
        await store.recall("budget", limit=0)
