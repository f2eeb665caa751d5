"""The `ModelProvider` seam: one call in, one JSON completion (or a typed failure) out.

Providers: `LlamaCppProvider` (llama.cpp in process), `OpenAICompatibleProvider`
(HTTP), `ScriptedProvider` (tests). With no model (provider kind "deterministic") there
is no provider at all: the scenarios' rules extractors answer (`agent.extraction`).

Cancelling the awaiting task cancels the call: a provider must stop work
promptly (llama.cpp: no decode starts once the flag is seen, so at most the one in
flight finishes; HTTP by closing the request) and stay usable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from companion_memory.core.errors import UnavailableError


@dataclass(frozen=True, slots=True)
class Message:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One model call.

    `scenario` is "notifications", "episodes" or "sweep". `messages` is the prompt.
    `schema` is the JSON schema the completion must satisfy. `payload` is the same
    scenario input in structured form, for provider doubles in tests (a scripted
    answer built from the batch); a real model only sees `messages`.
    """

    scenario: str
    messages: tuple[Message, ...]
    schema: dict[str, Any]
    payload: dict[str, Any] = field(default_factory=dict)
    max_output_tokens: int = 512
    deadline_s: float = 120.0


@dataclass(frozen=True, slots=True)
class ModelResponse:
    text: str
    prompt_tokens: int
    completion_tokens: int
    provider: str
    elapsed_s: float = 0.0


class ModelError(UnavailableError):
    """The model call did not produce a completion. The batch stays pending."""

    code = "model_error"


class ModelUnavailableError(ModelError):
    """Missing model file, missing credentials, unreachable server."""

    code = "model_unavailable"


class BudgetExhaustedError(ModelError):
    """The provider's daily call or token budget would be exceeded."""

    code = "budget_exhausted"


class ModelTimeoutError(ModelError):
    """The call ran past its deadline."""

    code = "model_timeout"


class ModelOutputError(ModelError):
    """The completion is empty or not valid JSON for the schema."""

    code = "model_output_invalid"


@runtime_checkable
class ModelProvider(Protocol):
    """A model behind one async call."""

    name: str

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Run one completion. Raises `ModelError` subclasses; cancellable."""
        ...

    async def prepare(self) -> None:
        """Make the first call fast: load a model file now (a no-op for a provider with
        nothing to load). Raises `ModelUnavailableError` when the model cannot load."""
        ...

    async def close(self) -> None: ...
