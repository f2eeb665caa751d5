"""DailySweepProcessor on a real SQLite store with a fake clock."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from companion_memory.agent.model import ModelUnavailableError
from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.agent.model.provider import (
    ModelError,
    ModelOutputError,
    ModelTimeoutError,
)
from companion_memory.agent.model.scripted import ScriptedProvider
from companion_memory.agent.sweep import (
    SCHEMA_VERSION,
    DailySweepProcessor,
    ModelSweepExtractor,
    RulesSweepExtractor,
    SweepExtractor,
    day_window,
    sweep_fallback,
)
from companion_memory.agent.sweep.day_input import DEFER_DAYS
from companion_memory.agent.sweep.windows import load_zone
from companion_memory.core.clock import FakeClock
from companion_memory.memory import Authority, Kind, Tier
from companion_memory.memory import sweep_ledger as L
from companion_memory.memory.store import MemoryStore
from tests.sweep.helpers import ProcessedLog, create_temporary, dump, reinforce, rows

NY = "America/New_York"
for _zone in (NY, "Asia/Kolkata", "Europe/London", "Australia/Lord_Howe"):
    load_zone(_zone)  # tzdata files are read once, here, not on the event loop


def utc(y: int, m: int, d: int, h: int = 0, mi: int = 0) -> datetime:
    return datetime(y, m, d, h, mi, tzinfo=UTC)


class World:
    def __init__(self, store: MemoryStore, clock: FakeClock, log: ProcessedLog) -> None:
        self.store, self.clock, self.log = store, clock, log

    def sweep(self, provider: Any = None, *, zone: str = NY, **kw: Any) -> DailySweepProcessor:
        """The rules consolidate, or a model on `provider` when one is given."""
        extractor: SweepExtractor = RulesSweepExtractor() if provider is None \
            else ModelSweepExtractor(MemoryMergeEngine(provider))
        kw.setdefault("enabled", True)
        return DailySweepProcessor(self.log, self.store, extractor, clock=self.clock,
                                   zone=zone, **kw)

    async def day_with_reinforced(self, day: date, tag: str, *, zone: str = NY,
                                  times: int = 2) -> str:
        """A notification and a Temporary memory created that local day, reinforced `times`."""
        start = day_window(day, zone).start_utc
        self.clock.set_wall(start + timedelta(hours=9))
        cid = self.log.add(self.clock.now(), f"Gym {tag}", f"Yoga class booked {tag}")
        memory_id = f"t-{tag}"
        await create_temporary(self.store, memory_id, f"Goes to yoga {tag}",
                               sources=[f"context:{cid}"])
        for n in range(times):
            self.clock.set_wall(start + timedelta(hours=10 + n))
            again = self.log.add(self.clock.now(), f"Gym {tag}", f"Yoga reminder {tag} {n}")
            await reinforce(self.store, memory_id, f"context:{again}")
        return memory_id


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    clock = FakeClock(utc(2026, 3, 1, 12))
    store = await MemoryStore.open(tmp_path / "memory.sqlite3", clock=clock)
    try:
        yield World(store, clock, ProcessedLog())
    finally:
        await store.close()


async def cursor_of(store: MemoryStore) -> L.SweepCursor | None:
    return await store.read(L.read_cursor)


async def test_fallback_promotes_reinforced_temporaries(world: World) -> None:
    promoted = await world.day_with_reinforced(date(2026, 3, 2), "a", times=2)
    single = await world.day_with_reinforced(date(2026, 3, 2), "b", times=1)
    world.clock.set_wall(utc(2026, 3, 3, 12))  # 07:00 on 3 March in New York
    outcome = await world.sweep().run_batch()
    report = outcome.report
    assert [d["local_date"] for d in report.extra["dates"]] == ["2026-03-02"]
    assert report.extra["dates"][0]["status"] == "swept"
    # the fact reinforced twice is promoted at once; the day's line waits
    assert report.model_calls == 0 and report.applied == 1  # the rules: no model call
    record = await world.store.get(promoted)
    assert record is not None and record.tier is Tier.LONG_TERM
    other = await world.store.get(single)
    assert other is not None and other.tier is Tier.TEMPORARY
    assert len(await world.store.list_records(tier=Tier.LONG_TERM)) == 1
    text = json.dumps(report.to_dict())
    assert "yoga" not in text.lower() and "gym" not in text.lower()
    cur = await cursor_of(world.store)
    assert cur is not None and cur.local_date == date(2026, 3, 2)
    assert (cur.start_utc, cur.end_utc) == (utc(2026, 3, 2, 5), utc(2026, 3, 3, 5))
    # the same day is never swept twice
    again = await world.sweep().run_batch()
    assert again.report.extra["dates"] == [] and again.report.model_calls == 0
    # the line waits until the day's Temporary memories are about to leave
    world.clock.set_wall(utc(2026, 3, 3, 12) + timedelta(days=DEFER_DAYS))
    later = await world.sweep().run_batch()
    assert later.report.extra["deferred_applied"] == 1 and later.report.model_calls == 0
    lines = [r for r in await world.store.list_records(tier=Tier.LONG_TERM)
             if r.memory_id != promoted]
    assert len(lines) == 1 and lines[0].text.startswith("2026-03-02 (Mon, March): Mail: ")
    # every notification of the day that a memory was made of
    assert {s.ref for s in lines[0].sources} == {"1", "2", "3", "4", "5"}


@pytest.mark.parametrize("switches", [{"enabled": False}, {"enabled": True, "kill_switch": True},
                                      {"enabled": False, "kill_switch": True}])
async def test_disabled_or_kill_switched_runs_write_nothing(
    world: World, switches: dict[str, bool]
) -> None:
    await world.day_with_reinforced(date(2026, 3, 2), "a")
    world.clock.set_wall(utc(2026, 3, 6, 12))
    before = await dump(world.store)
    provider = ScriptedProvider()
    sweep = world.sweep(provider, **switches)  # type: ignore[arg-type]
    outcome = await sweep.run_batch()
    assert await dump(world.store) == before
    assert provider.requests == []
    assert outcome.report.extra["state"] in ("disabled", "kill_switch")
    status = await sweep.status()
    assert status["state"] == outcome.report.extra["state"]
    assert status["pending_dates"] == ["2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05"]
    assert await dump(world.store) == before


async def test_three_missed_days_in_order_then_the_fourth(world: World) -> None:
    ids = [await world.day_with_reinforced(date(2026, 3, d), f"d{d}") for d in (6, 7, 8, 9)]
    world.clock.set_wall(utc(2026, 3, 10, 16))  # 12:00 EDT on 10 March
    sweep = world.sweep()
    first = await sweep.run_batch()
    assert [d["local_date"] for d in first.report.extra["dates"]] == [
        "2026-03-06", "2026-03-07", "2026-03-08"]
    assert first.backlog is False and first.report.pending == 1
    tiers = [(await world.store.get(i)).tier for i in ids]  # type: ignore[union-attr]
    assert tiers == [Tier.LONG_TERM] * 3 + [Tier.TEMPORARY]
    status = await sweep.status()
    assert status["pending_dates"] == ["2026-03-09"]
    assert status["last_window"]["local_date"] == "2026-03-08"
    # 8 March is the 23 h spring-forward day
    assert status["last_window"]["start_utc"] == "2026-03-08T05:00:00+00:00"
    assert status["last_window"]["end_utc"] == "2026-03-09T04:00:00+00:00"
    second = await sweep.run_batch()
    assert [d["local_date"] for d in second.report.extra["dates"]] == ["2026-03-09"]
    stages = await rows(world.store, "SELECT local_date FROM sweep_stages ORDER BY created_at")
    assert [r[0] for r in stages] == ["2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09"]


async def test_empty_days_advance_without_a_model_call(world: World) -> None:
    await world.day_with_reinforced(date(2026, 3, 2), "a")
    world.clock.set_wall(utc(2026, 3, 5, 12))
    provider = ScriptedProvider([lambda r: orjson.dumps(sweep_fallback(r.payload)).decode()])
    outcome = await world.sweep(provider).run_batch()
    assert [(d["local_date"], d["status"]) for d in outcome.report.extra["dates"]] == [
        ("2026-03-02", "swept"), ("2026-03-03", "empty"), ("2026-03-04", "empty")]
    assert len(provider.requests) == 1


async def test_retry_reads_the_stage_and_never_calls_the_model_again(world: World) -> None:
    memory_id = await world.day_with_reinforced(date(2026, 3, 2), "a")
    world.clock.set_wall(utc(2026, 3, 3, 12))
    provider = ScriptedProvider([lambda r: orjson.dumps(sweep_fallback(r.payload)).decode()])

    def crash(step: str) -> None:
        if step == "staged":
            raise RuntimeError("simulated crash after staging")

    with pytest.raises(RuntimeError):
        await world.sweep(provider, step_hook=crash).run_batch()
    record = await world.store.get(memory_id)
    assert record is not None and record.tier is Tier.TEMPORARY
    assert await cursor_of(world.store) is not None  # the anchor, written with the stage
    outcome = await world.sweep(provider).run_batch()  # the script is empty now
    assert outcome.report.model_calls == 0
    assert outcome.report.extra["dates"][0]["status"] == "swept"
    assert len(provider.requests) == 1
    record = await world.store.get(memory_id)
    assert record is not None and record.tier is Tier.LONG_TERM


async def test_model_failure_leaves_the_day_incomplete(world: World) -> None:
    await world.day_with_reinforced(date(2026, 3, 2), "a")
    world.clock.set_wall(utc(2026, 3, 4, 12))
    before = await dump(world.store)
    provider = ScriptedProvider([ModelUnavailableError("no model configured")])
    outcome = await world.sweep(provider).run_batch()
    assert outcome.report.extra["dates"] == [
        {"local_date": "2026-03-02", "status": "incomplete", "reason": "model_unavailable",
         "candidates": 0, "writes": 0}]
    assert outcome.report.error == "model_unavailable"
    assert await dump(world.store) == before


async def test_malformed_stage_stalls_and_older_schema_is_attested_empty(world: World) -> None:
    await world.day_with_reinforced(date(2026, 3, 2), "a")
    await world.day_with_reinforced(date(2026, 3, 3), "b")
    world.clock.set_wall(utc(2026, 3, 5, 12))
    w2, w3 = day_window(date(2026, 3, 2), NY), day_window(date(2026, 3, 3), NY)
    now = world.clock.now()
    anchor = L.SweepCursor(NY, date(2026, 3, 1), w2.start_utc - timedelta(days=1), w2.start_utc,
                           "anchor", 1, "anchor", now)
    old = '{"legacy": true}'
    bad = '{"candidates": []}'

    def seed(conn: Any) -> None:
        L.write_cursor(conn, anchor, expected_window_id=None)
        L.put_stage(conn, L.Stage(1, w2.window_id, w2.local_date, 0, old, "x", now))
        L.put_stage(conn, L.Stage(1, w3.window_id, w3.local_date, SCHEMA_VERSION, bad, "wrong",
                                  now))

    await world.store.transaction(seed)
    provider = ScriptedProvider()
    sweep = world.sweep(provider)
    outcome = await sweep.run_batch()
    assert [(d["status"], d["reason"]) for d in outcome.report.extra["dates"]] == [
        ("attested_empty", "stage_schema_older"), ("stalled", "stage_malformed")]
    assert provider.requests == []
    cur = await cursor_of(world.store)
    assert cur is not None and cur.window_id == w2.window_id
    assert (await sweep.status())["reason"] == "stage_malformed"
    again = await sweep.run_batch()
    assert again.report.extra["dates"][0]["status"] == "stalled" and provider.requests == []
    result = await sweep.reconcile()
    assert result["reconciled"] and result["reason"] == "stage_malformed"
    assert result["namespace"] == 2
    provider.push(lambda r: orjson.dumps(sweep_fallback(r.payload)).decode())
    done = await sweep.run_batch()
    assert [d["status"] for d in done.report.extra["dates"]] == ["swept", "empty"]
    record = await world.store.get("t-b")
    assert record is not None and record.tier is Tier.LONG_TERM


async def test_zone_change_fails_closed_and_reconciles_exactly(world: World) -> None:
    kolkata = "Asia/Kolkata"
    await world.day_with_reinforced(date(2026, 3, 2), "a", zone=kolkata)
    world.clock.set_wall(utc(2026, 3, 3, 20))  # 01:30 on 4 March in Kolkata
    first = await world.sweep(zone=kolkata).run_batch()
    assert [d["local_date"] for d in first.report.extra["dates"]] == ["2026-03-02", "2026-03-03"]
    old = await cursor_of(world.store)
    assert old is not None and old.end_utc == utc(2026, 3, 3, 18, 30)
    world.clock.set_wall(utc(2026, 3, 6, 12))
    moved = world.sweep(zone=NY)
    before = await dump(world.store)
    blocked = await moved.run_batch()
    assert blocked.report.error == "timezone_changed_requires_reconciliation"
    assert await dump(world.store) == before
    status = await moved.status()
    assert (status["state"], status["reason"]) == (
        "blocked", "timezone_changed_requires_reconciliation")
    result = await moved.reconcile()
    assert result["reconciled"] and result["namespace"] == 2
    status = await moved.status()
    assert status["zone"] == NY and status["cursor_zone"] == NY
    # the anchor is still Kolkata's last day, labelled with Kolkata, not New York
    assert status["last_window"]["zone"] == kolkata
    assert status["last_window"]["local_date"] == "2026-03-03"
    assert status["last_window"]["reconciled"] is True
    # the first New York window starts exactly where Kolkata's last one ended
    assert result["next_window"]["start_utc"] == "2026-03-03T18:30:00+00:00"
    assert result["next_window"]["end_utc"] == "2026-03-04T05:00:00+00:00"
    after = await moved.run_batch()
    assert [d["local_date"] for d in after.report.extra["dates"]] == [
        "2026-03-03", "2026-03-04", "2026-03-05"]
    stages = await rows(world.store, "SELECT window_id FROM sweep_stages ORDER BY created_at")
    bounds = [tuple(w.split("#")[1].split("/")) for (w,) in stages]
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
    assert (await moved.reconcile())["reason"] == "nothing_to_reconcile"


def page(*candidates: dict[str, Any]) -> str:
    return json.dumps({"candidates": list(candidates)})


async def test_provenance_authority_and_subject_rules(world: World) -> None:
    day = date(2026, 3, 2)
    start = day_window(day, NY).start_utc
    world.clock.set_wall(start + timedelta(hours=8))
    owner_fact = "Anna birthday is on 4 May"
    saved = await world.store.save_memory(owner_fact, kind=Kind.FACT, sources=["agent:t1"],
                                          subject="anna birthday")
    inferred = await world.store.save_memory("Prefers window seats on flights",
                                             kind=Kind.PREFERENCE, sources=["agent:t2"],
                                             authority=Authority.INFERENCE)
    world.clock.set_wall(start + timedelta(hours=9))
    cid = world.log.add(world.clock.now(), "Calendar", "Anna birthday party in May")
    await create_temporary(world.store, "t-x", "Planning Anna birthday party in May",
                           sources=[f"context:{cid}"])
    await create_temporary(world.store, "t-y", "Booked window seats for the flight",
                           sources=[f"context:{cid}"])
    foreign = world.log.add(start - timedelta(hours=3), "Old", "Yesterday's news")
    world.clock.set_wall(utc(2026, 3, 3, 12))
    answer = page(
        {"action": "add", "kind": "fact", "text": "Sees a dentist regularly",
         "subject": "dentist", "sources": [f"context:{cid}", "context:999"]},
        {"action": "add", "kind": "fact", "text": "No provenance", "sources": ["context:999"]},
        {"action": "add", "kind": "fact", "text": "Old news", "sources": [f"context:{foreign}"]},
        {"action": "add", "kind": "fact", "text": "Anna birthday is 5 May",
         "subject": "Anna Birthday", "sources": [f"context:{cid}"]},
        {"action": "amend", "memory_id": saved.record.memory_id, "text": "Wrong birthday",
         "sources": [f"context:{cid}"]},
        {"action": "amend", "memory_id": inferred.record.memory_id,
         "text": "Prefers aisle seats on flights", "sources": ["memory:t-y"]},
        {"action": "promote", "memory_id": "t-x", "sources": []},
        {"action": "promote", "memory_id": "not-of-this-day", "sources": []},
    )
    provider = ScriptedProvider([answer])
    outcome = await world.sweep(provider).run_batch()
    related = {r["memory_id"] for r in provider.requests[0].payload["related"]}
    assert related == {saved.record.memory_id, inferred.record.memory_id}
    report = outcome.report
    assert report.rejected["no_provenance"] == 2
    assert report.rejected["unknown_target"] == 1
    outcomes = {k[8:]: v for k, v in report.proposals.items() if k.startswith("outcome_")}
    assert outcomes == {"added": 1, "subject_occupied": 1, "authority_too_low": 1,
                        "amended": 1, "promoted": 1}
    kept = await world.store.get(saved.record.memory_id)
    assert kept is not None and kept.text == owner_fact and kept.revision == 1
    amended = await world.store.get(inferred.record.memory_id)
    assert amended is not None and amended.text == "Prefers aisle seats on flights"
    added = [r for r in await world.store.list_records(tier=Tier.LONG_TERM)
             if r.text == "Sees a dentist regularly"]
    assert len(added) == 1 and added[0].authority is Authority.INFERENCE
    assert {s.to_str() for s in added[0].sources} == {f"context:{cid}"}
    promoted = await world.store.get("t-x")
    assert promoted is not None and promoted.tier is Tier.LONG_TERM


async def test_at_most_sixteen_writes_per_day(world: World) -> None:
    day = date(2026, 3, 2)
    world.clock.set_wall(day_window(day, NY).start_utc + timedelta(hours=9))
    cid = world.log.add(world.clock.now(), "Notes", "Many facts today")
    world.clock.set_wall(utc(2026, 3, 3, 12))
    facts = [{"action": "add", "kind": "fact", "text": f"Fact number {n}",
              "sources": [f"context:{cid}"]} for n in range(20)]
    outcome = await world.sweep(ScriptedProvider([page(*facts)])).run_batch()
    assert outcome.report.applied == 16
    assert outcome.report.rejected["write_limit"] == 4
    assert len(await world.store.list_records(tier=Tier.LONG_TERM)) == 16


async def test_secrets_and_noise_never_reach_the_model(world: World) -> None:
    day = date(2026, 3, 2)
    world.clock.set_wall(day_window(day, NY).start_utc + timedelta(hours=9))
    world.log.add(world.clock.now(), "Bank", "Your verification code is 482913")
    world.log.add(world.clock.now(), "Ops", "key sk-proj-abcdefghijklmnopqrstuvwxyz123456")
    kept = world.log.add(world.clock.now(), "Friend", "Dinner at Luigi's on Saturday?")
    world.clock.set_wall(utc(2026, 3, 3, 12))
    provider = ScriptedProvider([page()])
    outcome = await world.sweep(provider).run_batch()
    prompt = "\n".join(m.content for m in provider.requests[0].messages)
    assert "482913" not in prompt and "sk-proj" not in prompt and "Luigi" in prompt
    assert [n["context_id"] for n in provider.requests[0].payload["notifications"]] == [kept]
    assert sum(outcome.report.filtered.values()) == 2


async def test_waits_while_the_day_has_unprocessed_notifications(world: World) -> None:
    day = date(2026, 3, 2)
    world.clock.set_wall(day_window(day, NY).start_utc + timedelta(hours=9))
    world.log.add(world.clock.now(), "Friend", "Lunch Friday?")
    world.log.add(world.clock.now(), "Friend", "Dinner Saturday?", processed=False)
    world.clock.set_wall(utc(2026, 3, 3, 12))
    before = await dump(world.store)
    outcome = await world.sweep(ScriptedProvider()).run_batch()
    assert outcome.report.extra["dates"][0]["status"] == "waiting"
    assert await dump(world.store) == before


@pytest.mark.parametrize(
    ("zone", "day", "hours"),
    [(NY, date(2026, 11, 1), 25), ("Europe/London", date(2026, 3, 29), 23),
     ("Australia/Lord_Howe", date(2026, 4, 5), 24.5), ("Asia/Kolkata", date(2026, 3, 8), 24)],
)
async def test_dst_days_are_swept_with_exact_windows(
    world: World, zone: str, day: date, hours: float
) -> None:
    memory_id = await world.day_with_reinforced(day, "z", zone=zone)
    window = day_window(day, zone)
    world.clock.set_wall(window.end_utc - timedelta(seconds=1))  # still that day: not swept
    assert (await world.sweep(zone=zone).run_batch()).report.extra["dates"] == []
    world.clock.set_wall(window.end_utc)
    outcome = await world.sweep(zone=zone).run_batch()
    assert outcome.report.extra["dates"][0]["local_date"] == day.isoformat()
    cur = await cursor_of(world.store)
    assert cur is not None and (cur.start_utc, cur.end_utc) == (window.start_utc, window.end_utc)
    assert cur.end_utc - cur.start_utc == timedelta(hours=hours)
    record = await world.store.get(memory_id)
    assert record is not None and record.tier is Tier.LONG_TERM


async def test_a_model_line_lives_until_its_event_and_gets_search_words(world: World) -> None:
    day = date(2026, 3, 2)
    world.clock.set_wall(day_window(day, NY).start_utc + timedelta(hours=9))
    cid = world.log.add(world.clock.now(), "Mara",
                        "Booked: flight TP 1234 to Lisbon on 20 July, Alfama guesthouse")
    world.clock.set_wall(utc(2026, 3, 3, 12))
    until = "2026-07-21T00:00:00-04:00"
    line = {"action": "add", "kind": "event", "text": "2026-03-02 (Mon): Mara booked Lisbon",
            "subject": "day 2026-03-02 mara", "until": until, "sources": [f"context:{cid}"]}
    outcome = await world.sweep(ScriptedProvider([page(line)])).run_batch()
    assert outcome.report.applied == 0  # a diary line waits for its day's memories to go
    world.clock.set_wall(utc(2026, 3, 3, 12) + timedelta(days=DEFER_DAYS))
    later = await world.sweep(ScriptedProvider()).run_batch()
    assert later.report.applied == 1
    [kept] = await world.store.list_records(tier=Tier.LONG_TERM)
    assert kept.expires_at is not None
    assert kept.expires_at == datetime.fromisoformat(until)  # not after the 90-day TTL
    # the notification's own words are searchable beside the model's short line
    hits = await world.store.recall("Alfama guesthouse")
    assert hits and hits[0].record.memory_id == kept.memory_id


async def test_old_stages_and_receipts_are_pruned_after_waiting_lines_are_applied(
    world: World,
) -> None:
    await world.day_with_reinforced(date(2026, 3, 2), "a")
    world.clock.set_wall(utc(2026, 3, 3, 12))
    await world.sweep().run_batch()
    stages = await rows(world.store, "SELECT local_date FROM sweep_stages")
    assert stages == [("2026-03-02",)]
    assert await rows(world.store, "SELECT count(*) FROM sweep_receipts") == [(1,)]
    # the device was off for four weeks: one run catches up on every day
    world.clock.set_wall(utc(2026, 3, 31, 12))
    outcome = await world.sweep(max_days_per_run=31).run_batch()
    assert len(outcome.report.extra["dates"]) == 28
    assert outcome.report.extra["deferred_applied"] == 1  # the 2 March line, before pruning
    assert [r.text[:17] for r in await world.store.list_records(tier=Tier.LONG_TERM)
            if r.memory_id != "t-a"] == ["2026-03-02 (Mon, "]
    kept = await rows(world.store, "SELECT min(local_date), count(*) FROM sweep_stages")
    cutoff = date(2026, 3, 30) - timedelta(days=L.STAGE_RETENTION_DAYS)
    assert kept[0][0] == cutoff.isoformat() and kept[0][1] == 22
    assert await rows(world.store, "SELECT count(*) FROM sweep_receipts "
                      "WHERE window_id LIKE '2026-03-02%'") == [(0,)]


async def test_a_day_too_long_for_the_model_is_consolidated_by_the_rules(world: World) -> None:
    memory_id = await world.day_with_reinforced(date(2026, 3, 2), "a")
    world.clock.set_wall(utc(2026, 3, 4, 12))
    provider = ScriptedProvider([ModelError("the prompt is too long", code="prompt_too_long")])
    outcome = await world.sweep(provider).run_batch()
    assert outcome.report.extra["dates"][0]["status"] == "swept"
    assert outcome.report.extra["rules_for_long_days"] == 1
    assert outcome.report.error is None and outcome.report.model_calls == 0
    record = await world.store.get(memory_id)
    assert record is not None and record.tier is Tier.LONG_TERM  # the rules promoted it
    stage = await rows(world.store, "SELECT output FROM sweep_stages")
    assert '"source":"rules_prompt_too_long"' in stage[0][0]


async def test_a_day_the_model_keeps_answering_invalidly_is_consolidated_by_the_rules(
    world: World,
) -> None:
    """After its retries a model's invalid page no longer stages an empty day (no lines,
    a gap): the rules consolidate the day, and the stage keeps the model's last answer."""
    memory_id = await world.day_with_reinforced(date(2026, 3, 2), "a")
    world.clock.set_wall(utc(2026, 3, 4, 12))
    provider = ScriptedProvider(["not json", "{]", '{"candidates": 3}'])
    sweep = world.sweep(provider, retry_budget=3)
    codes = [(await sweep.run_batch()).report for _ in range(3)]
    assert [r.error for r in codes[:2]] == ["invalid_json", "invalid_json"]
    last = codes[2]
    assert last.error is None and last.gaps == 0
    assert last.extra["dates"][0]["status"] == "swept"
    assert last.extra["rules_for_invalid_days"] == 1 and last.model_calls == 1
    record = await world.store.get(memory_id)
    assert record is not None and record.tier is Tier.LONG_TERM  # the rules promoted it
    stage = await rows(world.store, "SELECT output FROM sweep_stages")
    assert '"source":"rules_model_invalid"' in stage[0][0]
    assert '"reason":"page_malformed"' in stage[0][0]
    assert len(provider.requests) == 3


async def test_answers_the_provider_refuses_count_as_attempts_then_the_rules_consolidate(
    world: World,
) -> None:
    """A provider that refuses the answer itself (llama.cpp: cut at max_output_tokens or
    not the schema; past the deadline) spends the day's retry budget like an invalid page:
    greedy decoding gives the same answer each time, so the day is not retried forever."""
    memory_id = await world.day_with_reinforced(date(2026, 3, 2), "a")
    world.clock.set_wall(utc(2026, 3, 4, 12))
    provider = ScriptedProvider([
        ModelOutputError("the completion was cut at max_output_tokens"),
        ModelTimeoutError("the sweep model call ran past its deadline"),
        ModelOutputError("the completion does not match the schema"),
    ])
    sweep = world.sweep(provider, retry_budget=3)
    codes = [(await sweep.run_batch()).report for _ in range(3)]
    assert [r.error for r in codes[:2]] == ["model_output_invalid", "model_timeout"]
    last = codes[2]
    assert last.error is None and last.extra["dates"][0]["status"] == "swept"
    assert last.extra["rules_for_invalid_days"] == 1
    record = await world.store.get(memory_id)
    assert record is not None and record.tier is Tier.LONG_TERM  # the rules promoted it
    stage = await rows(world.store, "SELECT output FROM sweep_stages")
    assert '"source":"rules_model_invalid"' in stage[0][0]
    assert '"reason":"model_output_invalid"' in stage[0][0]
    assert len(provider.requests) == 3


async def test_a_provider_that_is_unavailable_spends_no_attempt(world: World) -> None:
    await world.day_with_reinforced(date(2026, 3, 2), "a")
    world.clock.set_wall(utc(2026, 3, 4, 12))
    provider = ScriptedProvider([ModelUnavailableError("no model file")] * 4)
    sweep = world.sweep(provider, retry_budget=3)
    codes = [(await sweep.run_batch()).report.error for _ in range(4)]
    assert codes == ["model_unavailable"] * 4
    assert await rows(world.store, "SELECT count(*) FROM sweep_stages") == [(0,)]
