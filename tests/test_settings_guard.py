"""Every setting a user can set has a test that proves its effect.

The configuration's settable keys are enumerated from the settings classes themselves
(`dataclasses.fields`, walked from `Config` through every nested table), with the
environment overrides of `device.config.ENV_OVERRIDES`; `EFFECT_TESTS` maps each to the
test that sets a non-default value and observes what the setting promises. A key with no
entry fails here (so a new setting without its test fails CI), and so does an entry that
names no key or a test function that does not exist. Settings classes outside the
configuration are caught too: every class that declares its fields with
`core.settings.setting` must be a table of `Config`, and every `ProviderSettings` field
(the factory's flat form of `[provider]`) must be one a `[provider]` key fills.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import MISSING, fields, is_dataclass
from typing import Any

import pytest

from companion_memory.agent.model.settings import ProviderOptions, ProviderSettings
from companion_memory.device.config import ENV_OVERRIDES, Config

EFFECT_TESTS: dict[str, str] = {
    "log_level": "tests/test_settings_logging.py::test_log_level_is_the_daemons_log_level",
    # [intake]
    "intake.body_limit_bytes":
        "tests/device/test_link_body_cap.py::test_the_feed_path_keeps_its_cap",
    "intake.consume_limit":
        "tests/test_settings_intake.py::test_consume_limit_is_the_ring_entries_one_consume_takes",
    "intake.batch_size":
        "tests/test_settings_intake.py::test_batch_size_is_the_notifications_per_model_call",
    "intake.replay_window": "tests/test_settings_intake.py::"
                            "test_replay_window_is_how_many_fingerprints_the_ring_remembers",
    "intake.ring_capacity": "tests/test_settings_intake.py::"
                            "test_ring_capacity_sizes_the_ring_and_its_high_water_commit",
    "intake.loss_window_s": "tests/test_settings_intake.py::"
                            "test_loss_window_s_bounds_how_long_a_notification_is_only_in_ram",
    "intake.noise_model": "tests/notifications/test_noise_model.py::"
                          "test_the_runtime_drops_noise_by_meaning_only_when_the_setting_says_so",
    # [worker]
    "worker.idle_delay_s":
        "tests/test_settings_worker.py::test_idle_delay_s_is_the_idleness_before_memory_work",
    "worker.retry_budget":
        "tests/test_settings_worker.py::test_retry_budget_is_the_attempts_before_a_batch_is_a_gap",
    "worker.related_limit":
        "tests/test_settings_worker.py::test_related_limit_is_the_related_memories_per_notification",
    # [memory]
    "memory.temporary_ttl_days": "tests/device/test_settings_effects.py::"
                                 "test_temporary_ttl_days_is_a_notification_memorys_lifetime",
    "memory.long_term_ttl_days": "tests/device/test_settings_effects.py::"
                                 "test_long_term_ttl_days_is_an_automatic_long_term_memorys_lifetime",
    "memory.embedder":
        "tests/test_settings_memory.py::test_embedder_is_the_model_recall_fuses_with_keywords",
    "memory.embedder_threads":
        "tests/test_settings_memory.py::test_embedder_threads_is_the_threads_per_embedding_call",
    "memory.question_threads": "tests/device/test_settings_effects.py::"
        "test_embedder_threads_and_question_threads_reach_the_model",
    # [episodes]
    "episodes.batch_size":
        "tests/test_settings_episodes.py::test_batch_size_is_the_episodes_per_model_call",
    "episodes.max_bytes":
        "tests/test_settings_episodes.py::test_max_bytes_is_the_largest_episode_recorded",
    # [sweep]
    "sweep.enabled": "tests/test_settings_sweep.py::"
                     "test_enabled_and_kill_switch_decide_whether_the_sweep_runs",
    "sweep.kill_switch": "tests/test_settings_sweep.py::"
                         "test_enabled_and_kill_switch_decide_whether_the_sweep_runs",
    "sweep.zone": "tests/test_settings_sweep.py::test_zone_is_where_the_swept_day_ends",
    "sweep.max_days_per_run":
        "tests/test_settings_sweep.py::test_max_days_per_run_is_the_days_one_run_sweeps",
    "sweep.max_candidates":
        "tests/test_settings_sweep.py::test_max_candidates_is_the_proposals_kept_per_day",
    "sweep.max_writes": "tests/test_settings_sweep.py::test_max_writes_is_the_writes_per_day",
    # [storage]
    "storage.warning_free_mb":
        "tests/test_settings_storage.py::test_free_mb_thresholds_set_the_storage_levels",
    "storage.critical_free_mb":
        "tests/test_settings_storage.py::test_free_mb_thresholds_set_the_storage_levels",
    "storage.emergency_free_mb":
        "tests/test_settings_storage.py::test_free_mb_thresholds_set_the_storage_levels",
    "storage.hysteresis_mb":
        "tests/test_settings_storage.py::test_hysteresis_mb_is_the_margin_before_a_level_is_left",
    "storage.normal_retention_days": "tests/test_settings_storage.py::"
                                     "test_retention_days_are_how_long_processed_notifications_stay",
    "storage.warning_retention_days": "tests/test_settings_storage.py::"
                                      "test_retention_days_are_how_long_processed_notifications_stay",
    "storage.critical_retention_days": "tests/test_settings_storage.py::"
                                       "test_retention_days_are_how_long_processed_notifications_stay",
    "storage.check_interval_s": "tests/test_settings_storage.py::"
                                "test_check_interval_s_is_how_often_the_status_file_is_rewritten",
    # [provider]
    "provider.kind": "tests/test_settings_provider.py::test_kind_chooses_the_provider",
    "provider.fallback": "tests/test_settings_provider.py::test_fallback_is_used_only_when_named",
    "provider.scenarios":
        "tests/test_settings_provider.py::test_scenarios_is_what_the_model_extracts_for",
    "provider.max_output_tokens":
        "tests/test_settings_provider.py::test_max_output_tokens_caps_every_call",
    "provider.deadline_s": "tests/test_settings_provider.py::test_deadline_s_bounds_a_model_call",
    "provider.daily_calls":
        "tests/test_settings_provider.py::test_daily_calls_is_the_calls_a_day_allows",
    "provider.daily_tokens":
        "tests/test_settings_provider.py::test_daily_tokens_is_the_tokens_a_day_allows",
    "provider.llama.model_path":
        "tests/test_settings_provider.py::test_model_path_names_the_model_file",
    "provider.llama.n_ctx":
        "tests/test_settings_provider.py::test_n_ctx_and_n_threads_are_the_loaded_models",
    "provider.llama.n_threads":
        "tests/test_settings_provider.py::test_n_ctx_and_n_threads_are_the_loaded_models",
    "provider.llama.max_prompt_tokens":
        "tests/test_settings_provider.py::test_max_prompt_tokens_refuses_a_longer_prompt",
    "provider.llama.preload":
        "tests/test_settings_provider.py::test_preload_loads_the_model_when_the_runtime_opens",
    "provider.openai.base_url":
        "tests/test_settings_provider.py::test_the_openai_table_is_what_the_server_gets",
    "provider.openai.model":
        "tests/test_settings_provider.py::test_the_openai_table_is_what_the_server_gets",
    "provider.openai.api_key_env":
        "tests/test_settings_provider.py::test_the_openai_table_is_what_the_server_gets",
    "provider.openai.response_format":
        "tests/test_settings_provider.py::test_the_openai_table_is_what_the_server_gets",
    # [link]
    "link.kind": "tests/device/test_link.py::"
                 "test_runtime_serves_an_iphone_and_reconnects_without_duplicates",
    "link.address": "tests/device/test_link_bluez.py::"
                    "test_runtime_link_over_bleak_and_bluezoo_end_to_end",
    "link.adapter": "tests/device/test_link_bluez.py::"
                    "test_runtime_link_over_bleak_and_bluezoo_end_to_end",
    "link.advertise": "tests/test_settings_link.py::"
                      "test_advertise_says_whether_the_ancs_solicitation_is_advertised",
    "link.local_name": "tests/test_settings_link.py::test_local_name_is_the_advertised_name",
    "link.backoff_initial_s":
        "tests/test_settings_link.py::test_backoff_initial_s_and_max_s_space_the_reconnects",
    "link.backoff_max_s":
        "tests/test_settings_link.py::test_backoff_initial_s_and_max_s_space_the_reconnects",
    # the environment overrides
    "env:COMPANION_MEMORY_LOG_LEVEL":
        "tests/test_settings_logging.py::test_env_log_level_overrides_the_file",
    "env:COMPANION_MEMORY_PROVIDER":
        "tests/test_settings_provider.py::test_env_provider_overrides_the_files_kind",
    "env:COMPANION_MEMORY_LLAMA_MODEL":
        "tests/test_settings_provider.py::test_env_llama_model_overrides_the_files_model_path",
}
"""`key -> path::test`: the test that proves the key's effect."""

PROVIDER_SETTINGS_FROM = {
    "kind": "kind", "fallback": "fallback", "max_output_tokens": "max_output_tokens",
    "deadline_s": "deadline_s", "daily_calls": "daily_calls", "daily_tokens": "daily_tokens",
    "model_path": "llama.model_path", "n_ctx": "llama.n_ctx", "n_threads": "llama.n_threads",
    "max_prompt_tokens": "llama.max_prompt_tokens", "base_url": "openai.base_url",
    "model": "openai.model", "api_key_env": "openai.api_key_env",
    "response_format": "openai.response_format",
}
"""Each `ProviderSettings` field and the `[provider]` key that fills it."""


def settable_keys(obj: Any = None, prefix: str = "") -> list[str]:
    """Every key a config file can set: the fields of `Config`, nested tables walked."""
    keys: list[str] = []
    for f in fields(obj if obj is not None else Config):
        if f.metadata.get("internal"):
            continue
        default = f.default_factory() if f.default_factory is not MISSING else None
        if default is not None and is_dataclass(default):
            keys.extend(settable_keys(default, f"{prefix}{f.name}."))
        else:
            keys.append(f"{prefix}{f.name}")
    return keys


def all_keys() -> list[str]:
    return settable_keys() + [f"env:{var}" for var in ENV_OVERRIDES]


def test_every_setting_has_an_effect_test() -> None:
    missing = [key for key in all_keys() if key not in EFFECT_TESTS]
    assert not missing, f"settings with no effect test in EFFECT_TESTS: {missing}"
    stale = sorted(set(EFFECT_TESTS) - set(all_keys()))
    assert not stale, f"EFFECT_TESTS names keys no settings class has: {stale}"


@pytest.mark.parametrize("key", sorted(EFFECT_TESTS))
def test_each_mapped_test_exists(key: str) -> None:
    path, name = EFFECT_TESTS[key].split("::")
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    test = getattr(module, name, None)
    assert inspect.isfunction(test) and name.startswith("test_"), EFFECT_TESTS[key]


LAYERS = ("core", "ble", "storage", "memory", "agent", "device")


def _settings_classes() -> set[type[Any]]:
    """Every dataclass of the package whose fields are declared with `setting(...)`."""
    found: set[type[Any]] = set()
    names: list[str] = []
    for layer in LAYERS:
        package = importlib.import_module(f"companion_memory.{layer}")
        names.extend(info.name for info in
                     pkgutil.walk_packages(package.__path__, f"companion_memory.{layer}."))
    assert len(names) > 50, names  # the walk reached the modules (a sanity check)
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional dependency (a phone emulator's) is not installed
            continue
        for value in vars(module).values():
            if (inspect.isclass(value) and is_dataclass(value)
                    and value.__module__ == module.__name__
                    and any("doc" in f.metadata for f in fields(value))):
                found.add(value)
    return found


def _config_tables(cls: type[Any] = Config) -> set[type[Any]]:
    tables = {cls}
    for f in fields(cls):
        default = f.default_factory() if f.default_factory is not MISSING else None
        if default is not None and is_dataclass(default):
            tables |= _config_tables(type(default))
    return tables


def test_every_settings_class_is_a_table_of_the_configuration() -> None:
    assert len(_settings_classes()) >= 10
    loose = sorted(c.__qualname__ for c in _settings_classes() - _config_tables())
    assert not loose, f"settings classes no config key reaches (so no test covers): {loose}"


def test_every_provider_settings_field_is_filled_by_a_provider_key() -> None:
    assert {f.name for f in fields(ProviderSettings)} == set(PROVIDER_SETTINGS_FROM)
    provider_keys = set(settable_keys(ProviderOptions()))
    assert set(PROVIDER_SETTINGS_FROM.values()) <= provider_keys
    for name, key in PROVIDER_SETTINGS_FROM.items():
        assert f"provider.{key}" in EFFECT_TESTS, name
