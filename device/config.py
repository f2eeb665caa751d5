"""The configuration: one TOML file, every default written here, validated at start.

`load_config(path, env)` reads the file (when given), applies environment
overrides and returns a frozen `Config`. Each TOML section is the settings
object of the component that uses it (`[sweep]` is `agent.sweep.SweepSettings`,
`[storage]` is `storage.settings.StorageSettings`, ...); each checks its own
values, bounds and cross-field rules when it is built, so a `Config` built in
code with a bad value fails when it is built, as a file does. This module only
maps TOML onto those objects: unknown sections or keys, and any `SettingsError`
of a section, raise `ConfigError` naming the dotted key (`sweep.max_candidates`),
the bad value and what is allowed. Secrets never live in the file: the
OpenAI-compatible provider names the environment variable that holds its key
(`api_key_env`).

Environment overrides: `COMPANION_MEMORY_LOG_LEVEL` (log level),
`COMPANION_MEMORY_PROVIDER` (provider.kind) and `COMPANION_MEMORY_LLAMA_MODEL`
(provider.llama.model_path). The root has its own resolution (`device.root`).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, cast

from companion_memory.agent.episodes.settings import EpisodesSettings
from companion_memory.agent.model.settings import (
    FALLBACKS,
    PROVIDER_KINDS,
    RESPONSE_FORMATS,
    LlamaOptions,
    OpenAIOptions,
    ProviderOptions,
)
from companion_memory.agent.notifications.settings import IntakeSettings
from companion_memory.agent.sweep.settings import SweepSettings
from companion_memory.agent.worker import WorkerSettings
from companion_memory.ble.settings import LINK_KINDS, LinkSettings
from companion_memory.core.settings import SettingsError, setting, validate_settings
from companion_memory.device.errors import ConfigError
from companion_memory.memory.settings import MemorySettings
from companion_memory.storage.settings import StorageSettings

LOG_LEVELS = ("debug", "info", "warning", "error")

# The sections under their configuration names (one class each, owned by its component).
IntakeConfig = IntakeSettings
WorkerConfig = WorkerSettings
MemoryConfig = MemorySettings
EpisodesConfig = EpisodesSettings
SweepConfig = SweepSettings
StorageConfig = StorageSettings
LinkConfig = LinkSettings
LlamaConfig = LlamaOptions
OpenAIConfig = OpenAIOptions
ProviderConfig = ProviderOptions

__all__ = [
    "FALLBACKS", "LINK_KINDS", "LOG_LEVELS", "PROVIDER_KINDS", "RESPONSE_FORMATS", "Config",
    "EpisodesConfig", "IntakeConfig", "LinkConfig", "LlamaConfig", "MemoryConfig",
    "OpenAIConfig", "ProviderConfig", "StorageConfig", "SweepConfig", "WorkerConfig",
    "check_bounds", "default_toml", "load_config", "parse_config",
]


@dataclass(frozen=True, slots=True)
class Config:
    log_level: str = setting("info", choices=LOG_LEVELS)
    intake: IntakeSettings = field(default_factory=IntakeSettings)
    worker: WorkerSettings = field(default_factory=WorkerSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    episodes: EpisodesSettings = field(default_factory=EpisodesSettings)
    sweep: SweepSettings = field(default_factory=SweepSettings)
    storage: StorageSettings = field(default_factory=StorageSettings)
    provider: ProviderOptions = field(default_factory=ProviderOptions)
    link: LinkSettings = field(default_factory=LinkSettings)
    source: str | None = field(default=None, metadata={"internal": True})
    """The file it came from (None: defaults only). Not a TOML key."""

    def __post_init__(self) -> None:
        validate_settings(self)  # the log level, and that each section is its class

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


def _config_error(err: SettingsError, prefix: str) -> ConfigError:
    key = f"{prefix}{err.key}"
    return ConfigError(err.describe(key), key=key)


def check_bounds(config: Config) -> None:
    """Check a `Config` however it was built; raise `ConfigError` naming the dotted key.

    Every section checked itself when it was built, so this only re-runs those
    checks (a thin walk, for callers that hold a `Config` of unknown origin)."""

    def walk(obj: Any, prefix: str) -> None:
        for f in fields(obj):
            value = getattr(obj, f.name)
            if is_dataclass(value) and not isinstance(value, type):
                walk(value, f"{prefix}{f.name}.")
        try:
            replace(obj)  # runs the class's own `__post_init__` checks again
        except SettingsError as err:
            raise _config_error(err, prefix) from None

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
            kwargs[name] = value
    try:
        return cls(**kwargs)
    except SettingsError as err:
        raise _config_error(err, prefix) from None


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
    return replace(config, source=source)


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
        except FileNotFoundError as err:
            raise ConfigError(f"config file {path} does not exist") from err
        except IsADirectoryError as err:
            raise ConfigError(f"config file {path} is a directory, not a TOML file") from err
        except PermissionError as err:
            raise ConfigError(f"config file {path} is not readable (permission denied)") from err
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"config file {path} is not valid TOML: {err}") from err
        except UnicodeDecodeError as err:
            raise ConfigError(
                f"config file {path} is not valid UTF-8 (bad byte at offset {err.start}); "
                "a TOML file must be UTF-8 text"
            ) from None
        except OSError as err:
            raise ConfigError(
                f"config file {path} cannot be read ({os.strerror(err.errno or 0)})"
            ) from err
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
            if f.default is not MISSING:
                value = f.default  # as written: `sweep.zone = "local"`, not this device's zone
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
