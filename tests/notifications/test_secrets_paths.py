"""Secrets never reach a model or a memory on any path: every field of a notification
(app id and category too), a code that only the `modified` event carries, a hostile model
that writes a code into its statement (notifications, daily sweep, episodes), the episode
view, and a store refusal that skips one item without losing the batch."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from companion_memory.agent.episodes import derived_memory_id
from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.agent.notifications.filters import NoiseFilter, Triage
from companion_memory.agent.sweep import DailySweepProcessor, ModelSweepExtractor, day_window
from companion_memory.agent.sweep.windows import load_zone
from companion_memory.ble.events import NotificationEvent
from companion_memory.core.clock import FakeClock
from companion_memory.memory.records import Status
from companion_memory.memory.store import MemoryStore
from companion_memory.testing import ScriptedProvider
from tests.episodes.helpers import episode, harness
from tests.notifications.harness import (
    all_prompt_text,
    contract_answer,
    contract_step,
    event,
    pipeline,
)
from tests.sweep.helpers import ProcessedLog

CODE = "493817"
HOSTILE = f"Your verification code is {CODE}"
load_zone("UTC")  # tzdata is read once, here, not on the event loop


async def stored_text(store: MemoryStore) -> str:
    rows = await store.read(lambda conn: conn.execute(
        "SELECT text, detail, COALESCE(subject, '') FROM memories").fetchall())
    return "\n".join("\n".join(row) for row in rows)


async def test_app_id_and_category_never_carry_a_secret_to_the_model(tmp_path: Path) -> None:
    async with pipeline(tmp_path, [contract_step]) as p:
        p.publish(
            event("Dinner on Friday at 8 at Frieda, bring the salad", app=f"code {CODE}"),
            event("Zug fällt aus, ich komme später", category="Ihr Code lautet 318-774"),
            event("see you at the station at 18:40", title="Mia"),
        )
        outcome = await p.processor.run_batch()
        assert outcome.report.error is None
        sent = all_prompt_text(p.provider)
        kept = await stored_text(p.store)
        for value in (CODE, "318-774", "318774"):
            assert value not in sent and value not in kept
        assert "18:40" in sent  # the ordinary notification went on


async def test_a_code_only_in_the_modified_event_never_reaches_a_model(tmp_path: Path) -> None:
    async with pipeline(tmp_path, [contract_step] * 3) as p:
        p.publish(event("Your parcel is on its way to Packstation 142", title="DHL",
                        key="parcel", app="de.dhl.paket", category="other"))
        assert (await p.processor.run_batch()).report.applied == 1
        p.publish(event("Packstation 142: Abholcode 5 5 3 2, abholen bis Mittwoch 11.03.",
                        title="DHL", key="parcel", app="de.dhl.paket", category="other",
                        kind="modified"))
        # and once more, coalesced with its added event in one batch
        p.publish(event("Locker at Tesco is booked for you", title="InPost", key="locker",
                        app="uk.inpost", category="other"),
                  event("Locker at Tesco: enter 739104 on the keypad to open it",
                        title="InPost", key="locker", app="uk.inpost", category="other",
                        kind="modified"))
        await p.processor.run_batch()
        await p.processor.run_batch()
        sent = all_prompt_text(p.provider)
        kept = await stored_text(p.store)
        for value in ("5 5 3 2", "5532", "739104"):
            assert value not in sent and value not in kept
        assert "Packstation 142" in kept  # the rest of the modified event is remembered


async def test_a_hostile_model_statement_with_a_code_is_not_stored(tmp_path: Path) -> None:
    async with pipeline(tmp_path, []) as p:
        p.publish(event("Dinner on Friday at 8?", title="Anna"),
                  event("Max has a fever, staying home", title="Tom"))
        p.provider.push(contract_answer(("new", HOSTILE, "event", 0),
                                        ("new", "Max has a fever and stays home", "event", 0)))
        outcome = await p.processor.run_batch()
        assert outcome.report.error is None and outcome.report.rejected["contains_secret"] == 1
        # the hostile entry is replaced by the rules' statement for that item alone
        assert outcome.report.extra["fallback_statement"] == 1
        live = sorted(r.text for r in await p.memories() if r.status is Status.ACTIVE)
        assert live == ["Anna on WhatsApp: Dinner on Friday 6 Mar at 8?",
                        "Max has a fever and stays home"]
        assert CODE not in await stored_text(p.store)
        assert p.context.memory_cursor == 2


class _LetEverythingThrough(NoiseFilter):
    """A filter that lets a secret through, so that only the store stands in its way."""

    def triage(self, event: NotificationEvent) -> Triage:
        return Triage(None, event)


async def test_a_store_refusal_skips_one_item_and_keeps_the_batch(tmp_path: Path) -> None:
    async with pipeline(tmp_path, [], noise_filter=_LetEverythingThrough()) as p:
        p.publish(event(f"Ihr Code lautet {CODE}, Abholung Mittwoch", title="DHL"),
                  event("Max has a fever, staying home", title="Tom"))
        p.provider.push(contract_answer(("new", "A parcel waits until Wednesday", "event", 0),
                                        ("new", "Max has a fever and stays home", "event", 0)))
        outcome = await p.processor.run_batch()
        report = outcome.report
        assert report.error is None and report.rejected["secret_in_statement"] == 1
        assert report.applied == 1 and p.context.memory_cursor == 2
        assert CODE not in await stored_text(p.store)


async def test_a_hostile_sweep_candidate_with_a_code_is_not_stored(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 3, 1, 12, tzinfo=UTC))
    store = await MemoryStore.open(tmp_path / "memory.sqlite3", clock=clock)
    try:
        log = ProcessedLog()
        start = day_window(date(2026, 3, 2), "UTC").start_utc
        clock.set_wall(start + timedelta(hours=9))
        cid = log.add(clock.now(), "Anna", "Dinner at Luigi's on Saturday?")
        clock.set_wall(start + timedelta(days=1, hours=12))
        page = json.dumps({"candidates": [
            {"action": "add", "kind": "fact", "text": HOSTILE, "sources": [f"context:{cid}"]},
            {"action": "add", "kind": "fact", "text": "Anna likes Luigi's",
             "subject": f"login code {CODE}", "sources": [f"context:{cid}"]},
            {"action": "add", "kind": "fact", "text": "Dinner with Anna at Luigi's",
             "sources": [f"context:{cid}"]},
        ]})
        sweep = DailySweepProcessor(log, store, ModelSweepExtractor(
            MemoryMergeEngine(ScriptedProvider([page]))),
                                    clock=clock, zone="UTC", enabled=True)
        outcome = await sweep.run_batch()
        assert outcome.report.applied == 1
        assert CODE not in await stored_text(store)
    finally:
        await store.close()


def _episode_answer(*items: dict[str, Any]) -> str:
    return orjson.dumps({"items": list(items)}).decode()


async def test_a_hostile_episode_item_with_a_code_is_not_stored(tmp_path: Path) -> None:
    def add(eid: str, text: str) -> dict[str, Any]:
        return {"episode_id": eid, "goal_result": "achieved", "action": "add",
                "kind": "device_location", "text": text, "evidence": ["e1"]}

    provider = ScriptedProvider([_episode_answer(
        add("ep-a", f"Display settings are under Settings > Display, {HOSTILE}"),
        add("ep-b", "Sound settings are under Settings > Sound"),
    )])
    async with harness(tmp_path, provider, retry_backoff=timedelta(minutes=5)) as h:
        for eid in ("ep-a", "ep-b"):
            await h.recorder.record(episode(eid, goal=f"goal {eid}"))
        outcome = await h.processor.run_batch()
        assert outcome.report.applied == 1
        assert await h.store.get(derived_memory_id("ep-b", 0)) is not None
        assert CODE not in await stored_text(h.store)


async def test_the_episode_view_redacts_the_span_and_keeps_the_rest(tmp_path: Path) -> None:
    steps = [
        {"n": 1, "action": "open", "target": "Bank app", "observation": "login screen"},
        {"n": 2, "action": "type", "target": "code field",
         "observation": f"entered the code {CODE} from the SMS, home screen shown",
         "evidence": ["e1"]},
    ]
    evidence = [{"id": "e1", "kind": "screen", "detail": "Anmeldecode 318-774 accepted"}]
    provider = ScriptedProvider([_episode_answer()])
    async with harness(tmp_path, provider) as h:
        await h.recorder.record(episode("ep-v", goal="log in to the bank app", steps=steps,
                                        evidence=evidence, app=f"bank pin {CODE}"))
        await h.processor.run_batch()
        sent = "\n".join(m.content for m in provider.requests[0].messages) + \
            orjson.dumps(provider.requests[0].payload).decode()
        for value in (CODE, "318-774"):
            assert value not in sent
        assert "home screen shown" in sent and "accepted" in sent
