"""Memory that lasts (issue 28): the daily sweep runs by default in a `Runtime` with the
default configuration (the deterministic provider, the bundled embedder, the device's
zone) and keeps what is worth keeping beyond the two weeks the log holds.

Each test drives a real Runtime on a FakeClock: notifications are fed during a local day,
a round processes them, and the first round after the local midnight consolidates the
day: facts at once, the day's diary lines once its Temporary memories are about to
leave (`DEFER_DAYS` later). The database file is read directly (SQLite, read-only)
where a test needs what the API never shows (the search-only detail).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from datetime import date, datetime, time, timedelta
from pathlib import Path

import pytest

from companion_memory.agent.sweep.consolidate import day_label
from companion_memory.agent.sweep.day_input import DEFER_DAYS
from companion_memory.agent.sweep.settings import SweepSettings
from companion_memory.agent.sweep.windows import load_zone
from companion_memory.ble.events import NotificationEvent
from companion_memory.core.clock import FakeClock
from companion_memory.device import Runtime
from companion_memory.device.config import Config
from companion_memory.memory import Kind, MemoryRecord, SourceKind, Tier
from companion_memory.memory.secrets import contains_secret

ZONE = SweepSettings().zone  # the device's zone, as the default configuration has it
LINES_DAY = DEFER_DAYS + 1  # days after a day when its diary lines are there
TZ = load_zone(ZONE)  # read at import: tz files are blocking I/O
DAY1 = date(2026, 1, 14)
MESSAGES = "com.apple.MobileSMS"


def local(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime.combine(day, time(hour, minute), TZ)


class Phone:
    """A Runtime with the default configuration, fed one local day at a time."""

    def __init__(self, runtime: Runtime, clock: FakeClock) -> None:
        self.runtime, self.clock = runtime, clock
        self.keys = 0

    async def day(self, day: date, items: list[tuple[str, str, str, str]]) -> None:
        """Feed (app, category, title, body) items through the day from 09:00, one round
        after each, then run the rounds that consolidate the completed days."""
        for n, (app, category, title, body) in enumerate(items):
            self.clock.set_wall(local(day, 9, 5 * n))
            self.keys += 1
            await self.runtime.feed([NotificationEvent.create(
                kind="added", key=f"k{self.keys}", app_id=app, title=title, body=body,
                category=category, posted_at=self.clock.now())])
        self.clock.set_wall(local(day, 23, 0))
        await self.runtime.run_once()
        await self.sweep_until(day + timedelta(days=1))

    async def sweep_until(self, day: date) -> None:
        """Advance to 00:30 of `day` and run rounds until every completed day is swept."""
        self.clock.set_wall(local(day, 0, 30))
        for _ in range(60):
            await self.runtime.run_once()
            status = await self.runtime.sweep_status()
            if not status.pending_dates or status.state == "disabled":
                return
        raise AssertionError("the sweep did not catch up")

    async def long_term(self) -> list[MemoryRecord]:
        return await self.runtime.list_memories(tier=Tier.LONG_TERM)


@pytest.fixture
async def phone(tmp_path: Path) -> AsyncIterator[Phone]:
    clock = FakeClock(local(DAY1, 8))
    runtime = Runtime(Config(), root=tmp_path / "root", clock=clock, start_worker=False,
                      start_link=False)
    async with runtime:
        yield Phone(runtime, clock)


def context_ids(record: MemoryRecord) -> set[int]:
    return {int(s.ref) for s in record.sources if s.kind is SourceKind.CONTEXT}


async def day_context_ids(runtime: Runtime, day: date) -> set[int]:
    start = local(day, 0)
    return {r.context_id for r in await runtime.notifications_between(
        start, start + timedelta(days=1))}


def detail_of(root: Path) -> dict[str, str]:
    """memory id -> search-only detail, read from the database file (read-only)."""
    conn = sqlite3.connect(f"file:{root / 'memory.sqlite3'}?mode=ro", uri=True)
    try:
        return {str(m): str(d or "") for m, d in conn.execute(
            "SELECT memory_id, detail FROM memories WHERE status = 'active'")}
    finally:
        conn.close()


async def test_the_sweep_runs_by_default_and_keeps_the_day(phone: Phone) -> None:
    status = await phone.runtime.sweep_status()
    assert status.enabled is True and status.zone == ZONE
    await phone.day(DAY1, [
        (MESSAGES, "social", "Peng Yuqing",
         "The art exhibition at the Hunan Provincial Museum opens today, shall we go at 3?"),
        (MESSAGES, "social", "Peng Yuqing", "Great, see you at the museum entrance at 3 pm."),
        ("com.maoyan", "", "Maoyan: Tickets booked",
         "2 tickets for Ne Zha 2, Wanda Cinema hall 5, Sat 17 Jan 19:30, row 8 seats 12-13."),
    ])
    day_ids = await day_context_ids(phone.runtime, DAY1)
    assert len(day_ids) == 3
    # the day is swept, and its Temporary memories answer alone while they live
    status = await phone.runtime.sweep_status()
    assert status.last_window is not None and status.last_window.local_date == DAY1.isoformat()
    assert not await phone.long_term()
    assert len(await phone.runtime.list_memories(tier=Tier.TEMPORARY)) == 3
    await phone.sweep_until(DAY1 + timedelta(days=LINES_DAY))
    kept = await phone.long_term()
    lines = [r for r in kept if "Peng Yuqing" in r.text]
    assert len(lines) == 1, [r.text for r in kept]
    line = lines[0]
    assert line.text.startswith(f"{day_label(DAY1)}: Peng Yuqing")
    assert "art exhibition" in line.text and line.auto
    assert len(context_ids(line)) == 2 and context_ids(line) <= day_ids
    cited = set().union(*(context_ids(r) for r in kept))
    assert cited == day_ids  # every kept memory cites the day's notifications, all of them
    assert line.expires_at is not None
    assert line.expires_at - line.created_at == timedelta(days=90)
    # written two weeks on, it is dated by the day it tells of: "what happened on the 14th"
    assert line.occurred_at == local(DAY1, 0)
    that_day = await phone.runtime.recall_memory(
        "", since=local(DAY1, 0), until=local(DAY1 + timedelta(days=1), 0),
        tiers=(Tier.LONG_TERM,))
    assert {h.record.memory_id for h in that_day} == {r.memory_id for r in kept}
    # months later, when the log and the Temporary memories are long gone, recall names
    # the day
    await phone.sweep_until(DAY1 + timedelta(days=45))
    assert not await phone.runtime.list_memories(tier=Tier.TEMPORARY)
    hits = await phone.runtime.recall_memory("when did I visit the art exhibition with Peng")
    assert hits and hits[0].record.memory_id == line.memory_id
    assert "2026-01-14" in hits[0].record.text


async def test_a_changed_fact_updates_its_long_term_memory(phone: Phone) -> None:
    await phone.day(DAY1, [(MESSAGES, "social", "Giulia",
                            "Hi! Our new address is Lindenallee 12 in Potsdam")])
    facts = [r for r in await phone.long_term() if r.kind is Kind.FACT]
    assert len(facts) == 1 and "Lindenallee" in facts[0].text
    first = facts[0]
    later = DAY1 + timedelta(days=40)
    await phone.sweep_until(later)
    await phone.day(later, [(MESSAGES, "social", "Giulia",
                             "We moved again! My new address is Kopenhagener Strasse 41")])
    facts = [r for r in await phone.long_term() if r.kind is Kind.FACT]
    assert len(facts) == 1, [r.text for r in facts]
    assert facts[0].memory_id == first.memory_id
    assert "Kopenhagener" in facts[0].text and facts[0].revision > first.revision
    later_ids = await day_context_ids(phone.runtime, later)
    assert context_ids(facts[0]) & later_ids
    hits = await phone.runtime.recall_memory("Giulia's address")
    assert [h.record.memory_id for h in hits if h.record.kind is Kind.FACT] == \
        [first.memory_id]


async def test_noise_never_becomes_long_term(phone: Phone, tmp_path: Path) -> None:
    noise = [
        ("com.shop.app", "promotion", "Flash sale", "50% off everything, shop now!"),
        ("com.examplebank.mobile", "", "Bank", "Your verification code is 482913"),
        ("com.instagram.android", "social", "Instagram", "Lena liked your photo"),
        ("com.news.app", "news", "Top stories", "Your daily briefing is ready"),
    ]
    await phone.day(DAY1, [
        *noise,
        (MESSAGES, "social", "Tom", "Can you bring the tent to the campsite on Saturday?"),
    ])
    noise_ids = {r.context_id for r in await phone.runtime.notifications_between(
        local(DAY1, 0), local(DAY1, 0) + timedelta(days=1)) if r.event.title != "Tom"}
    assert len(noise_ids) == 4
    await phone.sweep_until(DAY1 + timedelta(days=LINES_DAY))
    kept = await phone.long_term()
    assert any("Tom" in r.text and "tent" in r.text for r in kept)
    details = await asyncio.to_thread(detail_of, phone.runtime.root)
    for record in kept:
        assert not context_ids(record) & noise_ids, record.text
        words = f"{record.text} {details.get(record.memory_id, '')}".casefold()
        for stray in ("flash", "482913", "liked", "briefing", "instagram"):
            assert stray not in words, (stray, record.text)


async def test_an_upcoming_event_lives_until_after_its_day(phone: Phone) -> None:
    event_day = DAY1 + timedelta(days=20)
    await phone.day(DAY1, [(MESSAGES, "social", "Mara",
                            "I booked our flight to Lisbon for 3 February, gate closes 7:40")])
    await phone.sweep_until(event_day)
    hits = [h for h in await phone.runtime.recall_memory("flight to Lisbon")
            if h.record.tier is Tier.LONG_TERM]
    assert hits, "the day's line about the flight is kept"
    assert hits[0].record.expires_at is not None
    assert hits[0].record.expires_at > local(event_day + timedelta(days=1), 0)


async def test_long_term_memories_expire_after_the_ttl_unless_reinforced(phone: Phone) -> None:
    await phone.day(DAY1, [
        (MESSAGES, "social", "Anna", "The choir rehearsal moves to the church hall on Thursdays"),
        (MESSAGES, "social", "Bob", "I sold the old bike to a neighbour for 80 euros"),
    ])
    await phone.sweep_until(DAY1 + timedelta(days=LINES_DAY))
    kept = await phone.long_term()
    anna = next(r for r in kept if "Anna on" in r.text)
    bob = next(r for r in kept if "Bob on" in r.text)
    later = DAY1 + timedelta(days=60)
    await phone.sweep_until(later)
    await phone.day(later, [(MESSAGES, "social", "Anna",
                             "Choir rehearsal in the church hall is cancelled this Thursday")])
    renewed = await phone.runtime.read_memory(anna.memory_id)
    assert renewed is not None and renewed.reinforced == 1
    assert renewed.expires_at is not None and anna.expires_at is not None
    assert renewed.expires_at > anna.expires_at
    # Bob's line lived 90 days from when it was written; Anna's was reinforced on day 60
    await phone.sweep_until(DAY1 + timedelta(days=LINES_DAY + 92))
    live = {r.memory_id for r in await phone.long_term()}
    assert anna.memory_id in live and bob.memory_id not in live
    assert not [h for h in await phone.runtime.recall_memory("Bob sold the bike")
                if h.record.memory_id == bob.memory_id]


async def test_no_secret_reaches_a_consolidated_memory(phone: Phone) -> None:
    await phone.day(DAY1, [
        (MESSAGES, "social", "Lena",
         "Pay the deposit to DE89 3704 0044 0532 0130 00 by Friday, then we book the cabin"),
        (MESSAGES, "social", "Lena", "The wifi password is Tr0ub4dor&3, the cabin is at Lake Bled"),
        (MESSAGES, "social", "Omar", "Code 482913 opens the locker; the parcel is the blue one"),
    ])
    await phone.sweep_until(DAY1 + timedelta(days=LINES_DAY))
    kept = await phone.long_term()
    assert any("Lena" in r.text for r in kept) and any("Omar" in r.text for r in kept)
    details = await asyncio.to_thread(detail_of, phone.runtime.root)
    for record in kept:
        detail = details.get(record.memory_id, "")
        assert not contains_secret(record.text) and not contains_secret(detail)
        for value in ("DE89", "3704", "Tr0ub4dor", "482913"):
            assert value not in record.text and value not in detail
