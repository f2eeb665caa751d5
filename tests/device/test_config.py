"""Configuration: the documented defaults, TOML loading, env overrides, clear errors;
root resolution and checks; the root lock."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from companion_memory.device.config import Config, default_toml, load_config, parse_config
from companion_memory.device.errors import ConfigError, RootBusyError, RootError
from companion_memory.device.lock import RootLock, read_holder
from companion_memory.device.root import MARKER, check_root, prepare_root, resolve_root


def test_defaults_match_the_documented_defaults() -> None:
    c = Config()
    assert c.intake.body_limit_bytes == 4096
    assert c.intake.consume_limit == 100
    assert c.intake.batch_size == 10
    assert c.intake.replay_window == 4096
    assert c.worker.idle_delay_s == 300.0
    assert c.worker.retry_budget == 3
    assert c.memory.temporary_ttl_days == 14
    assert c.memory.long_term_ttl_days == 90
    assert c.sweep.enabled is True and c.sweep.kill_switch is False
    assert (c.sweep.max_days_per_run, c.sweep.max_candidates, c.sweep.max_writes) == (3, 32, 16)
    assert c.episodes.batch_size == 5
    assert c.provider.kind == "deterministic" and c.provider.fallback == "none"
    assert (c.storage.normal_retention_days, c.storage.warning_retention_days,
            c.storage.critical_retention_days) == (14, 7, 1)


def test_default_toml_round_trips() -> None:
    data = tomllib.loads(default_toml())
    assert parse_config(data).to_dict() == Config().to_dict()


def test_file_values_and_env_overrides(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        'log_level = "debug"\n[worker]\nidle_delay_s = 5\n[sweep]\nenabled = true\n'
        'zone = "Europe/London"\n[provider]\nkind = "openai"\n[provider.openai]\n'
        'base_url = "http://127.0.0.1:8080/v1"\nmodel = "m"\napi_key_env = "MY_KEY"\n'
    )
    c = load_config(path, env={"COMPANION_MEMORY_LOG_LEVEL": "error"})
    assert c.worker.idle_delay_s == 5.0 and isinstance(c.worker.idle_delay_s, float)
    assert c.sweep.enabled and c.sweep.zone == "Europe/London"
    assert c.log_level == "error"  # env wins over the file
    assert c.provider.openai.api_key_env == "MY_KEY"
    assert c.source == str(path)
    assert "MY_KEY" in str(c.to_dict()) and "secret" not in str(c.to_dict())


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("[worker]\nidle_dely_s = 3\n", ["worker.idle_dely_s", "idle_delay_s"]),
        ("[wrker]\n", ["unknown key wrker", "worker"]),
        ('[worker]\nidle_delay_s = "5m"\n', ["worker.idle_delay_s", "'5m'", "a number"]),
        ("[intake]\nbatch_size = true\n", ["intake.batch_size", "True", "an integer"]),
        ("[intake]\nbatch_size = 0\n", ["intake.batch_size", "0", "1 to 100"]),
        ('[provider]\nkind = "gpt"\n', ["provider.kind", "'gpt'", "deterministic, llama, openai"]),
        ('[sweep]\nzone = "Mars/Olympus"\n', ["sweep.zone", "Mars/Olympus", "IANA"]),
        ('[provider]\nkind = "llama"\n', ["provider.llama.model_path"]),
        ("worker = 3\n", ["worker", "table"]),
        ("[storage]\ncritical_free_mb = 2000\n", ["warning_free_mb > critical_free_mb"]),
        ("[worker\n", ["not valid TOML"]),
    ],
)
def test_bad_config_names_key_value_and_allowed(tmp_path: Path, text: str,
                                                 needles: list[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    for needle in needles:
        assert needle in info.value.reason
    assert info.value.code == "bad_config"


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml")


def test_root_resolution_order(tmp_path: Path) -> None:
    device_root = tmp_path / "userdata"
    env = {"HOME": str(tmp_path / "home")}
    assert resolve_root(None, env, device_root) == tmp_path / "home/.local/share/companion-memory"
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg")
    assert resolve_root(None, env, device_root) == tmp_path / "xdg/companion-memory"
    device_root.mkdir()
    assert resolve_root(None, env, device_root) == device_root
    env["COMPANION_MEMORY_ROOT"] = str(tmp_path / "envroot")
    assert resolve_root(None, env, device_root) == tmp_path / "envroot"
    assert resolve_root(str(tmp_path / "cli"), env, device_root) == tmp_path / "cli"


def test_root_not_ours_and_read_only(tmp_path: Path) -> None:
    foreign = tmp_path / "home"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("x")
    with pytest.raises(RootError, match=r"not a companion-memory root .*thesis.tex"):
        prepare_root(foreign)
    assert sorted(os.listdir(foreign)) == ["thesis.tex"]  # untouched
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(RootError, match="not a directory"):
        check_root(a_file)
    ours = prepare_root(tmp_path / "new" / "root")
    assert (ours / MARKER).is_file()
    if os.geteuid() != 0:
        locked = tmp_path / "ro"
        locked.mkdir()
        locked.chmod(0o500)
        try:
            with pytest.raises(RootError, match="not writable"):
                prepare_root(locked)
        finally:
            locked.chmod(0o700)


def test_lock_refuses_a_second_holder(tmp_path: Path) -> None:
    root = prepare_root(tmp_path / "r")
    assert read_holder(root) is None
    with RootLock(root, "run"):
        holder = read_holder(root)
        assert holder is not None and holder.pid == os.getpid() and holder.command == "run"
        with pytest.raises(RootBusyError, match=f"the daemon \\(pid {os.getpid()}\\)"):
            RootLock(root, "feed").acquire()
    assert read_holder(root) is None
    with RootLock(root, "feed"):
        pass


def test_configuration_doc_lists_every_default() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    assert default_toml() in doc, "docs/configuration.md is stale: paste `config --defaults`"
