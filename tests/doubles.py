"""Provider doubles shared by tests: a scripted model that answers each scenario in that
scenario's real answer format, with what the rules would say."""

from __future__ import annotations

import orjson

from companion_memory.agent.episodes.fallback import episode_fallback
from companion_memory.agent.model.provider import ModelRequest
from companion_memory.agent.sweep.fallback import sweep_fallback
from tests.notifications.harness import contract_step


def answer_like_the_rules(request: ModelRequest) -> str:
    """The notification contract (`contract_step`), the episodes' items or the sweep's
    page, built from the request's structured copy of the batch."""
    if request.scenario == "notifications":
        return contract_step(request)
    if request.scenario == "episodes":
        return orjson.dumps(episode_fallback(request.payload)).decode()
    return orjson.dumps(sweep_fallback(request.payload)).decode()
