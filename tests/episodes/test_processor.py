"""EpisodeProcessor against a real SQLite store: batching, independence, conflicts,
retries, staged-proposal reuse, cancellation and the Device tier's isolation."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from companion_memory.agent.episodes import derived_memory_id, episode_fallback
from companion_memory.agent.model import ModelRequest, ModelUnavailableError
from companion_memory.memory.episode_ledger import EpisodeState
from companion_memory.memory.errors import EmptyQueryError
from companion_memory.memory.records import Status, Tier
from companion_memory.testing import ScriptedProvider
from tests.episodes.helpers import episode, harness, topic_episode


def fallback_step(request: ModelRequest) -> str:
    return orjson.dumps(episode_fallback(request.payload)).decode()


def answer(*items: dict[str, Any]) -> str:
    return orjson.dumps({"items": list(items)}).decode()


def add(eid: str, text: str, evidence: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    return {"episode_id": eid, "goal_result": "achieved", "action": "add",
            "kind": "device_location", "text": text, "evidence": evidence or ["e1"], **kw}


async def state(h: Any, eid: str) -> tuple[EpisodeState, int, str | None]:
    row = await h.processor.ledger_row(eid)
    assert row is not None
    return row.state, row.attempts, row.reason


async def test_batch_of_five_makes_one_model_call(tmp_path: Path) -> None:
    provider = ScriptedProvider([fallback_step], repeat_last=True)
    async with harness(tmp_path, provider) as h:
        for i in range(7):
            await h.recorder.record(topic_episode(i))
        first = await h.processor.run_batch()
        assert len(provider.requests) == 1
        assert len(provider.requests[0].payload["episodes"]) == 5
        assert first.report.model_calls == 1 and first.report.analyzed == 5
        assert first.backlog and first.report.pending == 2
        second = await h.processor.run_batch()
        assert len(provider.requests) == 2 and not second.backlog
        records = await h.store.list_records(tier=Tier.DEVICE)
        assert len(records) == 7
        assert {r.memory_id for r in records} == {
            derived_memory_id(f"ep-{i:03d}", 0) for i in range(7)
        }
        assert (await h.processor.status())["ledger"]["done"] == 7


async def test_device_memory_never_in_default_recall(tmp_path: Path) -> None:
    async with harness(tmp_path) as h:
        await h.recorder.record(episode(goal="enable bluetooth pairing"))
        await h.drain()
        assert await h.store.recall("bluetooth pairing") == []
        assert await h.store.related("bluetooth pairing") == []
        device = await h.store.recall("bluetooth pairing", tiers=(Tier.DEVICE,))
        assert [hit.record.tier for hit in device] == [Tier.DEVICE]
        with pytest.raises(EmptyQueryError):
            await h.store.recall("")


async def test_each_episode_is_validated_and_applied_independently(tmp_path: Path) -> None:
    provider = ScriptedProvider([answer(
        add("ep-a", "Display settings are under Settings > Display"),
        add("ep-b", "Sound settings are under Settings > Sound", evidence=["e9"]),
        add("ep-c", "Camera settings are in the camera app"),
        add("ep-zzz", "not in this batch"),
    )])
    async with harness(tmp_path, provider, retry_backoff=timedelta(minutes=5)) as h:
        for eid in ("ep-a", "ep-b", "ep-c"):
            await h.recorder.record(episode(eid, goal=f"goal {eid}"))
        outcome = await h.processor.run_batch()
        report = outcome.report
        assert report.model_calls == 1 and report.applied == 2
        assert report.rejected["evidence_not_in_trace"] == 1
        assert report.rejected["unknown_episode"] == 1
        assert await state(h, "ep-a") == (EpisodeState.DONE, 0, None)
        assert await state(h, "ep-c") == (EpisodeState.DONE, 0, None)
        assert await state(h, "ep-b") == (EpisodeState.RETRY, 1, "evidence_not_in_trace")
        assert not outcome.backlog  # ep-b backs off; no hot loop
        assert await h.store.get(derived_memory_id("ep-b", 0)) is None
        # After the backoff the episode is retried with a new model call.
        provider.push(answer(add("ep-b", "Sound settings are under Settings > Sound")))
        await h.clock.advance(301)
        await h.processor.run_batch()
        assert await state(h, "ep-b") == (EpisodeState.DONE, 1, None)
        assert len(provider.requests) == 2
        assert [e["episode_id"] for e in provider.requests[1].payload["episodes"]] == ["ep-b"]


async def test_retry_budget_ends_in_ignored(tmp_path: Path) -> None:
    bad = answer(add("ep-1", "x", evidence=["nope"]))
    provider = ScriptedProvider([bad], repeat_last=True)
    async with harness(tmp_path, provider, retry_budget=3,
                       retry_backoff=timedelta(seconds=1)) as h:
        await h.recorder.record(episode())
        for _ in range(3):
            await h.processor.run_batch()
            await h.clock.advance(2)
        assert await state(h, "ep-1") == (
            EpisodeState.IGNORED, 3, "retry_budget_exhausted:evidence_not_in_trace"
        )
        outcome = await h.processor.run_batch()
        assert outcome.report.model_calls == 0 and len(provider.requests) == 3


async def test_conflict_keeps_both_newer_current(tmp_path: Path) -> None:
    async with harness(tmp_path) as h:
        await h.recorder.record(episode("ep-old"))
        await h.drain()
        old_id = derived_memory_id("ep-old", 0)
        changed = episode("ep-new", steps=[
            {"n": 1, "action": "swipe", "target": "quick panel", "evidence": ["e1"]}])
        await h.recorder.record(changed)
        await h.drain()
        old = await h.store.get(old_id)
        new = await h.store.get(derived_memory_id("ep-new", 0))
        assert old is not None and new is not None
        assert old.status is Status.SUPERSEDED and old.superseded_by == new.memory_id
        assert new.status is Status.ACTIVE and "swipe quick panel" in new.text
        live = await h.store.recall("turn on wifi", tiers=(Tier.DEVICE,))
        assert [hit.record.memory_id for hit in live] == [new.memory_id]
        # The same procedure observed again changes nothing.
        await h.recorder.record(episode("ep-again", steps=changed["steps"]))
        await h.drain()
        assert await state(h, "ep-again") == (EpisodeState.DONE, 0, None)
        assert len(await h.store.list_records(tier=Tier.DEVICE)) == 1


async def test_update_with_revision_and_stale_revision_goes_to_retry(tmp_path: Path) -> None:
    provider = ScriptedProvider([answer(add("ep-0", "Wi-Fi is under Settings > Network"))])
    async with harness(tmp_path, provider) as h:
        await h.recorder.record(episode("ep-0"))
        await h.processor.run_batch()
        target = derived_memory_id("ep-0", 0)

        def both_update(request: ModelRequest) -> str:
            related = {r["memory_id"]: r for r in request.payload["related"]}
            assert related[target]["revision"] == 1
            upd = {"action": "update", "memory_id": target, "revision": 1,
                   "goal_result": "achieved", "evidence": ["e1"]}
            return answer({**upd, "episode_id": "ep-1", "text": "Wi-Fi: Settings > Connections"},
                          {**upd, "episode_id": "ep-2", "text": "Wi-Fi: Quick panel"})

        provider.push(both_update)
        await h.recorder.record(episode("ep-1"))
        await h.recorder.record(episode("ep-2"))
        outcome = await h.processor.run_batch()
        record = await h.store.get(target)
        assert record is not None and record.revision == 2
        assert record.text == "Wi-Fi: Settings > Connections"
        assert await state(h, "ep-1") == (EpisodeState.DONE, 0, None)
        assert await state(h, "ep-2") == (EpisodeState.RETRY, 1, "revision_conflict")
        assert outcome.report.rejected["revision_conflict"] == 1


async def test_unavailable_model_releases_without_charging(tmp_path: Path) -> None:
    provider = ScriptedProvider([ModelUnavailableError("no model file configured")])
    async with harness(tmp_path, provider) as h:
        await h.recorder.record(episode())
        outcome = await h.processor.run_batch()
        assert outcome.report.error == "model_unavailable" and not outcome.backlog
        assert await state(h, "ep-1") == (EpisodeState.PENDING, 0, None)
        provider.push("this is not json")
        outcome = await h.processor.run_batch()
        assert await state(h, "ep-1") == (EpisodeState.RETRY, 1, "model_output_invalid_json")


async def test_ineligible_and_missing_traces_are_ignored_with_reason(tmp_path: Path) -> None:
    provider = ScriptedProvider([fallback_step], repeat_last=True)
    async with harness(tmp_path, provider) as h:
        await h.recorder.record(episode("ep-failed", status="failed"))
        await h.recorder.record(episode("ep-bare", evidence=[], steps=[]))
        gone = await h.recorder.record(episode("ep-gone"))
        await h.processor.run_batch()  # registers all three, processes ep-gone
        await asyncio.to_thread(Path(gone.path).unlink)
        await h.recorder.record(episode("ep-lost"))
        lost = h.recorder.path_for("2026-01-01", "ep-lost")
        await asyncio.to_thread(Path(lost).unlink)
        await h.drain()
        assert await state(h, "ep-failed") == (EpisodeState.IGNORED, 0, "status_failed")
        assert await state(h, "ep-bare") == (EpisodeState.IGNORED, 0, "no_evidence")
        assert await state(h, "ep-gone") == (EpisodeState.DONE, 0, None)
        assert (await h.processor.ledger_row("ep-lost")) is None  # never seen on disk
        assert len(provider.requests) == 1


async def test_staged_proposal_is_reused_without_a_model_call(tmp_path: Path) -> None:
    class Stop(Exception):
        pass

    def stop_after_proposed(label: str) -> None:
        if label == "proposed":
            raise Stop

    provider = ScriptedProvider([fallback_step])
    async with harness(tmp_path, provider, on_transition=stop_after_proposed) as h:
        for i in range(3):
            await h.recorder.record(topic_episode(i))
        with pytest.raises(Stop):
            await h.processor.run_batch()
        assert (await h.processor.status())["ledger"]["proposed"] == 3
    empty = ScriptedProvider([])  # any model call would fail
    async with harness(tmp_path, empty) as h:
        await h.drain()
        assert empty.requests == []
        assert (await h.processor.status())["ledger"]["done"] == 3
        assert len(await h.store.list_records(tier=Tier.DEVICE)) == 3


async def test_cancelled_model_call_resumes_without_charge(tmp_path: Path) -> None:
    never = asyncio.Event()
    calling = asyncio.Event()

    async def hang(_: float) -> None:
        calling.set()
        await never.wait()

    provider = ScriptedProvider([fallback_step, fallback_step], token_delay_s=1.0, sleep=hang)
    async with harness(tmp_path, provider) as h:
        await h.recorder.record(episode())
        task = asyncio.create_task(h.processor.run_batch())
        await calling.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert provider.cancelled == 1
        assert await state(h, "ep-1") == (EpisodeState.PROCESSING, 0, None)
        provider._token_delay_s = 0.0
        await h.processor.run_batch()
        assert await state(h, "ep-1") == (EpisodeState.DONE, 0, None)


async def test_owner_rejected_text_is_dropped(tmp_path: Path) -> None:
    text = "Wi-Fi is under Settings > Connections"
    provider = ScriptedProvider([answer(add("ep-0", text))])
    async with harness(tmp_path, provider) as h:
        await h.recorder.record(episode("ep-0"))
        await h.processor.run_batch()
        await h.store.forget(derived_memory_id("ep-0", 0), "wrong")
        provider.push(answer(add("ep-1", text)))
        await h.recorder.record(episode("ep-1"))
        outcome = await h.processor.run_batch()
        assert outcome.report.rejected["rejected_by_owner"] == 1
        assert await state(h, "ep-1") == (EpisodeState.DONE, 0, None)
        assert await h.store.get(derived_memory_id("ep-1", 0)) is None


async def test_unreadable_trace_stays_pending_and_does_not_block_others(tmp_path: Path) -> None:
    import errno

    from companion_memory.storage.fs import RealFileSystem, StorageIOError

    class FlakyRead(RealFileSystem):
        def __init__(self) -> None:
            self.broken: set[str] = set()

        def read_bytes(self, path: str) -> bytes:
            if path in self.broken:
                raise StorageIOError("read", path, OSError(errno.EIO, "I/O error"))
            return super().read_bytes(path)

    provider = ScriptedProvider([fallback_step], repeat_last=True)
    async with harness(tmp_path, provider) as h:
        fs = FlakyRead()
        h.recorder._fs = fs  # the processor reads traces through the recorder's seam
        for i in range(3):
            await h.recorder.record(topic_episode(i))
        fs.broken.add(h.recorder.path_for("2026-01-01", "ep-001"))
        outcome = await h.processor.run_batch()
        assert outcome.report.extra["deferred_unreadable"] == 1
        assert len(provider.requests[0].payload["episodes"]) == 2
        assert (await state(h, "ep-000"))[0] is EpisodeState.DONE
        assert (await state(h, "ep-001"))[0] is not EpisodeState.IGNORED
        fs.broken.clear()  # the flash recovers: the episode is processed, not lost
        await h.drain()
        assert (await state(h, "ep-001"))[0] is EpisodeState.DONE
