"""Every command that uses a root refuses a missing or invalid configuration file and,
unless it creates the root, a missing root: the same exit status (2) and the same one
line for every command."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from companion_memory.device.root import prepare_root
from tests.device.helpers import EPISODE, cli, event

READERS = [["status"], ["gaps"], ["recall", "dinner"], ["export"], ["doctor"],
           ["forget", "n-1", "--reason", "wrong"], ["stop"], ["sweep", "status"],
           ["sweep", "reconcile"]]
WRITERS = [["feed", "FEED"], ["once"], ["episode", "EPISODE"], ["run"]]


def args_for(command: list[str], tmp_path: Path) -> list[str]:
    feed = tmp_path / "f.jsonl"
    feed.write_bytes(event("k1", "Dinner on Saturday"))
    episode = tmp_path / "e.json"
    episode.write_bytes(orjson.dumps(EPISODE))
    return [str(feed) if a == "FEED" else str(episode) if a == "EPISODE" else a
            for a in command]


def one_line(proc_stderr: str) -> str:
    lines = proc_stderr.strip().splitlines()
    assert len(lines) == 1, proc_stderr
    assert lines[0].startswith("companion-memory: "), lines[0]
    return lines[0]


@pytest.mark.parametrize("command", READERS + WRITERS, ids=lambda c: " ".join(c[:2]))
def test_a_missing_or_invalid_config_file_is_refused(tmp_path: Path,
                                                     command: list[str]) -> None:
    root = tmp_path / "root"
    prepare_root(root)
    argv = args_for(command, tmp_path)
    missing = cli("--config", str(tmp_path / "nope.toml"), *argv, root=root)
    assert missing.returncode == 2
    assert one_line(missing.stderr) == \
        f"companion-memory: config file {tmp_path / 'nope.toml'} does not exist"
    bad = tmp_path / "bad.toml"
    bad.write_text("[worker]\nidle_dely_s = 3\n")
    invalid = cli("--config", str(bad), *argv, root=root)
    assert invalid.returncode == 2
    assert "unknown key worker.idle_dely_s" in one_line(invalid.stderr)
    # ... and through the environment as well
    invalid = cli(*argv, root=root, env={"COMPANION_MEMORY_CONFIG": str(bad)})
    assert invalid.returncode == 2 and "worker.idle_dely_s" in one_line(invalid.stderr)


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c[:2]))
def test_a_missing_root_is_refused_by_every_reader(tmp_path: Path, command: list[str]) -> None:
    root = tmp_path / "absent"
    proc = cli(*args_for(command, tmp_path), root=root)
    assert proc.returncode == 2
    assert one_line(proc.stderr) == (
        f"companion-memory: root {root} holds no companion-memory data (it does not exist "
        "or is empty); check --root or $COMPANION_MEMORY_ROOT (feed, once, episode or run "
        "create it)")
    assert not root.exists()  # a reader never creates it
