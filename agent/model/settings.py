"""Provider configuration: `ProviderSettings`, validated at construction, and its error.

`ProviderSettings(...)` checks values only (no I/O): a known provider kind,
positive limits, the fields the kind needs, a fallback that names another
kind. `check_files()` adds the file checks (the model path exists, is
readable and is a GGUF); `build_provider` runs both at start. Every error is a
`ProviderConfigError` naming the key, the bad value and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from companion_memory.core.errors import InvalidInputError

PROVIDER_KINDS = ("deterministic", "llama", "openai")
RESPONSE_FORMATS = ("json_schema", "json_object", "none")


class ProviderConfigError(InvalidInputError):
    """A provider setting is invalid. `key` names it; the message says what is allowed."""

    code = "provider_config_invalid"

    def __init__(self, key: str, value: object, allowed: str) -> None:
        self.key = key
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

    `fallback` names another kind used only when the primary raises
    `ModelUnavailableError` or `BudgetExhaustedError`; None (the default) means
    such failures leave the work pending.
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
            from companion_memory.agent.model.llama_engine import check_gguf_file
            from companion_memory.agent.model.provider import ModelUnavailableError

            try:
                check_gguf_file(str(self.model_path))
            except ModelUnavailableError as err:
                raise ProviderConfigError(
                    "model_path", self.model_path, f"a readable GGUF file ({err.reason})"
                ) from None
