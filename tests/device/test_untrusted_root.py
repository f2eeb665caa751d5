"""A tampered root, through the console script: links are never followed, read
commands never repair, damaged entries are named and intake continues."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import orjson

from tests.device.helpers import CLI


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "--root", str(root), *args], capture_output=True, text=True,
                          timeout=120, check=False)


def feed_file(tmp_path: Path, count: int, name: str = "feed.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"".join(orjson.dumps({
        "kind": "added", "key": f"k{i}", "app_id": "com.example.chat", "title": f"t{i}",
        "body": f"body {i}", "posted_at": "2026-03-01T10:00:00Z",
    }) + b"\n" for i in range(count)))
    return path


def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_bytes(b"precious bytes\n")
    return path


def snapshot(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            out[rel] = path.read_bytes()
    return out


def events_dir(root: Path) -> Path:
    return root / "notifications" / "events"


def test_gaps_never_writes_through_a_linked_shard(tmp_path: Path) -> None:
    root = tmp_path / "root"
    target = victim(tmp_path)
    assert cli(root, "feed", str(feed_file(tmp_path, 2))).returncode == 0
    (events_dir(root) / "2099-01-01.jsonl").symlink_to(target)
    before = snapshot(root)
    proc = cli(root, "gaps")
    assert proc.returncode == 0, proc.stderr
    assert "unsafe_entry" in proc.stdout
    assert target.read_bytes() == b"precious bytes\n"
    assert snapshot(root) == before  # a read command changes nothing
    proc = cli(root, "feed", str(feed_file(tmp_path, 3, "more.jsonl")))
    assert proc.returncode == 0, proc.stderr
    assert target.read_bytes() == b"precious bytes\n"
    assert (events_dir(root) / "2099-01-01.jsonl").is_symlink()


def test_gaps_shows_a_torn_tail_without_cutting_it(tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert cli(root, "feed", str(feed_file(tmp_path, 2))).returncode == 0
    shard = next(events_dir(root).glob("*.jsonl"))
    with shard.open("ab") as handle:
        handle.write(b'{"app_id":"com.exa')
    before = snapshot(root)
    proc = cli(root, "--json", "gaps")
    assert proc.returncode == 0, proc.stderr
    gaps = orjson.loads(proc.stdout)
    assert [(g["kind"], g["first"], g["last"]) for g in gaps] == [("torn_tail", 3, 3)]
    assert snapshot(root) == before


def test_a_directory_as_a_shard_name_and_a_restored_day_file_keep_intake_going(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    assert cli(root, "feed", str(feed_file(tmp_path, 2))).returncode == 0
    shard = next(events_dir(root).glob("*.jsonl"))
    (events_dir(root) / "2000-01-01.jsonl").write_bytes(shard.read_bytes())  # a restored copy
    (events_dir(root) / "2099-01-01.jsonl").mkdir()
    proc = cli(root, "--json", "gaps")
    assert proc.returncode == 0, proc.stderr
    kinds = sorted(g["kind"] for g in orjson.loads(proc.stdout))
    assert kinds == ["misordered_record", "unsafe_entry"]
    proc = cli(root, "--json", "feed", str(feed_file(tmp_path, 4, "more.jsonl")))
    assert proc.returncode == 0, proc.stderr
    assert orjson.loads(proc.stdout)["persisted"] == 2  # k0, k1 are already in the log


def test_a_bad_state_value_is_named(tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert cli(root, "feed", str(feed_file(tmp_path, 1))).returncode == 0
    state = root / "notifications" / "state.json"
    data = orjson.loads(state.read_bytes())
    state.write_bytes(orjson.dumps({**data, "deleted_through": "many"}))
    for command in (["gaps"], ["feed", str(feed_file(tmp_path, 1))]):
        proc = cli(root, *command)
        assert proc.returncode == 2
        assert "'deleted_through'" in proc.stderr and "internal error" not in proc.stderr


def test_a_linked_state_file_is_refused_and_not_written(tmp_path: Path) -> None:
    root = tmp_path / "root"
    target = victim(tmp_path)
    assert cli(root, "feed", str(feed_file(tmp_path, 1))).returncode == 0
    state = root / "notifications" / "state.json"
    state.unlink()
    state.symlink_to(target)
    proc = cli(root, "feed", str(feed_file(tmp_path, 2, "more.jsonl")))
    assert proc.returncode == 2  # the root holds something we refuse: bad input, not a crash
    assert "state.json is a symbolic link" in proc.stderr
    assert target.read_bytes() == b"precious bytes\n"


def test_read_commands_never_write_through_planted_links(tmp_path: Path) -> None:
    root = tmp_path / "root"
    target = victim(tmp_path)
    assert cli(root, "feed", str(feed_file(tmp_path, 1))).returncode == 0
    (root / ".write-probe").symlink_to(target)
    assert cli(root, "recall", "body").returncode == 0
    assert target.read_bytes() == b"precious bytes\n"
    wal = root / "memory.sqlite3-wal"
    if wal.exists():
        wal.unlink()
    wal.symlink_to(target)
    proc = cli(root, "recall", "body")
    assert proc.returncode == 2
    assert "symbolic link" in proc.stderr
    assert target.read_bytes() == b"precious bytes\n"


def test_refeeding_more_than_the_replay_window_stores_nothing_twice(tmp_path: Path) -> None:
    root = tmp_path / "root"
    source = feed_file(tmp_path, 4097)
    first = cli(root, "--json", "feed", str(source))
    assert first.returncode == 0, first.stderr
    assert orjson.loads(first.stdout)["persisted"] == 4097
    again = cli(root, "--json", "feed", str(source))
    assert again.returncode == 0, again.stderr
    totals = orjson.loads(again.stdout)
    assert (totals["persisted"], totals["duplicates"]) == (0, 4097)


def test_feed_respects_the_storage_level_and_status_shows_it(tmp_path: Path) -> None:
    root = tmp_path / "root"
    config = tmp_path / "low.toml"
    # Thresholds far above any real free space force EMERGENCY.
    config.write_text("[storage]\nwarning_free_mb = 9000000\ncritical_free_mb = 8000000\n"
                      "emergency_free_mb = 7000000\n")
    proc = cli(root, "--config", str(config), "feed", str(feed_file(tmp_path, 3)))
    assert proc.returncode == 1
    assert "intake is paused at storage level emergency" in proc.stderr
    assert list(events_dir(root).glob("*.jsonl")) == []
    status = cli(root, "--config", str(config), "--json", "status")
    assert status.returncode == 0, status.stderr
    assert orjson.loads(status.stdout)["storage"]["level"] == "emergency"


def test_a_link_at_the_write_probe_is_removed_not_written_through(tmp_path: Path) -> None:
    from companion_memory.device.root import prepare_root

    root = tmp_path / "root"
    prepare_root(root)
    target = victim(tmp_path)
    probe = root / f".write-probe.{os.getpid()}"
    probe.symlink_to(target)
    prepare_root(root)  # the probe name is this process's: the link is replaced, then gone
    assert target.read_bytes() == b"precious bytes\n"
    assert not os.path.lexists(probe)
