"""Model providers and the merge engine, shared by the three scenarios."""

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

__all__ = [
    "BudgetExhaustedError",
    "Message",
    "ModelError",
    "ModelOutputError",
    "ModelProvider",
    "ModelRequest",
    "ModelResponse",
    "ModelTimeoutError",
    "ModelUnavailableError",
]
