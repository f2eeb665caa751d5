"""Helpers the command-line tests share: run a command of this checkout, parse its
JSON, build feed lines and a sample episode, start and stop a daemon.

`CLI` is this interpreter running `python -m companion_memory`, and the test session
refuses to start when `companion_memory` would be imported from another checkout
(tests/conftest.py), so a command run here always runs this checkout's code."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[2]
CLI: list[str] = [sys.executable, "-m", "companion_memory"]
SCRIPT = Path(sys.executable).parent / "companion-memory"
"""The installed console script (what a user runs); `test_cli` checks it is this one."""


def cli(*args: str, root: Path | None = None, stdin: bytes | None = None,
        env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    argv = [*CLI, *(["--root", str(root)] if root is not None else []), *args]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_MEMORY")}
    environ.update(env or {})
    return subprocess.run(argv, input=stdin.decode() if stdin is not None else None,
                          capture_output=True, text=True, timeout=timeout, env=environ,
                          check=False)


def as_json(proc: subprocess.CompletedProcess[str]) -> Any:
    assert proc.returncode == 0, proc.stderr
    return orjson.loads(proc.stdout)


def event(key: str, body: str, *, kind: str = "added", app: str = "net.whatsapp.WhatsApp",
          title: str = "Anna", at: str = "2026-03-12T08:00:00Z") -> bytes:
    return orjson.dumps({"kind": kind, "key": key, "app_id": app, "title": title, "body": body,
                         "posted_at": at})


def start(root: Path, config: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([*CLI, "--root", str(root), "--config", str(config), "run"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    status = root / "daemon" / "status.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if status.exists() and orjson.loads(status.read_bytes()).get("pid") == proc.pid:
            return proc
        if proc.poll() is not None:
            raise AssertionError(proc.communicate()[1].decode())
        time.sleep(0.05)
    proc.kill()
    proc.communicate()
    raise AssertionError("daemon did not write its status")


def wait_exit(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err.decode()


EPISODE = {
    "episode_id": "ep-wifi-1",
    "goal": "Turn on Wi-Fi",
    "status": "completed",
    "goal_result": "achieved",
    "started_at": "2026-03-12T08:00:00Z",
    "ended_at": "2026-03-12T08:00:40Z",
    "steps": [
        {"n": 1, "action": "open", "target": "Settings", "observation": "Settings opened"},
        {"n": 2, "action": "tap", "target": "Connections", "observation": "Wi-Fi listed",
         "evidence": ["e1"]},
        {"n": 3, "action": "toggle", "target": "Wi-Fi", "observation": "Wi-Fi on",
         "evidence": ["e2"]},
    ],
    "evidence": [
        {"id": "e1", "kind": "screen", "detail": "Settings > Connections shows Wi-Fi"},
        {"id": "e2", "kind": "setting", "detail": "wifi_enabled=true"},
    ],
}
