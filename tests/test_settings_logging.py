"""The top-level `log_level` is the level of the daemon's log (`run`), set in a config
file: at `info` the daemon says it opened, at `error` it stays silent about it."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.device.helpers import start, wait_exit


@pytest.mark.parametrize(("level", "shown"), [("info", True), ("error", False)])
def test_log_level_is_the_daemons_log_level(tmp_path: Path, level: str, shown: bool) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'log_level = "{level}"\n[memory]\nembedder = "none"\n')
    proc = start(tmp_path / "root", config)
    proc.send_signal(signal.SIGTERM)
    code, err = wait_exit(proc)
    assert code == 0, err
    assert ("runtime open" in err) is shown
    assert ('"level": "info"' in err or '"level":"info"' in err) is shown
