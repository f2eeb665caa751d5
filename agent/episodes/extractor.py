"""The episodes scenario's extractors: a batch of episodes in, validated items out.

`EpisodeProcessor` builds an `EpisodeBatch` (the eligible episodes and the Device Memory
related to them) and calls its `EpisodeExtractor`; the `EpisodeExtraction` it gets back
holds every answered item checked on its own (`proposals.validate_answer`), or a failure
code when the answer as a whole could not be read (every episode of the batch is then
retried).

- `RulesEpisodeExtractor`: `agent.episodes.fallback` called directly on the episodes'
  views (the same redacted view a model sees); no model and no JSON text.
- `ModelEpisodeExtractor`: one `MemoryMergeEngine.extract` call for the batch, its JSON
  text parsed and validated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion_memory.agent.episodes.fallback import episode_fallback
from companion_memory.agent.episodes.model import Episode
from companion_memory.agent.episodes.proposals import (
    ANSWER_SCHEMA,
    SCENARIO,
    SYSTEM_PROMPT,
    ValidationResult,
    memory_view,
    model_view,
    validate_answer,
)
from companion_memory.agent.extraction import MODEL, RULES, Extractor, Usage
from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.memory.records import MemoryRecord
from companion_memory.memory.secrets import contains_secret


@dataclass(frozen=True, slots=True)
class EpisodeBatch:
    episodes: Mapping[str, Episode]
    """The batch's episodes by id, in the batch's order."""
    related: Mapping[str, MemoryRecord] = field(default_factory=dict)
    """The Device Memory an item may update or supersede, by memory id."""
    rejections: tuple[str, ...] = ()

    def views(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The episodes and related memories as the rules and a model read them."""
        return ([model_view(e) for e in self.episodes.values()],
                [memory_view(r) for r in self.related.values()])


@dataclass(slots=True)
class EpisodeExtraction:
    """The checked items, the model's usage, and `failure`: the reason code when the
    answer as a whole could not be read (then `result` is empty)."""

    result: ValidationResult = field(default_factory=ValidationResult)
    usage: Usage = field(default_factory=Usage)
    failure: str | None = None


EpisodeExtractor = Extractor[EpisodeBatch, EpisodeExtraction]
"""What the processor calls: the rules or the model (`agent.extraction.Extractor`)."""


class RulesEpisodeExtractor:
    """The deterministic device memories of `agent.episodes.fallback`; no model."""

    name = RULES

    async def extract(self, batch: EpisodeBatch, /) -> EpisodeExtraction:
        episodes, related = batch.views()
        answer = episode_fallback({"episodes": episodes, "related": related})
        return EpisodeExtraction(validate_answer(answer, batch.episodes, batch.related,
                                                 secret_check=contains_secret))


class ModelEpisodeExtractor:
    """One model call per batch; raises `ModelError` when the call fails."""

    name = MODEL

    def __init__(self, engine: MemoryMergeEngine) -> None:
        self.engine = engine

    async def extract(self, batch: EpisodeBatch, /) -> EpisodeExtraction:
        episodes, related = batch.views()
        raw = await self.engine.extract(
            scenario=SCENARIO, system=SYSTEM_PROMPT, items=episodes, related=related,
            rejections=list(batch.rejections), schema=ANSWER_SCHEMA,
            payload={"episodes": episodes, "related": related},
        )
        out = EpisodeExtraction()
        out.usage.count(raw)
        if raw.data is None:
            out.failure = f"model_output_{raw.error or 'invalid'}"
            return out
        out.result = validate_answer(raw.data, batch.episodes, batch.related,
                                     secret_check=contains_secret)
        return out
