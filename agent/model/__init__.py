"""Model providers and the merge engine, shared by the three scenarios.

The OpenAI-compatible HTTP provider is `agent.model.openai_http.OpenAICompatibleProvider`;
it is not imported here because it needs httpx, the optional `http` extra."""

from companion_memory.agent.model.budget import BudgetedProvider
from companion_memory.agent.model.factory import FallbackProvider, build_provider, describe
from companion_memory.agent.model.llama import CancelReport, LlamaCppProvider
from companion_memory.agent.model.merge import MemoryMergeEngine, RawProposal
from companion_memory.agent.model.provider import (
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
from companion_memory.agent.model.settings import ProviderConfigError, ProviderSettings
from companion_memory.agent.model.unavailable import UnavailableProvider

__all__ = [
    "BudgetExhaustedError",
    "BudgetedProvider",
    "CancelReport",
    "FallbackProvider",
    "LlamaCppProvider",
    "MemoryMergeEngine",
    "Message",
    "ModelError",
    "ModelOutputError",
    "ModelProvider",
    "ModelRequest",
    "ModelResponse",
    "ModelTimeoutError",
    "ModelUnavailableError",
    "ProviderConfigError",
    "ProviderSettings",
    "RawProposal",
    "UnavailableProvider",
    "build_provider",
    "describe",
]
