"""The configuration: one TOML file, every default written here, validated at start.

`load_config(path, env)` reads the file (when given), applies environment
overrides and returns a frozen `Config`. Unknown sections or keys and values of
the wrong type or out of range raise `ConfigError` naming the dotted key, the bad
value and what is allowed. Secrets never live in the file: the OpenAI-compatible
provider names the environment variable that holds its key (`api_key_env`).

Environment overrides: `COMPANION_MEMORY_LOG_LEVEL` (log level),
`COMPANION_MEMORY_PROVIDER` (provider.kind) and `COMPANION_MEMORY_LLAMA_MODEL`
(provider.llama.model_path). The root has its own resolution (`device.root`).
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from companion_memory.device.errors import ConfigError

LOG_LEVELS = ("debug", "info", "warning", "error")
PROVIDER_KINDS = ("deterministic", "llama", "openai")
FALLBACKS = ("none", "deterministic", "llama", "openai")
RESPONSE_FORMATS = ("json_schema", "json_object", "none")


def _opt(default: Any, *, low: float | None = None, high: float | None = None,
         above: float | None = None, choices: tuple[str, ...] | None = None,
         doc: str = "") -> Any:
    """A setting with its bounds: `low`..`high` inclusive, or more than `above` (a
    duration of zero would make a loop spin or a wait never end)."""
    meta = {"low": low, "high": high, "above": above, "choices": choices, "doc": doc}
    return field(default=default, metadata=meta)


@dataclass(frozen=True, slots=True)
class IntakeConfig:
    body_limit_bytes: int = _opt(4096, low=64, high=4096, doc="notification body cap")
    consume_limit: int = _opt(100, low=1, high=10_000, doc="ring entries per consume")
    batch_size: int = _opt(10, low=1, high=100, doc="notifications per model call")
    replay_window: int = _opt(4096, low=0, high=1_000_000, doc="fingerprints kept")
    ring_capacity: int = _opt(1024, low=1, high=1_000_000, doc="ring entries")


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    idle_delay_s: float = _opt(300.0, above=0.0, high=86_400.0, doc="idle window delay")
    retry_budget: int = _opt(3, low=1, high=100, doc="attempts before a batch is a gap")
    related_limit: int = _opt(3, low=0, high=20, doc="related memories per notification")


@dataclass(frozen=True, slots=True)
class MemoryConfig:
    temporary_ttl_days: float = _opt(7.0, low=0.01, high=3650.0, doc="Temporary expiry")
    long_term_ttl_days: float = _opt(90.0, low=0.01, high=36_500.0, doc="auto Long-Term expiry")


@dataclass(frozen=True, slots=True)
class EpisodesConfig:
    batch_size: int = _opt(5, low=1, high=5, doc="episodes per model call")
    max_bytes: int = _opt(262_144, low=1024, high=16_777_216, doc="largest episode file")


@dataclass(frozen=True, slots=True)
class SweepConfig:
    enabled: bool = _opt(False, doc="run the daily sweep")
    kill_switch: bool = _opt(False, doc="overrides enabled; stops future sweep writes")
    zone: str = _opt("UTC", doc="IANA zone of the device's local day")
    max_days_per_run: int = _opt(3, low=1, high=31)
    max_candidates: int = _opt(32, low=1, high=1000)
    max_writes: int = _opt(16, low=1, high=1000)


@dataclass(frozen=True, slots=True)
class StorageConfig:
    warning_free_mb: int = _opt(1024, low=1, high=10_000_000, doc="Warning below this free")
    critical_free_mb: int = _opt(256, low=1, high=10_000_000, doc="Critical below this free")
    emergency_free_mb: int = _opt(64, low=1, high=10_000_000, doc="Emergency below this free")
    hysteresis_mb: int = _opt(32, low=0, high=1_000_000, doc="recovery margin (no flapping)")
    normal_retention_days: int = _opt(14, low=1, high=3650)
    warning_retention_days: int = _opt(7, low=1, high=3650)
    critical_retention_days: int = _opt(1, low=0, high=3650)
    check_interval_s: float = _opt(60.0, low=1.0, high=86_400.0,
                                  doc="daemon status refresh between rounds")


LINK_KINDS = ("none", "ancs", "android")


@dataclass(frozen=True, slots=True)
class LinkConfig:
    kind: str = _opt("none", choices=LINK_KINDS,
                     doc="phone link: ancs = iPhone, android = the companion app")
    address: str = _opt("", doc="phone's BLE address; empty = the phone that connected to us")
    adapter: str = _opt("", doc="BlueZ adapter, e.g. hci0; empty = bleak's choice")
    advertise: bool = _opt(True, doc="advertise the ANCS solicitation (ancs only)")
    local_name: str = _opt("companion", doc="advertised name")
    backoff_initial_s: float = _opt(1.0, low=0.1, high=3600.0, doc="first reconnect delay")
    backoff_max_s: float = _opt(60.0, low=0.1, high=86_400.0, doc="longest reconnect delay")


@dataclass(frozen=True, slots=True)
class LlamaConfig:
    model_path: str = _opt("", doc="GGUF file; 'small' = the bundled gemma3-270m test model")
    n_ctx: int = _opt(4096, low=256, high=131_072)
    n_threads: int = _opt(0, low=0, high=256, doc="0 = llama.cpp's choice")
    max_prompt_tokens: int = _opt(3072, low=64, high=131_072, doc="fewer than n_ctx")
    preload: bool = _opt(False, doc="load the model when the daemon starts, not at first use")


@dataclass(frozen=True, slots=True)
class OpenAIConfig:
    base_url: str = _opt("", doc="e.g. http://127.0.0.1:8080/v1")
    model: str = _opt("")
    api_key_env: str = _opt("", doc="name of the environment variable holding the key")
    response_format: str = _opt("json_schema", choices=RESPONSE_FORMATS,
                                doc="what the server supports")


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    kind: str = _opt("deterministic", choices=PROVIDER_KINDS)
    fallback: str = _opt("none", choices=FALLBACKS, doc="explicit fallback; never implicit")
    max_output_tokens: int = _opt(1024, low=1, high=32_768,
                                  doc="per call; a model call carries 5 notifications")
    deadline_s: float = _opt(120.0, low=0.1, high=3600.0, doc="per model call")
    daily_calls: int = _opt(500, low=1, high=10_000_000, doc="persistent daily call budget")
    daily_tokens: int = _opt(1_000_000, low=1, high=10_000_000_000, doc="daily token budget")
    llama: LlamaConfig = field(default_factory=LlamaConfig)
    openai: OpenAIConfig = field(default_factory=OpenAIConfig)


@dataclass(frozen=True, slots=True)
class Config:
    log_level: str = _opt("info", choices=LOG_LEVELS)
    intake: IntakeConfig = field(default_factory=IntakeConfig)
    worker: WorkerConfig = field(default_factory=WorkerConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    episodes: EpisodesConfig = field(default_factory=EpisodesConfig)
    sweep: SweepConfig = field(default_factory=SweepConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    provider: ProviderConfig = field(default_factory=ProviderConfig)
    link: LinkConfig = field(default_factory=LinkConfig)
    source: str | None = field(default=None, metadata={"internal": True})
    """The file it came from (None: defaults only). Not a TOML key."""

    def to_dict(self) -> dict[str, Any]:
        """The effective configuration as plain data (secrets appear only as env var names)."""
        return _to_dict(self)


def _to_dict(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(obj):
        if f.metadata.get("internal"):
            continue
        value = getattr(obj, f.name)
        out[f.name] = _to_dict(value) if is_dataclass(value) else value
    return out


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            dict: "a table"}.get(type(value), type(value).__name__)


def _coerce(key: str, f: Any, value: Any) -> Any:
    default = f.default if f.default is not MISSING else None
    want: type[Any] = type(default)
    if want is bool:
        ok = isinstance(value, bool)
    elif want is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif want is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    else:
        ok = isinstance(value, str)
    if not ok:
        raise ConfigError(
            f"{key} = {value!r} is {_type_name(value)}; it must be {_type_name(default)}", key=key
        )
    meta = f.metadata
    choices = meta.get("choices")
    if choices and value not in choices:
        raise ConfigError(
            f"{key} = {value!r} is not allowed; use one of {', '.join(choices)}", key=key
        )
    if isinstance(value, int | float) and not isinstance(value, bool):
        problem = _out_of_bounds(value, meta)
        if problem is not None:
            raise ConfigError(f"{key} = {value!r} {problem}", key=key)
    return value


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _allowed(meta: Mapping[str, Any]) -> str:
    low, high, above = meta.get("low"), meta.get("high"), meta.get("above")
    if above is not None:
        start = f"more than {_num(above)}"
    elif low is not None:
        start = f"from {_num(low)}"
    else:
        start = "any finite number"
    return f"{start} to {_num(high)}" if high is not None else start


def _out_of_bounds(value: float, meta: Mapping[str, Any]) -> str | None:
    """Why `value` breaks the field's bounds (None when it keeps them).

    NaN compares false with everything, so it would slip through a plain range
    test; it and the infinities are refused first, by name."""
    if not math.isfinite(value):
        return f"is not a finite number; allowed {_allowed(meta)}"
    low, high, above = meta.get("low"), meta.get("high"), meta.get("above")
    if ((low is not None and value < low) or (above is not None and value <= above)
            or (high is not None and value > high)):
        return f"is out of range; allowed {_allowed(meta)}"
    return None


def check_bounds(config: Config) -> None:
    """Check every numeric setting of a `Config`, however it was built, against the
    same bounds `load_config` applies; raise `ConfigError` naming the first bad key."""

    def walk(obj: Any, prefix: str) -> None:
        for f in fields(obj):
            if f.metadata.get("internal"):
                continue
            value = getattr(obj, f.name)
            if is_dataclass(value):
                walk(value, f"{prefix}{f.name}.")
            elif isinstance(value, int | float) and not isinstance(value, bool):
                problem = _out_of_bounds(value, f.metadata)
                if problem is not None:
                    key = f"{prefix}{f.name}"
                    raise ConfigError(f"{key} = {value!r} {problem}", key=key)

    walk(config, "")


def _build(cls: type[Any], data: Mapping[str, Any], prefix: str) -> Any:
    known = {f.name: f for f in fields(cls) if not f.metadata.get("internal")}
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        key = f"{prefix}{name}"
        f = known.get(name)
        if f is None:
            allowed = ", ".join(sorted(known))
            raise ConfigError(f"unknown key {key} (allowed here: {allowed})", key=key)
        default = f.default_factory() if f.default_factory is not MISSING else None
        if default is not None and is_dataclass(default):
            if not isinstance(value, dict):
                raise ConfigError(
                    f"{key} = {value!r} is {_type_name(value)}; it must be a table [{key}]",
                    key=key,
                )
            kwargs[name] = _build(type(default), value, f"{key}.")
        else:
            kwargs[name] = _coerce(key, f, value)
    return cls(**kwargs)


def _cross_check(config: Config) -> None:
    try:
        ZoneInfo(config.sweep.zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"sweep.zone = {config.sweep.zone!r} is not an IANA time zone "
            "(e.g. Europe/London, America/New_York, UTC)", key="sweep.zone"
        ) from None
    s = config.storage
    if not s.warning_free_mb > s.critical_free_mb > s.emergency_free_mb:
        raise ConfigError(
            "storage thresholds must satisfy warning_free_mb > critical_free_mb > "
            f"emergency_free_mb (got {s.warning_free_mb}, {s.critical_free_mb}, "
            f"{s.emergency_free_mb})", key="storage.warning_free_mb"
        )
    p = config.provider
    if "llama" in (p.kind, p.fallback) and not p.llama.model_path:
        raise ConfigError(
            "the llama provider needs provider.llama.model_path (a GGUF file, or 'small' "
            "for the bundled test model)", key="provider.llama.model_path"
        )
    if "openai" in (p.kind, p.fallback):
        for name in ("base_url", "model"):
            if not getattr(p.openai, name):
                raise ConfigError(
                    f"the openai provider needs provider.openai.{name}",
                    key=f"provider.openai.{name}",
                )
    if p.fallback == p.kind:
        raise ConfigError(
            f"provider.fallback = {p.fallback!r} names the provider itself; use 'none' or "
            "another kind", key="provider.fallback",
        )
    link = config.link
    if link.backoff_initial_s > link.backoff_max_s:
        raise ConfigError(
            f"link.backoff_initial_s = {link.backoff_initial_s} must not exceed "
            f"link.backoff_max_s ({link.backoff_max_s})", key="link.backoff_initial_s",
        )
    if p.llama.max_prompt_tokens >= p.llama.n_ctx:
        raise ConfigError(
            f"provider.llama.max_prompt_tokens = {p.llama.max_prompt_tokens} must be fewer "
            f"than provider.llama.n_ctx ({p.llama.n_ctx})", key="provider.llama.max_prompt_tokens",
        )


ENV_OVERRIDES = {
    "COMPANION_MEMORY_LOG_LEVEL": ("log_level",),
    "COMPANION_MEMORY_PROVIDER": ("provider", "kind"),
    "COMPANION_MEMORY_LLAMA_MODEL": ("provider", "llama", "model_path"),
}


def parse_config(data: Mapping[str, Any], *, source: str | None = None,
                 env: Mapping[str, str] | None = None,
                 overrides: Mapping[tuple[str, ...], Any] | None = None) -> Config:
    """Validate plain data (a parsed TOML document) into a `Config`."""
    merged: dict[str, Any] = _deep_copy(data)
    layered: dict[tuple[str, ...], Any] = {}
    for var, path in ENV_OVERRIDES.items():
        if env is not None and env.get(var):
            layered[path] = env[var]
    layered.update(overrides or {})
    for path, value in layered.items():
        node = merged
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"{'.'.join(path[:-1])} must be a table", key=path[0])
        node[path[-1]] = value
    config = cast(Config, _build(Config, merged, ""))
    config = replace(config, source=source)
    _cross_check(config)
    return config


def _deep_copy(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _deep_copy(v) if isinstance(v, Mapping) else v for k, v in data.items()}


def load_config(path: str | Path | None = None, *, env: Mapping[str, str] | None = None,
                overrides: Mapping[tuple[str, ...], Any] | None = None) -> Config:
    """Read and validate the TOML file at `path` (defaults only when None)."""
    data: dict[str, Any] = {}
    source = None
    if path is not None:
        source = str(path)
        try:
            with open(path, "rb") as handle:
                data = tomllib.load(handle)
        except FileNotFoundError:
            raise ConfigError(f"config file {path} does not exist") from None
        except IsADirectoryError:
            raise ConfigError(f"config file {path} is a directory, not a TOML file") from None
        except PermissionError:
            raise ConfigError(f"config file {path} is not readable (permission denied)") from None
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"config file {path} is not valid TOML: {err}") from None
        except UnicodeDecodeError as err:
            raise ConfigError(
                f"config file {path} is not valid UTF-8 (bad byte at offset {err.start}); "
                "a TOML file must be UTF-8 text"
            ) from None
        except OSError as err:
            raise ConfigError(
                f"config file {path} cannot be read ({os.strerror(err.errno or 0)})"
            ) from None
    return parse_config(data, source=source, env=env, overrides=overrides)


def default_toml() -> str:
    """The defaults as a commented TOML document (for docs and `config --defaults`)."""
    lines: list[str] = []

    def emit(obj: Any, prefix: str) -> None:
        tables: list[tuple[str, Any]] = []
        for f in fields(obj):
            if f.metadata.get("internal"):
                continue
            value = getattr(obj, f.name)
            if is_dataclass(value):
                tables.append((f.name, value))
                continue
            text = _toml_value(value)
            doc = f.metadata.get("doc") or ""
            choices = f.metadata.get("choices")
            if choices:
                doc = (doc + "; " if doc else "") + " | ".join(choices)
            lines.append(f"{f.name} = {text}" + (f"  # {doc}" if doc else ""))
        for name, value in tables:
            lines.append("")
            lines.append(f"[{prefix}{name}]")
            emit(value, f"{prefix}{name}.")

    emit(Config(), "")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)
