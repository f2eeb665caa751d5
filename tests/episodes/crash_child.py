"""Child process for the kill -9 tests: record a workload, run the EpisodeProcessor on a
real store, and SIGKILL itself at the transition named by EPISODE_CRASH_AT.

EPISODE_CRASH_AT is "<label>:<n>": the n-th committed ledger transition with that label
("registered", "ignored", "processing", "proposed", "retry", "applied"), or
"replace:<n>" (the n-th atomic rename of a trace file, before it happens), or
"recorded:1" (after every trace is written, before processing).

Usage: python -m tests.episodes.crash_child ROOT
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson

from companion_memory.agent.episodes import (
    EpisodeProcessor,
    EpisodeRecorder,
    ModelEpisodeExtractor,
    episode_fallback,
)
from companion_memory.agent.model import ModelRequest, ModelResponse
from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.core.clock import FakeClock
from companion_memory.memory.store import MemoryStore
from companion_memory.storage.fs import RealFileSystem
from tests.episodes.helpers import episode, topic_episode

BAD_ONCE = "bad-answer-given"


def workload() -> list[dict[str, Any]]:
    """8 eligible episodes (two batches), one ineligible, one that contradicts ep-000,
    and ep-bad, whose first answer cites evidence that is not in its trace."""
    items = [topic_episode(i) for i in range(8)]
    items.append(episode("ep-failed", status="failed"))
    items.append(episode("ep-bad", goal="pair headphones"))
    changed = topic_episode(0, steps=[
        {"n": 1, "action": "swipe", "target": "quick panel", "evidence": ["e1"]}])
    changed["episode_id"] = "ep-zz-changed"
    items.append(changed)
    return items


class WorkloadProvider:
    """A model double answering like the rules, except that ep-bad's first answer is
    invalid."""

    name = "workload"

    def __init__(self, root: Path) -> None:
        self._marker = root / BAD_ONCE

    async def complete(self, request: ModelRequest) -> ModelResponse:
        answer = episode_fallback(request.payload)
        ids = {e["episode_id"] for e in request.payload["episodes"]}
        if "ep-bad" in ids and not await asyncio.to_thread(self._marker.exists):
            await asyncio.to_thread(self._marker.write_bytes, b"1")
            for item in answer["items"]:
                if item["episode_id"] == "ep-bad":
                    item["evidence"] = ["not-in-trace"]
        return ModelResponse(orjson.dumps(answer).decode(), 0, 0, self.name)

    async def prepare(self) -> None:
        return None

    async def close(self) -> None:
        return None


class Killer:
    def __init__(self, spec: str) -> None:
        label, _, n = spec.partition(":")
        self.label = label
        self.n = int(n or "1")
        self.seen: Counter[str] = Counter()

    def __call__(self, label: str) -> None:
        self.seen[label] += 1
        if label == self.label and self.seen[label] == self.n:
            os.kill(os.getpid(), signal.SIGKILL)


class KillingFileSystem(RealFileSystem):
    def __init__(self, killer: Killer) -> None:
        self._killer = killer

    def replace(self, src: str, dst: str) -> None:
        self._killer("replace")
        super().replace(src, dst)


async def open_parts(root: Path, killer: Killer | None = None) -> tuple[
    MemoryStore, EpisodeRecorder, EpisodeProcessor
]:
    clock = FakeClock()
    store = await MemoryStore.open(root / "memory.sqlite3", clock=clock)
    fs = KillingFileSystem(killer) if killer is not None else RealFileSystem()
    recorder = EpisodeRecorder(root, clock=clock, fs=fs)
    extractor = ModelEpisodeExtractor(MemoryMergeEngine(WorkloadProvider(root)))
    processor = EpisodeProcessor(recorder, store, extractor, clock=clock,
                                 retry_backoff=timedelta(0), on_transition=killer)
    return store, recorder, processor


async def run(root: Path, killer: Killer | None) -> None:
    store, recorder, processor = await open_parts(root, killer)
    try:
        for data in workload():
            await recorder.record(data)
        if killer is not None:
            killer("recorded")
        for _ in range(50):
            if not (await processor.run_batch()).backlog:
                break
    finally:
        await store.close()


def main() -> int:
    spec = os.environ.get("EPISODE_CRASH_AT")
    asyncio.run(run(Path(sys.argv[1]), Killer(spec) if spec else None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
