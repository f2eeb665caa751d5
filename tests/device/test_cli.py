"""Every command through this checkout's command line (`python -m companion_memory`,
which the console script runs too).

Subprocess start-up dominates, so one root is reused through a scenario and
assertions are batched.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from companion_memory.device.root import prepare_root
from tests.device.helpers import EPISODE, REPO, SCRIPT, as_json, cli, event

DESIGN_COMMANDS = ["demo", "feed", "once", "run", "stop", "status", "recall", "forget", "export",
                   "gaps", "episode", "config", "sweep"]


def test_console_script_is_installed_and_runs_this_checkout() -> None:
    assert os.access(SCRIPT, os.X_OK), f"{SCRIPT} missing: run `make install`"
    first = SCRIPT.read_text(encoding="utf-8").splitlines()[0]
    # the script runs an interpreter of the environment these tests run in
    assert Path(first.removeprefix("#!")).parent == Path(sys.executable).parent, first
    proc = subprocess.run(
        [str(SCRIPT), "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0 and "usage: companion-memory" in proc.stdout, proc.stderr
    import companion_memory.device.cli as cli_module

    assert Path(cli_module.__file__).resolve().is_relative_to(REPO)


def test_help_lists_every_design_command_and_each_has_help() -> None:
    top = cli("--help")
    assert top.returncode == 0
    for name in DESIGN_COMMANDS:
        assert f"    {name} " in top.stdout, name
        sub = cli(name, "--help")
        assert sub.returncode == 0 and "usage:" in sub.stdout, (name, sub.stderr)
    for action in ("status", "reconcile"):
        assert cli("sweep", action, "--help").returncode == 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["status", "--bogus"], "unrecognized arguments: --bogus"),
        (["recall"], "required: QUERY"),
        (["recall", "x", "--limit", "0"], "--limit 0"),
        (["recall", "x", "--tier", "attic"], "invalid choice: 'attic'"),
        (["forget", "m1"], "--reason"),
        (["feed"], "required: FILE"),
        (["feed", "/nonexistent/feed.jsonl"], "no such file"),
        (["sweep"], "required: ACTION"),
        (["once", "--max-batches", "0"], "--max-batches 0"),
        ([], "required: COMMAND"),
    ],
)
def test_bad_usage_exits_2_with_one_line(tmp_path: Path, args: list[str], needle: str) -> None:
    prepare_root(tmp_path / "r")  # a root that exists: the usage is what is wrong
    proc = cli(*args, root=tmp_path / "r")
    assert proc.returncode == 2, proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], proc.stderr
    assert lines[0].startswith("companion-memory: ")


def test_config_and_root_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[worker]\nidle_delay_s = "soon"\n')
    proc = cli("--config", str(bad), "config", root=tmp_path / "r")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "companion-memory: worker.idle_delay_s = 'soon' is a string; it must be a number")
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("[intake]\nbatchsize = 3\n")
    proc = cli("once", root=tmp_path / "r", env={"COMPANION_MEMORY_CONFIG": str(unknown)})
    assert proc.returncode == 2 and "unknown key intake.batchsize" in proc.stderr

    good = tmp_path / "good.toml"
    good.write_text('[sweep]\nzone = "Asia/Kolkata"\n[provider.openai]\napi_key_env = "K1"\n')
    data = as_json(cli("--config", str(good), "config", "--json", root=tmp_path / "r",
                       env={"K1": "s3cret-value"}))
    assert data["config"]["sweep"]["zone"] == "Asia/Kolkata"
    assert data["config"]["intake"]["batch_size"] == 10
    assert data["secrets"] == {"K1": "set"}
    assert "s3cret-value" not in str(data)
    defaults = cli("config", "--defaults", root=tmp_path / "r")
    assert defaults.returncode == 0 and "[provider.llama]" in defaults.stdout

    foreign = tmp_path / "home"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    proc = cli("recall", "dentist", root=foreign)
    assert proc.returncode == 2 and "not a companion-memory root" in proc.stderr
    assert os.listdir(foreign) == ["notes.txt"]
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        try:
            proc = cli("feed", "-", root=ro / "inner", stdin=b"")
            assert proc.returncode == 2 and "not writable" in proc.stderr, proc.stderr
        finally:
            ro.chmod(0o700)


def test_pipeline_commands_on_one_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    lines = [
        event("k1", "Dinner on Saturday at 7 at the Italian place on Karl-Marx-Allee?"),
        b"{not json",
        event("k2", "Your verification code is 482913", app="com.examplebank.mobile",
              title="Bank"),
        orjson.dumps({"kind": "exploded", "key": "x", "app_id": "a", "title": "", "body": "",
                      "posted_at": "2026-03-12T08:00:00Z"}),
        event("k3", "The dentist appointment moved to Friday 10:00", app="com.apple.mobilecal",
              title="Dentist"),
        orjson.dumps({"kind": "added", "key": "k4", "app_id": "a", "title": "t", "body": "b",
                      "posted_at": "yesterday"}),
        b"",
    ]
    feed = tmp_path / "feed.jsonl"
    feed.write_bytes(b"\n".join(lines))
    proc = cli("feed", str(feed), "--json", root=root)
    assert proc.returncode == 2  # bad lines were reported...
    errors = proc.stderr.strip().splitlines()
    assert [e.split(":")[1].strip() for e in errors] == ["feed line 2", "feed line 4",
                                                         "feed line 6"]
    assert "not valid JSON" in errors[0] and "kind" in errors[1] and "posted_at" in errors[2]
    summary = orjson.loads(proc.stdout)
    assert (summary["accepted"], summary["rejected"], summary["persisted"]) == (3, 3, 3)
    # ...and the good ones landed durably, readable with shell tools.
    shards = sorted((root / "notifications" / "events").glob("*.jsonl"))
    records = [orjson.loads(x) for s in shards for x in s.read_bytes().splitlines()]
    assert [r["key"] for r in records] == ["k1", "k2", "k3"]

    again = as_json(cli("feed", "-", "--json", root=root, stdin=lines[0] + b"\n"))
    # A new process has a new ring, but its replay window is seeded from the log:
    # the same event fed again is a replay, not a second record.
    assert again["duplicates"] == 1 and again["persisted"] == 0

    report = as_json(cli("once", "--json", root=root))
    notes = next(p for p in report["processors"] if p["processor"] == "notifications")
    assert notes["filtered"] == {"verification_code": 1}
    assert notes["pending"] == 0
    assert list((root / "reports").glob("*.jsonl"))

    hits = as_json(cli("recall", "dentist", "--json", root=root))
    assert hits and all(h["tier"] in ("temporary", "long_term") for h in hits)
    first = hits[0]
    for key in ("memory_id", "tier", "revision", "authority", "sources", "expires_at", "score"):
        assert key in first
    assert any(s.startswith("context:") for s in first["sources"])
    text_out = cli("recall", "dentist", root=root)
    assert text_out.returncode == 0 and first["memory_id"] in text_out.stdout

    exported = [orjson.loads(x) for x in cli("export", root=root).stdout.splitlines()]
    assert first["memory_id"] in {row.get("memory_id") for row in exported}
    assert "482913" not in str(exported)

    forgotten = as_json(cli("forget", first["memory_id"], "--reason", "wrong", "--json",
                            root=root))
    assert forgotten["status"] == "deleted"
    assert first["memory_id"] not in {h["memory_id"] for h in
                                      as_json(cli("recall", "dentist", "--json", root=root))}
    assert cli("forget", "no-such-id", "--reason", "x", root=root).returncode == 2
    assert cli("recall", "the", root=root).returncode == 2  # all stopwords: a clear error

    gaps = as_json(cli("gaps", "--json", root=root))
    assert gaps == []  # nothing was lost on this root
    assert cli("gaps", root=root).returncode == 0

    status = as_json(cli("status", "--json", root=root))
    assert status["running"] is False and status["root"] == str(root)

    sweep = as_json(cli("sweep", "status", "--json", root=root))
    assert sweep.get("enabled") is True
    assert cli("sweep", "reconcile", "--json", root=root).returncode == 0


def test_episode_command_and_device_recall(tmp_path: Path) -> None:
    root = tmp_path / "root"
    path = tmp_path / "ep.json"
    path.write_bytes(orjson.dumps(EPISODE))
    out = as_json(cli("episode", str(path), "--json", root=root))
    assert out["episode_id"] == "ep-wifi-1" and out["eligible"] is True
    stored = list((root / "episodes").rglob("ep-wifi-1.json"))
    assert len(stored) == 1
    again = as_json(cli("episode", "-", "--json", root=root, stdin=orjson.dumps(EPISODE)))
    assert again["duplicate"] is True
    report = as_json(cli("once", "--json", root=root))
    episodes = next(p for p in report["processors"] if p["processor"] == "episodes")
    assert episodes["applied"] >= 1, episodes
    device_hits = as_json(cli("recall", "Wi-Fi", "--tier", "device", "--json", root=root))
    assert device_hits and {h["tier"] for h in device_hits} == {"device"}
    assert all(h["tier"] != "device" for h in as_json(cli("recall", "Wi-Fi", "--json",
                                                          root=root)))

    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    proc = cli("episode", str(bad), root=root)
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr
    no_id = dict(EPISODE)
    del no_id["episode_id"]
    proc = cli("episode", "-", root=root, stdin=orjson.dumps(no_id))
    assert proc.returncode == 2 and "episode_id" in proc.stderr, proc.stderr


def test_demo_shows_kept_filtered_memories_recalls_and_report() -> None:
    proc = cli("demo", "--json", timeout=60)
    data = as_json(proc)
    assert data["events"] >= 60
    assert data["link"]["sent"] >= data["events"] - 8  # removals of unknown keys are skipped
    assert data["link"]["persisted"] > 0 and data["link"]["lost"] == 0
    assert data["filtered"], "the sample day has OTPs and marketing"
    assert data["kept"]["applied"] > 0 and data["memories"]
    assert len(data["recalls"]) >= 3 and any(r["hits"] for r in data["recalls"])
    assert data["round"]["processors"]
    blob = proc.stdout
    for secret in ("482913", "771045", "093381", "4111 1111 1111 1111", "Xk9#mP2$vL",
                   "sk-live-51HxQ2eZ", "PRIVATE KEY", "DE89 3704"):
        assert secret not in blob, secret
    text = cli("demo", timeout=60)
    assert text.returncode == 0
    for heading in ("kept:", "filtered", "memories", "recalls:", "round report:"):
        assert heading in text.stdout
