"""The top-level `log_level` is the level of the daemon's log (`run`), set in a config
file (or by `COMPANION_MEMORY_LOG_LEVEL`, which wins): at `info` the daemon says it
opened, at `error` it stays silent about it."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.device.helpers import start, wait_exit


def runs_and_says_it_opened(tmp_path: Path, level: str) -> bool:
    config = tmp_path / "config.toml"
    config.write_text(f'log_level = "{level}"\n[memory]\nembedder = "none"\n')
    proc = start(tmp_path / "root", config)
    proc.send_signal(signal.SIGTERM)
    code, err = wait_exit(proc)
    assert code == 0, err
    return "runtime open" in err


@pytest.mark.parametrize(("level", "shown"), [("info", True), ("error", False)])
def test_log_level_is_the_daemons_log_level(tmp_path: Path, level: str, shown: bool) -> None:
    assert runs_and_says_it_opened(tmp_path, level) is shown


def test_env_log_level_overrides_the_file(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPANION_MEMORY_LOG_LEVEL", "error")
    assert not runs_and_says_it_opened(tmp_path, "info")
