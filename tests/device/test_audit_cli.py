"""Audit regressions: defects found by using the real console script as an operator."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import orjson
import pytest

from companion_memory.device.logs import JsonFormatter
from tests.device.helpers import as_json, cli, event


@pytest.mark.parametrize("args", [
    ["recall", "dentist"], ["export"], ["gaps"], ["sweep", "status"],
    ["forget", "n-1", "--reason", "wrong"],
])
def test_read_commands_refuse_a_missing_root_instead_of_creating_one(
        tmp_path: Path, args: list[str]) -> None:
    typo = tmp_path / "typo-root"
    proc = cli(*args, root=typo)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "holds no companion-memory data" in proc.stderr and str(typo) in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not typo.exists()  # a mistyped --root must not receive our files


def test_status_refuses_a_root_that_is_not_ours(tmp_path: Path) -> None:
    foreign = tmp_path / "home"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    proc = cli("status", root=foreign)
    assert proc.returncode == 2 and "not a companion-memory root" in proc.stderr
    afile = tmp_path / "afile"
    afile.write_text("x")
    proc = cli("status", "--json", root=afile)
    assert proc.returncode == 2 and "not a directory" in proc.stderr
    proc = cli("status", root=tmp_path / "missing")  # refused, as every reader refuses it
    assert proc.returncode == 2 and "holds no companion-memory data" in proc.stderr


def test_status_after_once_shows_the_fresh_pending_count_and_round(tmp_path: Path) -> None:
    root = tmp_path / "root"
    lines = b"\n".join(event(f"k{i}", f"Dentist on Tuesday {i}") for i in range(3))
    assert cli("feed", "-", root=root, stdin=lines).returncode == 0
    before = as_json(cli("status", "--json", root=root))
    assert before["pending"] == 3, before
    assert cli("once", root=root).returncode == 0
    after = as_json(cli("status", "--json", root=root))
    assert after["running"] is False and after["state"] == "stopped"
    assert after["pending"] == 0
    assert after["last_round"]["processors"], after["last_round"]
    assert "Dentist" not in orjson.dumps(after).decode()


def test_episode_size_bound_is_checked_before_parsing(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b"{" + b"x" * 300_000)  # over the 256 KiB bound and not JSON either
    proc = cli("episode", str(big), root=tmp_path / "root")
    assert proc.returncode == 2
    assert "at most 262144" in proc.stderr, proc.stderr
    proc = cli("episode", "-", root=tmp_path / "root", stdin=b" " * 300_000)
    assert proc.returncode == 2 and "at most 262144" in proc.stderr, proc.stderr
    assert not (tmp_path / "root" / "episodes").exists()


def test_debug_log_of_an_exception_names_where_without_its_message() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    log = logging.getLogger("companion_memory.test_audit")
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    try:
        table: dict[str, int] = {}
        try:
            table["SENTINEL body text"] += 1
        except KeyError:
            log.debug("internal failure", exc_info=True)
    finally:
        log.removeHandler(handler)
    entry = orjson.loads(stream.getvalue())
    assert entry["error_type"] == "KeyError"
    assert any("test_audit_cli.py:" in frame for frame in entry["where"]), entry
    assert "SENTINEL" not in stream.getvalue()


def test_stop_prints_json_when_asked(tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert cli("feed", "-", root=root, stdin=event("k1", "hello there")).returncode == 0
    data = as_json(cli("stop", "--json", root=root))
    assert data == {"root": str(root), "stopped": False, "pid": None, "was_running": False}


def test_round_text_names_the_sweep_dates_that_ran(capsys: pytest.CaptureFixture[str]) -> None:
    from companion_memory.device.output import print_round

    sweep = {"processor": "sweep", "extra": {"state": "idle", "dates": [
        {"local_date": "2026-11-28", "status": "empty", "reason": None},
        {"local_date": "2026-11-29", "status": "swept", "reason": None}]}}
    print_round({"started_at": "t", "elapsed_s": 0.1, "model_calls": 0, "cancelled": False,
                 "processors": [sweep]})
    line = capsys.readouterr().out.splitlines()[-1]
    assert "dates 2026-11-28 empty, 2026-11-29 swept" in line, line
    assert "nothing to do" not in line


def test_round_text_gives_the_model_cost_per_kept_notification(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from companion_memory.device.output import print_round

    notes = {"processor": "notifications", "analyzed": 6, "applied": 4, "model_calls": 2,
             "prompt_tokens": 2400, "completion_tokens": 300, "model_s": 9.0}
    offline = {"processor": "episodes", "applied": 3, "model_calls": 1}
    print_round({"started_at": "t", "elapsed_s": 9.5, "model_calls": 3, "cancelled": False,
                 "processors": [notes, offline]})
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].endswith("per kept 600 prompt + 75 completion tokens, 2.25 model s"), lines
    assert "per kept" not in lines[-1]  # no tokens (the offline provider): no cost line


def test_config_defaults_json_is_json_with_the_defaults(tmp_path: Path) -> None:
    data = as_json(cli("config", "--defaults", "--json", root=tmp_path / "root"))
    assert data["worker"]["idle_delay_s"] == 300.0 and data["provider"]["kind"] == "deterministic"
    assert data["intake"]["body_limit_bytes"] == 4096
