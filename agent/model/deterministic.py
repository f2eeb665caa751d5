"""The provider with no model: each scenario registers a deterministic fallback.

It is the offline mode (the default provider) and what the tests run on.
A fallback receives the request's structured `payload` and returns the JSON
object a model would have produced for the scenario's schema.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from companion_memory.agent.model.provider import ModelRequest, ModelResponse, ModelUnavailableError

Fallback = Callable[[dict[str, Any]], dict[str, Any]]


class DeterministicProvider:
    """Answers each scenario with its registered fallback; no tokens, no model."""

    name = "deterministic"

    def __init__(self, fallbacks: Mapping[str, Fallback] | None = None) -> None:
        self._fallbacks: dict[str, Fallback] = dict(fallbacks or {})

    def register(self, scenario: str, fallback: Fallback) -> None:
        self._fallbacks[scenario] = fallback

    async def complete(self, request: ModelRequest) -> ModelResponse:
        fallback = self._fallbacks.get(request.scenario)
        if fallback is None:
            raise ModelUnavailableError(
                f"the deterministic provider has no fallback for scenario {request.scenario!r}"
            )
        started = time.perf_counter()
        answer = fallback(request.payload)
        text = orjson.dumps(answer).decode("utf-8")
        return ModelResponse(
            text=text,
            prompt_tokens=0,
            completion_tokens=0,
            provider=self.name,
            elapsed_s=time.perf_counter() - started,
        )

    async def prepare(self) -> None:
        return None

    async def close(self) -> None:
        return None
