"""A provider that stands for a configured model that cannot be used right now.

When the configured model file is missing or unreadable at start, the runtime
keeps taking notifications in (nothing on the phone is lost) and puts this
provider in the model's place: every call fails with `ModelUnavailableError`
carrying the reason, so the work stays pending and visible in the round report
and status, and nothing silently switches to another model.
"""

from __future__ import annotations

from companion_memory.agent.model.provider import ModelRequest, ModelResponse, ModelUnavailableError


class UnavailableProvider:
    """Every call raises `ModelUnavailableError(reason)`; see the module docstring."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise ModelUnavailableError(
            f"the {self.name} model is unavailable: {self.reason}; fix the configuration and "
            "the pending work will be processed"
        )

    async def prepare(self) -> None:
        return None

    async def close(self) -> None:
        return None
