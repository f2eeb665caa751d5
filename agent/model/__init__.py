"""Model providers and the merge engine, shared by the three scenarios."""

from agent.model.budget import BudgetedProvider
from agent.model.deterministic import DeterministicProvider
from agent.model.factory import FallbackProvider, build_provider, describe
from agent.model.llama import CancelReport, LlamaCppProvider
from agent.model.merge import MemoryMergeEngine, RawProposal
from agent.model.openai_http import OpenAICompatibleProvider
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
from agent.model.settings import ProviderConfigError, ProviderSettings
from agent.model.unavailable import UnavailableProvider

__all__ = [
    "BudgetExhaustedError",
    "BudgetedProvider",
    "CancelReport",
    "DeterministicProvider",
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
    "OpenAICompatibleProvider",
    "ProviderConfigError",
    "ProviderSettings",
    "RawProposal",
    "ScriptedProvider",
    "UnavailableProvider",
    "build_provider",
    "describe",
]
