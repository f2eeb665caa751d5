"""Recall and listing narrowed by time, app, sender and kind, through the host API.

A real `Runtime` on a tmp root, keyword recall (`[memory] embedder = "none"`), the
deterministic provider turning fed notifications into memories; the clock is fake."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from companion_memory import InvalidInputError, Kind, NotificationEvent, Runtime
from companion_memory.core.clock import FakeClock
from companion_memory.device import parse_config
from companion_memory.memory.errors import EmptyQueryError
from companion_memory.storage.monitor import FakeDiskProbe

NOW = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
YESTERDAY = datetime(2026, 3, 11, tzinfo=UTC)
TODAY = datetime(2026, 3, 12, tzinfo=UTC)
KEYWORDS = parse_config({"memory": {"embedder": "none"}})

WHATSAPP = "net.whatsapp.WhatsApp"


def message(key: str, title: str, body: str, at: datetime, *, app: str = WHATSAPP,
            category: str = "social", subtitle: str = "") -> NotificationEvent:
    return NotificationEvent.create(kind="added", key=key, app_id=app, title=title,
                                    subtitle=subtitle, body=body, category=category,
                                    posted_at=at)


def runtime(tmp_path: Path) -> Runtime:
    return Runtime(KEYWORDS, root=tmp_path / "root", clock=FakeClock(NOW),
                   probe=FakeDiskProbe(free_bytes=4 << 30), start_worker=False)


async def fed(rt: Runtime, events: list[NotificationEvent]) -> None:
    totals = await rt.feed(events)
    assert totals.persisted == len(events)
    await rt.run_once()
    assert await rt.pending_count() == 0


async def test_what_happened_yesterday_is_askable(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        await fed(rt, [
            message("a", "Anna", "Dinner on Saturday at the Italian place?",
                    YESTERDAY + timedelta(hours=18)),
            message("b", "Ben", "The dinner reservation moved to Sunday evening",
                    YESTERDAY - timedelta(hours=20)),
            message("c", "Carla", "Dinner plans for tonight are cancelled",
                    TODAY + timedelta(hours=8)),
            message("d", "Dentist", "Appointment confirmed for Friday 10:00",
                    YESTERDAY + timedelta(hours=9), app="com.apple.mobilecal",
                    category="schedule"),
        ])
        every = await rt.list_memories()
        assert len(every) == 4
        # "what happened yesterday": an empty query with a time window lists by time
        yesterday = await rt.recall_memory("", since=YESTERDAY, until=TODAY)
        assert [h.record.sender for h in yesterday] == ["Anna", None]
        assert [h.score for h in yesterday] == [0.0, 0.0]
        assert [h.record.occurred_at for h in yesterday] == [
            YESTERDAY + timedelta(hours=18), YESTERDAY + timedelta(hours=9)]
        # a question within the window ranks only what the window holds
        hits = await rt.recall_memory("dinner", since=YESTERDAY, until=TODAY)
        assert [h.record.sender for h in hits] == ["Anna"]
        assert len(await rt.recall_memory("dinner")) == 3
        # by sender, by app, by kind
        ben = await rt.recall_memory("dinner", sender="ben")
        assert [h.record.sender for h in ben] == ["Ben"]
        assert ben[0].record.app_id == WHATSAPP
        calendar = await rt.recall_memory("", app_id="com.apple.mobilecal")
        assert len(calendar) == 1 and calendar[0].record.sender is None
        assert calendar[0].record.app_id == "com.apple.mobilecal"
        kinds = {r.kind for r in every}
        other = next(k for k in Kind if k not in kinds)
        assert await rt.recall_memory("dinner", kinds=[other]) == []
        assert len(await rt.recall_memory("dinner", kinds=kinds)) == 3
        # forgetting drops where it came from with the text
        forgotten = await rt.forget(ben[0].record.memory_id, reason="not true")
        assert forgotten.sender is None and forgotten.app_id is None


async def test_listing_by_time_newest_first_with_a_limit(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        # fed in an order unlike their posting times
        await fed(rt, [
            message(f"k{n}", f"Person {n}", f"Meeting number {n} about the garden project",
                    YESTERDAY + timedelta(hours=h))
            for n, h in enumerate([5, 1, 9, 3, 7])
        ])
        listed = await rt.list_memories(since=YESTERDAY, until=TODAY, limit=3)
        assert [r.occurred_at for r in listed] == [
            YESTERDAY + timedelta(hours=h) for h in (9, 7, 5)]
        everything = await rt.list_memories(by_time=True)
        times = [r.occurred_at for r in everything if r.occurred_at is not None]
        assert len(times) == 5 and times == sorted(times, reverse=True)
        assert [r.sender for r in await rt.list_memories(sender="Person 3")] == ["Person 3"]


async def test_a_filter_narrows_before_the_limit(tmp_path: Path) -> None:
    """Thirty better matches outside the window do not crowd out the three inside it."""
    async with runtime(tmp_path) as rt:
        old = YESTERDAY - timedelta(days=3)
        await fed(rt, [
            message(f"o{n}", f"Friend {n}", f"Concert tickets concert tonight concert hall {n}",
                    old + timedelta(minutes=n))
            for n in range(30)
        ] + [
            message(f"y{n}", f"Pal {n}", f"Maybe a concert some day, {n} thoughts on music "
                    "and other things to talk about later this week",
                    YESTERDAY + timedelta(hours=n))
            for n in range(3)
        ])
        best = await rt.recall_memory("concert", limit=3)
        assert all(h.record.occurred_at is not None and h.record.occurred_at < YESTERDAY
                   for h in best)
        hits = await rt.recall_memory("concert", limit=3, since=YESTERDAY)
        assert sorted(h.record.sender or "" for h in hits) == ["Pal 0", "Pal 1", "Pal 2"]


async def test_bad_filters_are_refused_by_name(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt:
        naive = datetime(2026, 3, 11)
        with pytest.raises(InvalidInputError, match=r"since.*timezone-aware") as err:
            await rt.recall_memory("dinner", since=naive)
        assert isinstance(err.value, ValueError)
        with pytest.raises(InvalidInputError, match=r"until.*timezone-aware"):
            await rt.list_memories(until=naive)
        with pytest.raises(InvalidInputError, match=r"until.*later than since"):
            await rt.recall_memory("dinner", since=TODAY, until=YESTERDAY)
        with pytest.raises(InvalidInputError, match=r"kinds.*allowed: preference"):
            await rt.recall_memory("dinner", kinds=["gossip"])  # type: ignore[list-item]
        with pytest.raises(InvalidInputError, match="sender"):
            await rt.recall_memory("dinner", sender="  ")
        # an empty query lists only with a filter; alone it is still refused
        with pytest.raises(EmptyQueryError):
            await rt.recall_memory("")
