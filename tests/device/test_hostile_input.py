"""Hostile or broken input through the console script: numeric settings that are NaN,
infinite or zero, a config file that is not UTF-8, empty `--root`/`--config`, a
directory that only looks like a root, terminal escape sequences in notification
text, a lock file or status file that is not what it should be, racing and deleted
locks, and a feed streamed in bounded batches."""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import pytest

from companion_memory.agent.model.provider import ModelRequest, ModelResponse
from companion_memory.core.settings import SettingsError
from companion_memory.device.config import Config, WorkerConfig, check_bounds, parse_config
from companion_memory.device.daemon import serve
from companion_memory.device.errors import ConfigError
from companion_memory.device.feed_input import FEED_BATCH_LINES
from companion_memory.device.root import MARKER
from companion_memory.testing import ScriptedProvider
from tests.device.helpers import CLI, as_json, cli, event, start, wait_exit
from tests.doubles import answer_like_the_rules

RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


# item 7 and 16: numeric settings ---------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "key", "allowed"),
    [
        ("[worker]\nidle_delay_s = nan", "worker.idle_delay_s", "more than 0 to 86400"),
        ("[worker]\nidle_delay_s = 0", "worker.idle_delay_s", "more than 0 to 86400"),
        ("[worker]\nidle_delay_s = 0.0", "worker.idle_delay_s", "more than 0 to 86400"),
        ("[worker]\nidle_delay_s = inf", "worker.idle_delay_s", "more than 0 to 86400"),
        ("[memory]\ntemporary_ttl_days = nan", "memory.temporary_ttl_days", "0.01 to 3650"),
        ("[memory]\nlong_term_ttl_days = -inf", "memory.long_term_ttl_days", "0.01 to 36500"),
        ("[storage]\ncheck_interval_s = nan", "storage.check_interval_s", "1 to 86400"),
        ("[provider]\ndeadline_s = nan", "provider.deadline_s", "0.1 to 3600"),
        ("[link]\nbackoff_initial_s = nan", "link.backoff_initial_s", "0.1 to 3600"),
        ("[link]\nbackoff_max_s = +inf", "link.backoff_max_s", "0.1 to 86400"),
    ],
)
def test_nan_infinite_and_zero_settings_are_refused_by_config_and_commands(
        tmp_path: Path, toml: str, key: str, allowed: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(toml + "\n")
    for command in (["config"], ["once"], ["run"], ["recall", "x"]):
        proc = cli("--config", str(config), *command, root=tmp_path / "root", timeout=30)
        assert proc.returncode == 2, (command, proc.stderr)
        line = one_line(proc)
        assert key in line and allowed in line, line
    assert not (tmp_path / "root").exists()  # refused before anything was created


def test_a_config_built_in_code_with_a_bad_value_fails_when_built() -> None:
    check_bounds(Config())
    with pytest.raises(SettingsError, match=r"idle_delay_s = nan is not a finite") as err:
        Config(worker=WorkerConfig(idle_delay_s=float("nan")))
    assert err.value.key == "idle_delay_s"
    with pytest.raises(ConfigError, match="more than 0"):
        parse_config({"worker": {"idle_delay_s": 0}})
    assert parse_config({"worker": {"idle_delay_s": 0.01}}).worker.idle_delay_s == 0.01


async def test_serve_never_gets_a_nan_delay(tmp_path: Path) -> None:
    # The settings refuse it when built, so no daemon can be started with it.
    with pytest.raises(SettingsError, match=r"idle_delay_s"):
        bad = Config(worker=WorkerConfig(idle_delay_s=float("nan")))
        await asyncio.wait_for(serve(bad, tmp_path / "root"), 30)
    assert not await asyncio.to_thread((tmp_path / "root").exists)


def test_config_file_that_is_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_bytes(b'[worker]\nidle_delay_s = 1\n# caf\xe9 \xff\n')
    for command in ("config", "once"):
        proc = cli("--config", str(config), command, root=tmp_path / "root")
        assert proc.returncode == 2, proc.stderr
        line = one_line(proc)
        assert str(config) in line and "not valid UTF-8" in line, line


# item 10 and 11: the root -------------------------------------------------------------


def test_empty_root_and_config_options_are_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_DATA_HOME": str(home / "xdg")}
    for args in (["--root", "", "status"], ["--root", " ", "once"], ["once", "--root", ""]):
        proc = cli(*args, env=env)
        assert proc.returncode == 2, proc
        assert "--root is empty" in one_line(proc)
    proc = cli("--config", "", "config", root=tmp_path / "root", env=env)
    assert proc.returncode == 2 and "--config is empty" in one_line(proc)
    assert not home.exists()  # the default root was never touched


def test_a_directory_holding_only_our_names_is_not_adopted(tmp_path: Path) -> None:
    look_alike = tmp_path / "look"
    (look_alike / "notifications").mkdir(parents=True)
    (look_alike / "notifications" / "notes.txt").write_text("someone else's")
    # A config whose loading would be visible: a bad value names its key.
    (look_alike / "config.toml").write_text("[worker]\nretry_budget = 0\n")
    before = sorted(p.name for p in look_alike.rglob("*"))
    for command in (["once"], ["config"], ["status"], ["recall", "x"]):
        proc = cli(*command, root=look_alike)
        assert proc.returncode == 2, (command, proc)
        line = one_line(proc)
        assert "not a companion-memory root" in line and MARKER in line, line
        assert "retry_budget" not in line
    assert sorted(p.name for p in look_alike.rglob("*")) == before
    only_config = tmp_path / "cfg"
    only_config.mkdir()
    (only_config / "config.toml").write_text('log_level = "debug"\n')
    assert cli("once", root=only_config).returncode == 2
    # A marker that is not a regular file does not make a root ours either.
    fake = tmp_path / "fake"
    (fake / MARKER).mkdir(parents=True)
    assert cli("once", root=fake).returncode == 2
    # An empty directory, and a root of ours with its config.toml, still work.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli("once", root=empty).returncode == 0
    (empty / "config.toml").write_text("[worker]\nretry_budget = 0\n")
    proc = cli("config", root=empty)
    assert proc.returncode == 2 and "worker.retry_budget" in proc.stderr


# item 9: terminal control sequences ----------------------------------------------------

NASTY_TITLE = "Anna \x1b]0;owned\x07"
NASTY_BODY = ("Dinner on Saturday at Luigi \x1b[2J\x1b[31mred\x9b1m \u202eevil\u202c "
              "\x08\x08\x7f at 7pm\r\nFAKE: forged line")


def test_control_sequences_in_notifications_are_escaped_in_every_output(
        tmp_path: Path) -> None:
    root = tmp_path / "root"
    feed = tmp_path / "f.jsonl"
    feed.write_bytes(orjson.dumps({"kind": "added", "key": "k1", "app_id": "net.whatsapp",
                                   "title": NASTY_TITLE, "body": NASTY_BODY,
                                   "posted_at": "2026-03-12T08:00:00Z"}))
    assert cli("feed", str(feed), root=root).returncode == 0
    assert cli("once", root=root).returncode == 0
    text = cli("recall", "dinner", root=root)
    assert text.returncode == 0 and "Luigi" in text.stdout
    assert not RAW_CONTROLS.search(text.stdout), repr(text.stdout)
    assert "\\x1b]0;owned\\x07" in text.stdout and "\\u202eevil" in text.stdout
    assert not any(line.startswith("FAKE") for line in text.stdout.splitlines())
    hits = orjson.loads(cli("recall", "dinner", "--json", root=root).stdout)
    raw = cli("recall", "dinner", "--json", root=root).stdout
    assert not RAW_CONTROLS.search(raw), repr(raw)  # C1 and bidi are \u escapes too
    assert "\x1b[2J" in hits[0]["text"] and "\u202e" in hits[0]["text"]  # same data
    exported = cli("export", root=root).stdout
    assert not RAW_CONTROLS.search(exported)
    assert any("\u202e" in orjson.loads(x).get("text", "") for x in exported.splitlines())
    for command in (["status"], ["gaps"], ["sweep", "status"]):
        proc = cli(*command, root=root)
        assert proc.returncode == 0 and not RAW_CONTROLS.search(proc.stdout), command
    # A value quoted in an error (here the root's own path) is escaped as well.
    proc = cli("status", root=tmp_path / "bad\x1b[31m\u202e")
    assert not RAW_CONTROLS.search(proc.stdout + proc.stderr)


# item 14: a lock file or status file that is not what it should be ---------------------


def test_lock_file_that_is_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert cli("once", root=root).returncode == 0
    (root / "daemon.lock").unlink()
    (root / "daemon.lock").mkdir()
    feed = tmp_path / "f.jsonl"
    feed.write_bytes(event("k1", "Dentist on Friday"))
    for command in (["feed", str(feed)], ["once"], ["run"]):
        proc = cli(*command, root=root)
        assert proc.returncode == 2, (command, proc)
        line = one_line(proc)
        assert "daemon.lock is a directory" in line and "remove it" in line, line
    status = cli("status", "--json", root=root)
    data = as_json(status)
    assert any("daemon.lock is a directory" in p for p in data["problems"])
    assert data["running"] is False and "pending" in data


def test_a_corrupt_status_file_is_reported_and_replaced(tmp_path: Path) -> None:
    root = tmp_path / "root"
    feed = tmp_path / "f.jsonl"
    feed.write_bytes(b"\n".join(event(f"k{i}", f"Dentist {i} on Friday") for i in range(3)))
    assert cli("once", root=root).returncode == 0
    status_file = root / "daemon" / "status.json"
    status_file.write_bytes(b'{"state": "runn')
    data = as_json(cli("status", "--json", root=root))
    assert any("status.json" in p and "cannot be read" in p for p in data["problems"])
    text = cli("status", root=root)
    assert text.returncode == 0 and "problem:" in text.stdout
    proc = cli("feed", str(feed), root=root)  # committed work: never a failure after it
    assert proc.returncode == 0, proc.stderr
    assert orjson.loads(status_file.read_bytes())["pending"] == 3
    status_file.write_bytes(b"[1, 2]")
    proc = cli("once", "--json", root=root)
    assert proc.returncode == 0, proc.stderr
    assert orjson.loads(status_file.read_bytes())["pending"] == 0
    status_file.unlink()
    status_file.mkdir()  # cannot be replaced at all: the command still succeeds
    proc = cli("feed", str(feed), root=root)
    assert proc.returncode == 0 and "status file was not updated" in proc.stderr
    assert as_json(cli("status", "--json", root=root))["problems"]


# item 15: the lock's holder, racing and deleted locks -----------------------------------


@contextmanager
def held_without_details(root: Path) -> Iterator[None]:
    """Hold the root's locks the way a holder does in the instant before it has written
    its pid and command into `daemon.lock`."""
    dir_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    fd = os.open(root / "daemon.lock", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        fcntl.flock(dir_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)
        os.close(dir_fd)


def test_refusal_is_right_while_the_holder_has_not_written_its_details(
        tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert cli("once", root=root).returncode == 0
    with held_without_details(root):
        for command in (["once"], ["stop"]):
            proc = cli(*command, root=root)
            assert proc.returncode == 2, proc
            line = one_line(proc)
            assert "None" not in line, line
            assert "companion-memory process" in line and "pid" in line, line
        data = as_json(cli("status", "--json", root=root))
        assert data["running"] is False and data["busy_with"] == "an unnamed process"
    assert cli("once", root=root).returncode == 0


def test_concurrent_once_runs_name_a_real_holder(tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert cli("once", root=root).returncode == 0
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_MEMORY")}
    procs = [subprocess.Popen([*CLI, "--root", str(root), "once"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, env=environ)
             for _ in range(10)]
    outcomes = [(p.wait(timeout=120), p.communicate()[1]) for p in procs]
    assert any(code == 0 for code, _ in outcomes)
    for code, err in outcomes:
        assert code in (0, 2), err
        if code == 2:
            assert "None" not in err, err
            assert re.search(r"in use by `companion-memory once` \(pid \d+\)", err) or \
                "another companion-memory process" in err, err


def test_deleting_the_lock_file_does_not_let_a_second_daemon_in(tmp_path: Path) -> None:
    root = tmp_path / "root"
    config = tmp_path / "c.toml"
    config.write_text("[worker]\nidle_delay_s = 3600\n")
    proc = start(root, config)
    second: subprocess.Popen[str] | None = None
    try:
        (root / "daemon.lock").unlink()
        environ = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_MEMORY")}
        second = subprocess.Popen([*CLI, "--root", str(root), "--config", str(config), "run"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, env=environ)
        code = second.wait(timeout=60)
        err = second.communicate()[1]
        assert code == 2, err
        assert "in use by" in err
        feed = tmp_path / "f.jsonl"
        feed.write_bytes(event("k1", "Dentist on Friday"))
        assert cli("feed", str(feed), root=root).returncode == 2
        # The holder puts its lock file back, so `status` and `stop` name it again.
        deadline = time.monotonic() + 30
        while not (root / "daemon.lock").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        status = as_json(cli("status", "--json", root=root))
        assert status["running"] is True and status["pid"] == proc.pid
        assert cli("stop", root=root).returncode == 0
        code, err = wait_exit(proc)
        assert code == 0, err
        assert "lock file was removed or replaced; recreated it" in err
    finally:
        for p in (proc, second):
            if p is not None and p.poll() is None:
                p.kill()
                p.communicate()


class _SecondCallHangs:
    """A model that answers each scenario in its own format, except that its second call
    never answers."""

    name = "scripted"

    def __init__(self) -> None:
        self._inner = ScriptedProvider([answer_like_the_rules], repeat_last=True)
        self.calls = 0
        self.second = asyncio.Event()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        if self.calls >= 2:
            self.second.set()
            await asyncio.Event().wait()
        return await self._inner.complete(request)

    async def prepare(self) -> None:
        await self._inner.prepare()

    async def close(self) -> None:
        await self._inner.close()


async def test_graceful_stop_writes_the_figures_as_they_are(tmp_path: Path) -> None:
    root = tmp_path / "root"
    # every batch must reach the model (the test stops the daemon during the second call),
    # so the noise classifier, which may drop these made-up lines, is off
    config = parse_config({"worker": {"idle_delay_s": 0.05},
                           "intake": {"batch_size": 2, "noise_model": False},
                           "storage": {"check_interval_s": 3600}})
    # Seed 6 notifications (3 batches) with a one-shot feed first.
    feed = tmp_path / "f.jsonl"
    await asyncio.to_thread(feed.write_bytes, b"\n".join(
        event(f"k{i}", f"Team meeting {i} about release {i} in room {i}",
              at=f"2026-03-12T08:0{i}:00Z") for i in range(6)))
    seeded = await asyncio.to_thread(cli, "feed", str(feed), root=root)
    assert seeded.returncode == 0, seeded.stderr
    provider = _SecondCallHangs()
    stop = asyncio.Event()
    ready = asyncio.Event()
    task = asyncio.create_task(serve(config, root, ready=ready, stop=stop, provider=provider))
    await asyncio.wait_for(ready.wait(), 60)
    await asyncio.wait_for(provider.second.wait(), 60)  # batch 1 committed, 2 in flight
    stop.set()
    await asyncio.wait_for(task, 60)
    status = orjson.loads(await asyncio.to_thread((root / "daemon" / "status.json").read_bytes))
    assert status["state"] == "stopped" and "stopped_at" in status
    assert status["notifications"]["memory_cursor"] == 2
    assert status["pending"] == 4


# item 16: the feed is streamed ---------------------------------------------------------


def test_feed_is_streamed_in_bounded_batches(tmp_path: Path) -> None:
    """The first batch is persisted while stdin is still open: the input is never read
    whole before anything is stored."""
    root = tmp_path / "root"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_MEMORY")}
    proc = subprocess.Popen([*CLI, "--root", str(root), "feed", "-", "--json"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=environ)
    assert proc.stdin is not None
    try:
        lines = [event(f"k{i}", f"Parcel {i} arrives today") for i in range(FEED_BATCH_LINES)]
        lines[4] = b"{not json"
        proc.stdin.write(b"\n".join(lines) + b"\n")
        proc.stdin.flush()
        shard = root / "notifications" / "events"
        deadline = time.monotonic() + 60
        stored = 0
        while stored < FEED_BATCH_LINES - 1 and time.monotonic() < deadline:
            files = list(shard.glob("*.jsonl")) if shard.is_dir() else []
            stored = sum(len(f.read_bytes().splitlines()) for f in files)
            time.sleep(0.05)
        assert stored == FEED_BATCH_LINES - 1, stored
        assert proc.poll() is None
        long_line = orjson.dumps({"kind": "added", "key": "big", "app_id": "a", "title": "t",
                                  "body": "x" * (2 << 20), "posted_at": "2026-03-12T08:00:00Z"})
        rest = long_line + b"\n" + event("last", "Parcel last arrives today") + b"\n"
        out, err = proc.communicate(rest, timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 2, err
    summary = orjson.loads(out)
    assert summary["accepted"] == FEED_BATCH_LINES and summary["rejected"] == 2
    assert [r["line"] for r in summary["rejections"]] == [5, FEED_BATCH_LINES + 1]
    assert "longer than" in summary["rejections"][1]["reason"]
    assert summary["persisted"] == FEED_BATCH_LINES
    errors = err.decode().splitlines()
    assert errors == [
        "companion-memory: feed line 5: not valid JSON",
        f"companion-memory: feed line {FEED_BATCH_LINES + 1}: line is longer than 1048576 "
        "bytes; at most 1048576 are allowed",
    ]
