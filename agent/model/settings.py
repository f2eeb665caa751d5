"""Provider configuration: `ProviderSettings`, validated at construction, and its error.

`ProviderSettings(...)` checks values only (no I/O): a known provider kind,
positive limits, the fields the kind needs, a fallback that names another
kind. `check_files()` adds the file checks (the model path exists, is
readable and is a GGUF); `build_provider` runs both at start. Every error is a
`ProviderConfigError` naming the key, the bad value and what is allowed.

`ProviderOptions` (with its `LlamaOptions` and `OpenAIOptions` tables) is the
same configuration in the shape of the `[provider]` TOML table, with the bounds
of each key; it is built only if `to_settings()` would build, so a table that
passes here also passes `ProviderSettings` (a refusal comes back as a
`SettingsError` under the table's key, e.g. `openai.base_url`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from companion_memory.agent.model.llama_engine import check_gguf_file
from companion_memory.agent.model.provider import ModelUnavailableError
from companion_memory.core.errors import InvalidInputError
from companion_memory.core.settings import SettingsError, setting, validate_settings

PROVIDER_KINDS = ("deterministic", "llama", "openai")
FALLBACKS = ("none", *PROVIDER_KINDS)
RESPONSE_FORMATS = ("json_schema", "json_object", "none")
MODEL_SCENARIOS = ("all", "sweep", "episodes_and_sweep")
"""Which scenarios a configured model extracts for (`[provider] scenarios`); the others
use the rules. "sweep": the daily consolidation only, once a day while idle, so each
notification costs no model time on a small device."""


class ProviderConfigError(InvalidInputError):
    """A provider setting is invalid. `key` names it; the message says what is allowed."""

    code = "provider_config_invalid"

    def __init__(self, key: str, value: object, allowed: str) -> None:
        self.key = key
        self.value = value
        self.allowed = allowed
        shown = repr(value)
        if len(shown) > 120:
            shown = shown[:117] + "..."
        super().__init__(f"provider setting {key}={shown} is invalid: expected {allowed}")


def _positive(key: str, value: object, *, real: bool = False) -> None:
    kinds: tuple[type, ...] = (int, float) if real else (int,)
    if isinstance(value, bool) or not isinstance(value, kinds) or float(value) <= 0:  # type: ignore[arg-type]
        raise ProviderConfigError(key, value, "a positive number" if real else "a positive integer")


@dataclass(frozen=True)
class ProviderSettings:
    """Which model provider to use, its parameters, limits, budget and optional fallback.

    Kind "deterministic" (the default) means no model: the rules extract.
    `fallback` names another kind used only when the primary raises
    `ModelUnavailableError` or `BudgetExhaustedError` ("deterministic": the rules
    answer that batch); None (the default) means such failures leave the work pending.
    """

    kind: str = "deterministic"
    model_path: str | None = None
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    response_format: str = "json_schema"
    n_ctx: int = 4096
    n_threads: int | None = None
    max_prompt_tokens: int = 3072
    max_output_tokens: int = 1024
    deadline_s: float = 120.0
    daily_calls: int = 500
    daily_tokens: int = 1_000_000
    fallback: str | None = None

    def __post_init__(self) -> None:
        allowed_kinds = " | ".join(repr(k) for k in PROVIDER_KINDS)
        if self.kind not in PROVIDER_KINDS:
            raise ProviderConfigError("kind", self.kind, f"one of {allowed_kinds}")
        if self.fallback is not None and (
            self.fallback not in PROVIDER_KINDS or self.fallback == self.kind
        ):
            raise ProviderConfigError(
                "fallback", self.fallback, f"None or a kind other than {self.kind!r}"
            )
        for key in ("n_ctx", "max_prompt_tokens", "max_output_tokens", "daily_calls",
                    "daily_tokens"):
            _positive(key, getattr(self, key))
        _positive("deadline_s", self.deadline_s, real=True)
        if self.n_threads is not None:
            _positive("n_threads", self.n_threads)
        if self.max_prompt_tokens >= self.n_ctx:
            raise ProviderConfigError(
                "max_prompt_tokens", self.max_prompt_tokens, f"fewer than n_ctx ({self.n_ctx})"
            )
        if self.response_format not in RESPONSE_FORMATS:
            raise ProviderConfigError(
                "response_format", self.response_format, f"one of {', '.join(RESPONSE_FORMATS)}"
            )
        kinds = {self.kind, self.fallback}
        if "llama" in kinds and not self.model_path:
            raise ProviderConfigError("model_path", self.model_path, "a GGUF file path for 'llama'")
        if "openai" in kinds:
            url = self.base_url or ""
            if not url.startswith(("http://", "https://")):
                raise ProviderConfigError(
                    "base_url", self.base_url, "an http:// or https:// URL for 'openai'"
                )
            if not self.model:
                raise ProviderConfigError("model", self.model, "the server's model name")
            if self.api_key_env is not None and not self.api_key_env.replace("_", "").isalnum():
                raise ProviderConfigError(
                    "api_key_env", self.api_key_env, "the name of an environment variable"
                )

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> ProviderSettings:
        """Settings from a config mapping; an unknown key is an error, not ignored."""
        known = {f.name for f in fields(cls)}
        for key in values:
            if key not in known:
                allowed = f"a known key ({', '.join(sorted(known))})"
                raise ProviderConfigError(key, values[key], allowed)
        return cls(**dict(values))

    def check_files(self) -> None:
        """The model file checks (blocking I/O: run off the event loop)."""
        if "llama" in (self.kind, self.fallback):
            try:
                check_gguf_file(str(self.model_path))
            except ModelUnavailableError as err:
                raise ProviderConfigError(
                    "model_path", self.model_path, f"a readable GGUF file ({err.reason})"
                ) from err


@dataclass(frozen=True, slots=True)
class LlamaOptions:
    """The `[provider.llama]` table."""

    model_path: str = setting("", doc="GGUF file; 'small' = the bundled gemma3-270m test model")
    n_ctx: int = setting(4096, low=256, high=131_072)
    n_threads: int = setting(0, low=0, high=256, doc="0 = llama.cpp's choice")
    max_prompt_tokens: int = setting(3072, low=64, high=131_072, doc="fewer than n_ctx")
    preload: bool = setting(False, doc="load the model when the daemon starts, not at first use")

    def __post_init__(self) -> None:
        validate_settings(self)
        if self.max_prompt_tokens >= self.n_ctx:
            raise SettingsError("max_prompt_tokens", self.max_prompt_tokens,
                                f"fewer than n_ctx ({self.n_ctx})", problem="is too many")


@dataclass(frozen=True, slots=True)
class OpenAIOptions:
    """The `[provider.openai]` table."""

    base_url: str = setting("", doc="e.g. http://127.0.0.1:8080/v1")
    model: str = setting("")
    api_key_env: str = setting("", doc="name of the environment variable holding the key")
    response_format: str = setting("json_schema", choices=RESPONSE_FORMATS,
                                   doc="what the server supports")

    def __post_init__(self) -> None:
        validate_settings(self)


_TABLE_OF = {
    "model_path": "llama", "n_ctx": "llama", "n_threads": "llama", "max_prompt_tokens": "llama",
    "base_url": "openai", "model": "openai", "api_key_env": "openai",
    "response_format": "openai",
}
"""Where each `ProviderSettings` key lives in the `[provider]` table."""

_TABLE_ALLOWED = {
    "model_path": "a GGUF file path for 'llama', or 'small' for the bundled test model",
    "fallback": "'none' or a kind other than {kind!r}",
}
"""What is allowed, in the table's terms, where they differ from `ProviderSettings`'s."""


@dataclass(frozen=True, slots=True)
class ProviderOptions:
    """The `[provider]` table; `to_settings()` is the `ProviderSettings` it stands for."""

    kind: str = setting("deterministic", choices=PROVIDER_KINDS)
    fallback: str = setting("none", choices=FALLBACKS, doc="explicit fallback; never implicit")
    scenarios: str = setting("all", choices=MODEL_SCENARIOS,
                             doc="what the model extracts for; the rest uses the rules")
    max_output_tokens: int = setting(1024, low=1, high=32_768,
                                     doc="per call; a model call carries 5 notifications")
    deadline_s: float = setting(120.0, low=0.1, high=3600.0, doc="per model call")
    daily_calls: int = setting(500, low=1, high=10_000_000, doc="persistent daily call budget")
    daily_tokens: int = setting(1_000_000, low=1, high=10_000_000_000, doc="daily token budget")
    llama: LlamaOptions = field(default_factory=LlamaOptions)
    openai: OpenAIOptions = field(default_factory=OpenAIOptions)

    def __post_init__(self) -> None:
        validate_settings(self)
        try:
            self.to_settings()
        except ProviderConfigError as err:
            table = _TABLE_OF.get(err.key)
            key = f"{table}.{err.key}" if table else err.key
            value = getattr(getattr(self, table) if table else self, err.key, err.value)
            allowed = _TABLE_ALLOWED.get(err.key, err.allowed).format(kind=self.kind)
            raise SettingsError(key, value, allowed) from None

    def to_settings(self, *, model_path: str | None = None) -> ProviderSettings:
        """The factory's settings; `model_path` replaces `llama.model_path` (a resolved
        path for `small` or `~`)."""
        return ProviderSettings(
            kind=self.kind,
            model_path=model_path or self.llama.model_path or None,
            base_url=self.openai.base_url or None,
            model=self.openai.model or None,
            api_key_env=self.openai.api_key_env or None,
            response_format=self.openai.response_format,
            n_ctx=self.llama.n_ctx,
            n_threads=self.llama.n_threads or None,
            max_prompt_tokens=self.llama.max_prompt_tokens,
            max_output_tokens=self.max_output_tokens,
            deadline_s=self.deadline_s,
            daily_calls=self.daily_calls,
            daily_tokens=self.daily_tokens,
            fallback=None if self.fallback == "none" else self.fallback,
        )
