"""The extractor seam: the rules and a model are two implementations of one interface.

The rules extract in process (no provider, no JSON text); a processor takes whichever it
is given through the same code path; the runtime wires the rules when no model is
configured and composes model and rules for an explicit fallback to "deterministic"."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from companion_memory.agent.episodes import Episode, EpisodeBatch, RulesEpisodeExtractor
from companion_memory.agent.notifications.extractor import (
    NotificationBatch,
    NotificationExtraction,
    NotificationItem,
    RulesNotificationExtractor,
)
from companion_memory.agent.notifications.proposals import Proposal
from companion_memory.agent.sweep import DayInput, DayScope, RulesSweepExtractor, SweepDay
from companion_memory.agent.sweep.windows import day_window, load_zone
from companion_memory.ble.events import NotificationEvent
from companion_memory.core.clock import FakeClock
from companion_memory.device.config import parse_config
from companion_memory.device.runtime import Runtime
from tests.episodes.helpers import episode
from tests.notifications.harness import T0, contract_step, event, pipeline

load_zone("UTC")


def _refuse(name: str) -> Any:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError(f"{name} was called on the rules path")

    return refuse


def forbid_json_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on any JSON encoding or parsing fails the test (orjson and json alike)."""
    for module, name in ((orjson, "dumps"), (orjson, "loads"), (json, "dumps"),
                         (json, "loads")):
        monkeypatch.setattr(module, name, _refuse(f"{module.__name__}.{name}"))


def _item(cid: int, body: str, title: str = "Anna") -> NotificationItem:
    ev = NotificationEvent.create(kind="added", key=f"k{cid}", app_id="net.whatsapp.WhatsApp",
                                  title=title, body=body, category="social",
                                  posted_at=T0 + timedelta(minutes=cid))
    return NotificationItem(cid, (cid,), ev, {})


async def test_the_notification_rules_write_no_json_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forbid_json_text(monkeypatch)
    batch = NotificationBatch((_item(1, "Dinner on Friday at 8 at the Greek place?"),
                               _item(2, "btw I'm vegan now", title="Priya")))
    made = await RulesNotificationExtractor().extract(batch)
    assert made.failure is None and made.usage.model_calls == 0
    assert made.accepted[1].text == \
        "Anna on WhatsApp: Dinner on Friday 6 Mar at 8 at the Greek place?"
    assert made.accepted[2].text == "Priya is vegan"


async def test_the_episode_rules_write_no_json_text(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = Episode.from_dict(episode("ep-1"))
    forbid_json_text(monkeypatch)
    made = await RulesEpisodeExtractor().extract(EpisodeBatch({"ep-1": parsed}))
    assert made.failure is None and made.usage.model_calls == 0
    [item] = made.result.staged["ep-1"]
    assert item["kind"] == "device_procedure" and item["text"].startswith("To turn on wifi:")


async def test_the_sweep_rules_parse_no_json_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # (a candidate's digest is a canonical JSON encoding: only parsing is refused here)
    monkeypatch.setattr(orjson, "loads", _refuse("orjson.loads"))
    monkeypatch.setattr(json, "loads", _refuse("json.loads"))
    day = DayInput(day_window(date(2026, 3, 2), "UTC"),
                   items=[{"type": "memory", "memory_id": "t-1"}],
                   temporaries=[{"memory_id": "t-1", "kind": "fact", "text": "Goes to yoga",
                                 "reinforced_in_window": 2}],
                   scope=DayScope(frozenset(), frozenset({"t-1"}), frozenset()))
    made = await RulesSweepExtractor().extract(SweepDay(day))
    assert made.failure is None and made.source == "rules" and made.raw_text is None
    assert [(c.action, c.memory_id) for c in made.page.candidates] == [("promote", "t-1")]


EVENTS = (("Dinner on Friday at 8 at the Greek place?", "Anna", "social"),
          ("Your parcel arrives tomorrow between 10 and 14", "DHL", "other"))


async def _memories(root: Path, steps: list[Any] | None) -> list[tuple[Any, ...]]:
    await asyncio.to_thread(root.mkdir)
    async with pipeline(root, steps) as p:
        p.publish(*(event(body, title=title, category=cat, key=f"k-{title}")
                    for body, title, cat in EVENTS))
        report = (await p.processor.run_batch()).report
        assert report.error is None and report.applied == 2
        return sorted((m.memory_id, m.text, m.tier, m.kind, m.sources, m.subject)
                      for m in await p.memories())


async def test_rules_and_model_go_through_the_same_processor_path(tmp_path: Path) -> None:
    """A model that answers what the rules would say makes the same memories: the
    processor turns either extractor's proposals into intents the same way."""
    by_rules = await _memories(tmp_path / "rules", None)
    by_model = await _memories(tmp_path / "model", [contract_step])
    assert by_rules == by_model and len(by_rules) == 2


class _Fixed:
    """An extractor of its own: one fixed statement per item, whatever the item says."""

    name = "fixed"

    def __init__(self) -> None:
        self.batches: list[NotificationBatch] = []

    async def extract(self, batch: NotificationBatch, /) -> NotificationExtraction:
        self.batches.append(batch)
        made = NotificationExtraction()
        for item in batch.items:
            made.accepted[item.context_id] = Proposal(item.context_id, "add",
                                                      text=f"Fixed note {item.context_id}")
        made.proposals["add"] += len(batch.items)
        return made


async def test_a_processor_takes_any_extractor(tmp_path: Path) -> None:
    async with pipeline(tmp_path) as p:
        fixed = _Fixed()
        p.processor._extractor = fixed  # the one seam a processor extracts through
        p.publish(event("Dinner on Friday at 8?"), event("Gym at six", title="Coach"))
        report = (await p.processor.run_batch()).report
        assert report.error is None and report.applied == 2 and report.model_calls == 0
        assert [i.context_id for i in fixed.batches[0].items] == [1, 2]
        assert sorted(m.text for m in await p.memories()) == ["Fixed note 1", "Fixed note 2"]


async def test_the_default_runtime_has_no_provider_and_makes_no_model_call(
    tmp_path: Path,
) -> None:
    config = parse_config({"intake": {"noise_model": False}})
    clock = FakeClock(datetime(2026, 3, 2, 9, tzinfo=UTC))
    async with Runtime(config, root=tmp_path / "root", clock=clock, start_worker=False,
                       start_link=False) as runtime:
        await runtime.feed([event("Dinner on Friday at 8 at the Greek place?")])
        report = await runtime.run_once()
        assert report.model_calls == 0
        status = await runtime.status()
        assert status.provider == {"name": "deterministic"}
        [memory] = await runtime.list_memories()
        assert memory.text.startswith("Anna on WhatsApp: Dinner on Friday")


async def test_a_fallback_to_the_rules_answers_when_the_model_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CM_TEST_EXTRACTION_KEY", raising=False)
    config = parse_config({
        "intake": {"noise_model": False},
        "provider": {"kind": "openai", "fallback": "deterministic",
                     "openai": {"base_url": "http://127.0.0.1:9/v1", "model": "m",
                                "api_key_env": "CM_TEST_EXTRACTION_KEY"}},
    })
    clock = FakeClock(datetime(2026, 3, 2, 9, tzinfo=UTC))
    async with Runtime(config, root=tmp_path / "root", clock=clock, start_worker=False,
                       start_link=False) as runtime:
        await runtime.feed([event("Dinner on Friday at 8 at the Greek place?")])
        report = await runtime.run_once()
        assert report.errors == {} or not report.errors
        [memory] = await runtime.list_memories()
        assert memory.text.startswith("Anna on WhatsApp: Dinner on Friday")
        status = await runtime.status()
        assert status.provider["fallback"] == {"name": "deterministic"}
        assert status.provider["fallbacks_used"] >= 1
        assert status.provider["last_fallback_reason"] == "model_unavailable"
