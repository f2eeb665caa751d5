"""Building the configured provider: `build_provider(settings, ...)` and `FallbackProvider`.

`build_provider` validates the settings and the model file (blocking I/O: call
it off the event loop, e.g. `await asyncio.to_thread(build_provider, ...)`),
builds the provider of `settings.kind` and wraps it in a `BudgetedProvider`
whose ledger lives at `<root>/model/budget-<kind>.json`. Kind "deterministic"
means no model at all (the rules extract: `agent.extraction`): no provider is
built and `build_provider` returns None.

A failure never switches provider silently. Only when `settings.fallback`
names a model kind is a `FallbackProvider` built: it tries the primary and, on
`ModelUnavailableError` or `BudgetExhaustedError` only, the fallback, and it
counts and reports every switch (`fallbacks_used`, `last_fallback_reason`, and
the response's `provider` field names who answered). Timeouts, output errors
and other model errors are never retried elsewhere. A fallback to "deterministic"
(the rules) is no provider: the runtime composes each scenario's model extractor
with its rules extractor (`agent.extraction.WithRulesFallback`), with the same rule.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import tzinfo
from typing import Any

from companion_memory.agent.model.budget import BudgetedProvider
from companion_memory.agent.model.llama import LlamaCppProvider
from companion_memory.agent.model.provider import (
    BudgetExhaustedError,
    ModelProvider,
    ModelRequest,
    ModelResponse,
    ModelUnavailableError,
)
from companion_memory.agent.model.settings import ProviderSettings
from companion_memory.core.clock import Clock
from companion_memory.storage.fs import FileSystem

BUDGET_DIR = "model"


class FallbackProvider:
    """Primary first; the explicitly configured fallback only when the primary is unavailable."""

    def __init__(self, primary: ModelProvider, fallback: ModelProvider) -> None:
        self.primary = primary
        self.fallback = fallback
        self.name = primary.name
        self.fallbacks_used = 0
        self.last_fallback_reason: str | None = None

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Cancellation cancels whichever provider is running; nothing else is tried."""
        try:
            return await self.primary.complete(request)
        except (ModelUnavailableError, BudgetExhaustedError) as err:
            self.fallbacks_used += 1
            self.last_fallback_reason = err.code
        return await self.fallback.complete(request)

    async def prepare(self) -> None:
        """Prepare the primary; the fallback too, so a switch to it is fast as well."""
        await self.primary.prepare()
        await self.fallback.prepare()

    async def close(self) -> None:
        try:
            await self.primary.close()
        finally:
            await self.fallback.close()


RULES_KIND = "deterministic"
"""The provider kind that means no model: the rules extract."""


def _make(
    kind: str,
    settings: ProviderSettings,
    environ: Mapping[str, str] | None,
) -> ModelProvider:
    if kind == "llama":
        return LlamaCppProvider(
            str(settings.model_path),
            n_ctx=settings.n_ctx,
            n_threads=settings.n_threads,
            max_prompt_tokens=settings.max_prompt_tokens,
        )
    if kind != "openai":
        raise AssertionError(f"no provider is built for kind {kind!r}")  # settings checked
    # httpx is the optional `http` extra: loaded only when this provider is chosen
    from companion_memory.agent.model.openai_http import OpenAICompatibleProvider

    return OpenAICompatibleProvider(
        str(settings.base_url),
        str(settings.model),
        api_key_env=settings.api_key_env,
        timeout_s=settings.deadline_s,
        response_format_kind=settings.response_format,
        environ=environ,
    )


def _budgeted(
    kind: str,
    settings: ProviderSettings,
    *,
    root: str,
    clock: Clock,
    zone: tzinfo | None,
    fs: FileSystem | None,
    environ: Mapping[str, str] | None,
) -> ModelProvider:
    inner = _make(kind, settings, environ)
    return BudgetedProvider(
        inner,
        os.path.join(root, BUDGET_DIR, f"budget-{kind}.json"),
        daily_calls=settings.daily_calls,
        daily_tokens=settings.daily_tokens,
        clock=clock,
        zone=zone,
        fs=fs,
        max_output_tokens=settings.max_output_tokens,
        deadline_s=settings.deadline_s,
    )


def build_provider(
    settings: ProviderSettings,
    *,
    root: str,
    clock: Clock,
    zone: tzinfo | None = None,
    fs: FileSystem | None = None,
    environ: Mapping[str, str] | None = None,
) -> ModelProvider | None:
    """The configured model provider, budgeted, with the explicit fallback if it names
    another model kind; None for kind "deterministic" (no model: the rules extract).

    Raises `ProviderConfigError` for a missing, unreadable or non-GGUF model
    file. Blocking (a stat and a 4-byte read): run it off the event loop.
    `zone` sets the budget's local day (default: system local time);
    `environ` is where API keys are read (default: `os.environ`).
    """
    settings.check_files()
    if settings.kind == RULES_KIND:
        return None  # (a fallback is never needed: the rules are always available)
    common: dict[str, Any] = {
        "root": str(root), "clock": clock, "zone": zone, "fs": fs, "environ": environ,
    }
    primary = _budgeted(settings.kind, settings, **common)
    if settings.fallback is None or settings.fallback == RULES_KIND:
        return primary
    return FallbackProvider(primary, _budgeted(settings.fallback, settings, **common))


def describe(provider: ModelProvider | None) -> dict[str, Any]:
    """Status for `companion-memory status`: names, budget used and left, fallback use
    (None: no model, the rules extract: named "deterministic", the configured kind)."""
    if provider is None:
        return {"name": RULES_KIND}
    info: dict[str, Any] = {"name": provider.name}
    if isinstance(provider, FallbackProvider):
        info["primary"] = describe(provider.primary)
        info["fallback"] = describe(provider.fallback)
        info["fallbacks_used"] = provider.fallbacks_used
        info["last_fallback_reason"] = provider.last_fallback_reason
    elif isinstance(provider, BudgetedProvider):
        info["budget"] = provider.usage()
        stats = getattr(provider.inner, "stats", None)
        if callable(stats):
            info["stats"] = stats()
    return info
