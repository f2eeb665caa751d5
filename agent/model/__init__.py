"""Model providers and the merge engine, shared by the three scenarios."""

from agent.model.deterministic import DeterministicProvider
from agent.model.provider import (
    BudgetExhaustedError,
    Message,
    ModelError,
    ModelOutputError,
    ModelProvider,
    ModelRequest,
    ModelResponse,
    ModelTimeoutError,
    ModelUnavailableError,
)
from agent.model.scripted import ScriptedProvider

__all__ = [
    "BudgetExhaustedError",
    "DeterministicProvider",
    "Message",
    "ModelError",
    "ModelOutputError",
    "ModelProvider",
    "ModelRequest",
    "ModelResponse",
    "ModelTimeoutError",
    "ModelUnavailableError",
    "ScriptedProvider",
]
