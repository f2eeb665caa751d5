"""Episode factories and a small harness shared by the episode tests."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion_memory.agent.episodes import (
    EpisodeExtractor,
    EpisodeProcessor,
    EpisodeRecorder,
    ModelEpisodeExtractor,
    RulesEpisodeExtractor,
)
from companion_memory.agent.model import ModelProvider
from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.core.clock import FakeClock
from companion_memory.memory.store import MemoryStore


def episode(
    episode_id: str = "ep-1",
    *,
    goal: str = "turn on wifi",
    status: str = "completed",
    goal_result: str = "achieved",
    steps: list[dict[str, Any]] | None = None,
    evidence: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "episode_id": episode_id,
        "goal": goal,
        "status": status,
        "goal_result": goal_result,
        "started_at": "2026-01-01T09:00:00Z",
        "ended_at": "2026-01-01T09:00:40Z",
        "steps": steps if steps is not None else [
            {"n": 1, "action": "open", "target": "Settings", "observation": "opened"},
            {"n": 2, "action": "tap", "target": "Connections", "observation": "wifi listed",
             "evidence": ["e1"]},
            {"n": 3, "action": "toggle", "target": "Wi-Fi", "observation": "on",
             "evidence": ["e2"]},
        ],
        "evidence": evidence if evidence is not None else [
            {"id": "e1", "kind": "screen", "detail": "Settings > Connections shows Wi-Fi"},
            {"id": "e2", "kind": "setting", "detail": "wifi_enabled=true"},
        ],
    }
    data.update(extra)
    return copy.deepcopy(data)


def topic_episode(i: int, **kw: Any) -> dict[str, Any]:
    """Distinct goals per i, so that the fallback writes distinct memories."""
    topics = ["wifi", "bluetooth", "camera", "brightness", "volume", "alarm", "battery",
              "display", "keyboard", "storage", "location", "hotspot"]
    topic = topics[i % len(topics)]
    return episode(f"ep-{i:03d}", goal=f"turn on {topic} {i}", **kw)


@dataclass
class Harness:
    root: Path
    clock: FakeClock
    store: MemoryStore
    recorder: EpisodeRecorder
    extractor: EpisodeExtractor
    processor: EpisodeProcessor
    engine: MemoryMergeEngine | None = None
    """The model's engine (None when the rules extract)."""

    async def drain(self, max_batches: int = 50) -> int:
        """Run batches until no backlog; return how many ran."""
        for n in range(1, max_batches + 1):
            outcome = await self.processor.run_batch()
            if not outcome.backlog:
                return n
        raise AssertionError("the processor never ran out of backlog")


@asynccontextmanager
async def harness(
    root: Path, provider: ModelProvider | None = None, **kw: Any
) -> AsyncIterator[Harness]:
    """The rules extract, or a model on `provider` when one is given."""
    clock = FakeClock()
    store = await MemoryStore.open(root / "memory.sqlite3", clock=clock)
    try:
        recorder = EpisodeRecorder(root, clock=clock)
        engine = None if provider is None else MemoryMergeEngine(provider)
        extractor: EpisodeExtractor = RulesEpisodeExtractor() if engine is None \
            else ModelEpisodeExtractor(engine)
        processor = EpisodeProcessor(recorder, store, extractor, clock=clock, **kw)
        yield Harness(root, clock, store, recorder, extractor, processor, engine)
    finally:
        await store.close()
