"""The sweep's extractors: one completed day in, a validated page of candidates out.

`DayStager` gathers the day (`day_input.gather_day`) and calls its `SweepExtractor` with
a `SweepDay`; the `SweepExtraction` it gets back holds the page validated against the
day's scope (`proposals.validate_page`), who answered (`source`), the model's raw text
(kept with the stage) and `failure`: the reason code when the page as a whole was
unusable.

- `RulesSweepExtractor`: the deterministic consolidation (`agent.sweep.fallback`),
  called directly on the day's input; no model and no JSON text.
- `ModelSweepExtractor`: one `MemoryMergeEngine.extract` call for the day, its JSON
  text parsed and validated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion_memory.agent.extraction import MODEL, RULES, Extractor, Usage
from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.agent.sweep.day_input import DayInput
from companion_memory.agent.sweep.fallback import sweep_fallback
from companion_memory.agent.sweep.proposals import (
    SWEEP_SCHEMA,
    SYSTEM_PROMPT,
    PageResult,
    validate_page,
)
from companion_memory.agent.sweep.settings import SweepSettings

DEFAULT_MAX_CANDIDATES = SweepSettings().max_candidates


@dataclass(frozen=True, slots=True)
class SweepDay:
    day: DayInput
    rejections: tuple[str, ...] = ()
    max_candidates: int = DEFAULT_MAX_CANDIDATES
    """The most candidates a page may hold (`[sweep] max_candidates`); more are dropped."""


@dataclass(slots=True)
class SweepExtraction:
    page: PageResult = field(default_factory=PageResult)
    source: str = RULES
    """Who answered: "rules" or "model"."""
    usage: Usage = field(default_factory=Usage)
    raw_text: str | None = None
    """The model's answer as it came (None from the rules)."""

    @property
    def failure(self) -> str | None:
        """The reason code when the page as a whole is unusable."""
        return self.page.error


SweepExtractor = Extractor[SweepDay, SweepExtraction]
"""What the processor calls: the rules or the model (`agent.extraction.Extractor`)."""


class RulesSweepExtractor:
    """The deterministic consolidation of the day; no model."""

    name = RULES

    async def extract(self, batch: SweepDay, /) -> SweepExtraction:
        day = batch.day
        page = validate_page(sweep_fallback(day.payload()), day.scope,
                             max_candidates=batch.max_candidates)
        return SweepExtraction(page, RULES)


class ModelSweepExtractor:
    """One model call for the day; raises `ModelError` when the call fails."""

    name = MODEL

    def __init__(self, engine: MemoryMergeEngine) -> None:
        self.engine = engine

    async def extract(self, batch: SweepDay, /) -> SweepExtraction:
        day = batch.day
        raw = await self.engine.extract(
            scenario="sweep", system=SYSTEM_PROMPT, items=day.items, related=day.related,
            rejections=list(batch.rejections), schema=SWEEP_SCHEMA, payload=day.payload(),
        )
        page = validate_page(raw.data, day.scope, max_candidates=batch.max_candidates)
        if raw.error is not None:
            page.error = raw.error
        out = SweepExtraction(page, MODEL, raw_text=str(raw.text))
        out.usage.count(raw)
        return out
