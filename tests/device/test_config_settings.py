"""Each `[section]` of the configuration is its component's own settings class: the
TOML layer maps onto it, its bounds are the component's, and a bad value is refused
when the object is built (from a file or in code)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from companion_memory.agent.episodes.processor import EpisodeProcessor
from companion_memory.agent.episodes.recorder import EpisodeRecorder
from companion_memory.agent.episodes.settings import EPISODES_PER_CALL
from companion_memory.agent.model.settings import ProviderConfigError, ProviderSettings
from companion_memory.agent.notifications.processor import NotificationProcessor
from companion_memory.agent.sweep.processor import DailySweepProcessor
from companion_memory.agent.sweep.settings import SweepSettings
from companion_memory.agent.worker import MAX_RETRY_BUDGET, MemoryWorker
from companion_memory.ble.ancs.session import AncsSession
from companion_memory.ble.android.session import AndroidSession
from companion_memory.ble.bleak_link import Backoff
from companion_memory.ble.emulator.fake_iphone import FakeIphoneLink
from companion_memory.ble.events import BODY_LIMIT_BYTES
from companion_memory.ble.link import FakePhoneLink
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.core.settings import SettingsError, bounds
from companion_memory.device.config import (
    Config,
    EpisodesConfig,
    IntakeConfig,
    LinkConfig,
    SweepConfig,
    WorkerConfig,
    check_bounds,
    parse_config,
)
from companion_memory.device.errors import ConfigError
from companion_memory.storage.monitor import ThresholdError, Thresholds
from companion_memory.storage.settings import StorageSettings
from tests.device.helpers import cli

NOTHING: Any = object()  # the constructors below only keep their collaborators


def high(cls: type[Any], name: str) -> int:
    value = bounds(cls, name)["high"]
    assert isinstance(value, int)
    return value


def sweep(**kw: Any) -> DailySweepProcessor:
    return DailySweepProcessor(NOTHING, NOTHING, NOTHING, clock=FakeClock(), **kw)


# the reported case -----------------------------------------------------------------


def test_max_candidates_past_the_processors_limit_is_refused_by_config(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[sweep]\nenabled = true\nmax_candidates = 100\n")
    for command in (["config"], ["once"]):
        proc = cli("--config", str(path), *command, root=tmp_path / "root", timeout=60)
        assert proc.returncode == 2, (command, proc.stderr)
        line = proc.stderr.strip()
        assert "sweep.max_candidates = 100" in line and "from 1 to 32" in line, line
    assert not (tmp_path / "root").exists()


def test_a_settings_object_built_in_code_with_a_bad_value_raises() -> None:
    with pytest.raises(SettingsError, match="max_candidates = 100 is out of range") as err:
        SweepSettings(max_candidates=100)
    assert err.value.key == "max_candidates"
    with pytest.raises(SettingsError, match="max_candidates"):
        dataclasses.replace(Config().sweep, max_candidates=100)
    with pytest.raises(SettingsError, match="an instance of SweepSettings"):
        Config(sweep=IntakeConfig())  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as caught:
        parse_config({"sweep": {"max_candidates": 100}})
    assert caught.value.key == "sweep.max_candidates"
    check_bounds(Config())  # the thin walk passes a good Config


def test_every_section_is_a_class_of_its_component() -> None:
    owners = {
        "intake": "companion_memory.agent.notifications", "worker": "companion_memory.agent",
        "memory": "companion_memory.memory", "episodes": "companion_memory.agent.episodes",
        "sweep": "companion_memory.agent.sweep", "storage": "companion_memory.storage",
        "provider": "companion_memory.agent.model", "link": "companion_memory.ble",
    }
    config = Config()
    for name, package in owners.items():
        module = type(getattr(config, name)).__module__
        assert module.startswith(package + "."), (name, module)


# the TOML bound is the component's bound ---------------------------------------------


@pytest.mark.parametrize("key", ["max_days_per_run", "max_candidates", "max_writes"])
def test_sweep_bounds_are_the_processors(key: str) -> None:
    top = high(SweepConfig, key)
    assert parse_config({"sweep": {key: top}})
    assert getattr(sweep(zone="UTC", **{key: top}).settings, key) == top
    with pytest.raises(SettingsError, match=f"{key} = {top + 1} is out of range"):
        sweep(zone="UTC", **{key: top + 1})
    with pytest.raises(ConfigError, match=f"sweep.{key} = {top + 1} is out of range"):
        parse_config({"sweep": {key: top + 1}})


def test_worker_retry_budget_is_every_processors() -> None:
    top = high(WorkerConfig, "retry_budget")
    assert top == MAX_RETRY_BUDGET
    sweep(zone="UTC", retry_budget=top)
    for build in (
        lambda n: sweep(zone="UTC", retry_budget=n),
        lambda n: EpisodeProcessor(NOTHING, NOTHING, NOTHING, clock=FakeClock(), retry_budget=n),
        lambda n: NotificationProcessor(NOTHING, NOTHING, NOTHING, clock=FakeClock(),
                                        retry_budget=n),
    ):
        with pytest.raises(SettingsError, match=f"retry_budget = {top + 1}"):
            build(top + 1)
    MemoryWorker(clock=FakeClock(), settings=WorkerConfig(idle_delay_s=0.5))


def test_episode_bounds_are_the_processors_and_the_recorders(tmp_path: Path) -> None:
    top = high(EpisodesConfig, "batch_size")
    assert top == EPISODES_PER_CALL
    EpisodeProcessor(NOTHING, NOTHING, NOTHING, clock=FakeClock(), batch_size=top)
    with pytest.raises(SettingsError, match=f"batch_size = {top + 1}"):
        EpisodeProcessor(NOTHING, NOTHING, NOTHING, clock=FakeClock(), batch_size=top + 1)
    low = bounds(EpisodesConfig, "max_bytes")["low"]
    EpisodeRecorder(tmp_path, max_bytes=low)
    with pytest.raises(SettingsError, match="max_bytes"):
        EpisodeRecorder(tmp_path, max_bytes=low - 1)


def test_intake_bounds_are_the_sessions_and_the_processors() -> None:
    cap = high(IntakeConfig, "body_limit_bytes")
    assert cap == BODY_LIMIT_BYTES
    AndroidSession(FakePhoneLink(), EventRing(), body_limit_bytes=cap)
    AncsSession(FakeIphoneLink(), EventRing(), zone="UTC", message_limit=cap)
    with pytest.raises(ValueError):
        AndroidSession(FakePhoneLink(), EventRing(), body_limit_bytes=cap + 1)
    with pytest.raises(ValueError):
        AncsSession(FakeIphoneLink(), EventRing(), zone="UTC", message_limit=cap + 1)
    for key in ("batch_size", "consume_limit"):
        top = high(IntakeConfig, key)
        ok: dict[str, Any] = {key: top}
        NotificationProcessor(NOTHING, NOTHING, NOTHING, clock=FakeClock(), **ok)
        bad: dict[str, Any] = {key: top + 1}
        with pytest.raises(SettingsError, match=f"{key} = {top + 1}"):
            NotificationProcessor(NOTHING, NOTHING, NOTHING, clock=FakeClock(), **bad)


def test_storage_settings_build_the_monitors_thresholds() -> None:
    s = StorageSettings()
    assert s.thresholds() == Thresholds()  # the same defaults, in bytes
    with pytest.raises(ThresholdError):
        Thresholds(warning=2, critical=2, emergency=1)
    with pytest.raises(SettingsError, match="warning_free_mb > critical_free_mb"):
        StorageSettings(warning_free_mb=2, critical_free_mb=2, emergency_free_mb=1)


def test_link_backoff_rule_is_the_reconnect_backoffs() -> None:
    same = LinkConfig(backoff_initial_s=5.0, backoff_max_s=5.0)
    Backoff(same.backoff_initial_s, same.backoff_max_s)
    with pytest.raises(ValueError):
        Backoff(6.0, 5.0)
    with pytest.raises(SettingsError, match="must not exceed backoff_max_s"):
        LinkConfig(backoff_initial_s=6.0, backoff_max_s=5.0)


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"kind": "openai", "openai": {"base_url": "ftp://h", "model": "m"}},
         "provider.openai.base_url"),
        ({"kind": "openai", "openai": {"base_url": "http://h/v1", "model": "m",
                                       "api_key_env": "NOT-A-NAME"}},
         "provider.openai.api_key_env"),
        ({"kind": "llama"}, "provider.llama.model_path"),
        ({"fallback": "deterministic"}, "provider.fallback"),
    ],
)
def test_the_provider_table_refuses_what_the_factory_settings_refuse(
        table: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"provider": table})
    assert caught.value.key == key
    flat = {"kind": table.get("kind", "deterministic"), **table.get("openai", {}),
            **({"fallback": table["fallback"]} if "fallback" in table else {})}
    with pytest.raises(ProviderConfigError):
        ProviderSettings(**flat)
