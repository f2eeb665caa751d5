"""Episode validation and the durable recorder: every rejection names its reason and
writes nothing."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest

from companion_memory.agent.episodes import Episode, EpisodeError, EpisodeRecorder, parse_episode
from companion_memory.core.clock import FakeClock
from companion_memory.storage.fs import RealFileSystem
from tests.episodes.helpers import episode


def _files(root: Path) -> list[str]:
    out: list[str] = []
    for dirpath, _, names in os.walk(root):
        out.extend(os.path.join(dirpath, n) for n in names)
    return sorted(out)


async def files(root: Path) -> list[str]:
    return await asyncio.to_thread(_files, root)


def test_valid_episode_round_trips() -> None:
    ep = Episode.from_dict(episode(app="com.android.settings", firmware="OS 4.2"))
    assert ep.episode_id == "ep-1"
    assert ep.evidence_ids == {"e1", "e2"}
    assert ep.ineligible_reason() is None
    again = Episode.from_dict(orjson.loads(ep.canonical_bytes()))
    assert again == ep and again.digest() == ep.digest()


@pytest.mark.parametrize(
    ("mutate", "code", "fragment"),
    [
        (lambda d: d.pop("episode_id"), "missing_id", "episode_id is required"),
        (lambda d: d.update(episode_id="../etc"), "invalid_id", "A-Z a-z 0-9"),
        (lambda d: d.update(status="done"), "invalid_field", "status must be one of"),
        (lambda d: d.update(goal_result="yes"), "invalid_field", "goal_result must be one of"),
        (lambda d: d.pop("goal"), "missing_field", "goal is required"),
        (lambda d: d.update(started_at="yesterday"), "invalid_field", "RFC 3339"),
        (lambda d: d.update(ended_at="2025-01-01T00:00:00Z"), "invalid_field",
         "ended_at is before started_at"),
        (lambda d: d["steps"][1].update(evidence=["e9"]), "evidence_not_in_trace",
         "references e9, which is not in this episode's evidence"),
        (lambda d: d["steps"][1].update(n=7), "invalid_field", "steps[1].n must be 2"),
        (lambda d: d["evidence"].append({"id": "e1", "kind": "log", "detail": "x"}),
         "duplicate_evidence_id", "evidence id e1 appears twice"),
        (lambda d: d["evidence"][0].update(kind="photo"), "invalid_field",
         "evidence[0].kind must be one of screen, setting, error, log"),
        (lambda d: d.update(secret_sauce=1), "unknown_field", "unknown field(s) secret_sauce"),
    ],
)
def test_bad_episode_is_rejected_with_reason(mutate: Any, code: str, fragment: str) -> None:
    data = episode()
    mutate(data)
    with pytest.raises(EpisodeError) as info:
        Episode.from_dict(data)
    assert info.value.code == code
    assert fragment in str(info.value)


def test_parse_rejects_invalid_json_and_too_large() -> None:
    with pytest.raises(EpisodeError) as info:
        parse_episode(b'{"episode_id": "x",')
    assert info.value.code == "invalid_json"
    assert "not valid JSON" in str(info.value)
    with pytest.raises(EpisodeError) as info:
        parse_episode(b"[1, 2]")
    assert info.value.code == "not_an_object"
    big = orjson.dumps(episode(goal="x" * 400))
    with pytest.raises(EpisodeError) as info:
        parse_episode(big, max_bytes=len(big) - 1)
    assert info.value.code == "too_large"
    assert f"at most {len(big) - 1} are allowed" in str(info.value)


def test_eligibility_reasons() -> None:
    assert Episode.from_dict(episode(status="failed")).ineligible_reason() == "status_failed"
    assert Episode.from_dict(episode(status="abandoned")).ineligible_reason() == (
        "status_abandoned"
    )
    no_evidence = episode(evidence=[], steps=[{"n": 1, "action": "open", "target": "x"}])
    assert Episode.from_dict(no_evidence).ineligible_reason() == "no_evidence"


async def test_record_writes_an_immutable_trace_and_wakes(tmp_path: Path) -> None:
    clock = FakeClock()
    wakes: list[int] = []
    recorder = EpisodeRecorder(tmp_path, clock=clock, wake=lambda: wakes.append(1))
    result = await recorder.record(episode())
    assert result.eligible and not result.duplicate and result.reason is None
    assert result.path == str(tmp_path / "episodes" / "2026-01-01" / "ep-1.json")
    stored = orjson.loads(await asyncio.to_thread(Path(result.path).read_bytes))
    assert Episode.from_dict(stored) == Episode.from_dict(episode())
    assert wakes == [1]
    # Same content (another key order, another day) is an idempotent no-op.
    clock.set_wall(clock.now().replace(day=5))
    again = await recorder.record(orjson.dumps(dict(reversed(list(episode().items())))))
    assert again.duplicate and again.path == result.path
    assert wakes == [1]
    assert await files(tmp_path) == [result.path]


async def test_ineligible_episode_is_stored_with_reason(tmp_path: Path) -> None:
    recorder = EpisodeRecorder(tmp_path, clock=FakeClock())
    result = await recorder.record(episode("ep-f", status="failed"))
    assert not result.eligible and result.reason == "status_failed"
    assert await files(tmp_path) == [result.path]


async def test_rejections_write_nothing(tmp_path: Path) -> None:
    recorder = EpisodeRecorder(tmp_path, clock=FakeClock(), max_bytes=4096)
    await recorder.record(episode())
    before = await files(tmp_path)
    cases: list[tuple[Any, str, str]] = [
        (b"{not json", "invalid_json", "not valid JSON"),
        ({"goal": "x"}, "missing_id", "episode_id is required"),
        (episode(goal="turn off wifi"), "duplicate_id_different_content",
         "episode ep-1 is already recorded with different content"),
        (episode("ep-2", steps=[{"n": 1, "action": "a", "evidence": ["nope"]}]),
         "evidence_not_in_trace", "references nope"),
        (episode("ep-3", goal="g" * 500, evidence=[
            {"id": f"e{i}", "kind": "log", "detail": "d" * 900} for i in range(5)]),
         "too_large", "at most 4096 are allowed"),
    ]
    for data, code, fragment in cases:
        with pytest.raises(EpisodeError) as info:
            await recorder.record(data)
        assert info.value.code == code, code
        assert fragment in str(info.value)
    assert await files(tmp_path) == before


async def test_record_file_and_scan(tmp_path: Path) -> None:
    recorder = EpisodeRecorder(tmp_path / "root", clock=FakeClock())
    source = tmp_path / "in.json"
    await asyncio.to_thread(source.write_bytes, orjson.dumps(episode("ep-file")))
    result = await recorder.record_file(source)
    assert result.episode_id == "ep-file"
    refs = await asyncio.to_thread(recorder.scan)
    assert [(r.day, r.episode_id) for r in refs] == [("2026-01-01", "ep-file")]
    assert await asyncio.to_thread(recorder.scan, "2026-01-02") == []


class _SlowWrites(RealFileSystem):
    """Real files; the first trace write waits on `release` (a slow or busy disk)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self._held = False

    def write_file(self, path: str, data: bytes) -> None:
        if not self._held and "ep-1.json" in path:
            self._held = True
            self.entered.set()
            self.release.wait(30)
        super().write_file(path, data)


async def test_cancelled_record_keeps_the_lock_until_its_write_ends(tmp_path: Path) -> None:
    """A cancelled record() must not let a second write of the same id race its thread:
    the second sees the first trace and is refused, and the trace stays the first one."""
    fs = _SlowWrites()
    recorder = EpisodeRecorder(tmp_path, fs=fs, clock=FakeClock())
    first = asyncio.create_task(recorder.record(episode()))
    assert await asyncio.to_thread(fs.entered.wait, 30)
    first.cancel()
    await asyncio.sleep(0)
    second = asyncio.create_task(recorder.record(episode(goal="turn off wifi")))
    for _ in range(10):  # the second reaches the recorder's lock: no thread runs before it
        await asyncio.sleep(0)
    assert not second.done()  # queued behind the first's write, which is still held
    fs.release.set()
    with pytest.raises(asyncio.CancelledError):
        await first
    with pytest.raises(EpisodeError) as info:
        await second
    assert info.value.code == "duplicate_id_different_content"
    paths = await files(tmp_path)
    assert len(paths) == 1
    stored = orjson.loads(await asyncio.to_thread(Path(paths[0]).read_bytes))
    assert Episode.from_dict(stored) == Episode.from_dict(episode())
