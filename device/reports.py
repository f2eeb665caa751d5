"""Files an operator inspects: round reports as JSON Lines and the daemon's status.

- `<root>/reports/YYYY-MM-DD.jsonl`: one round report per line (UTC date of the
  round), appended and fsynced; counts and codes only.
- `<root>/daemon/status.json`: the running daemon's snapshot, replaced atomically
  after every round, so `companion-memory status` never sees half a file.

Blocking functions: call them with `asyncio.to_thread`.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from storage.atomic import ensure_dir, read_json, write_json_atomic
from storage.fs import FileSystem

REPORTS_DIR = "reports"
STATUS_PATH = ("daemon", "status.json")


def append_report(fs: FileSystem, root: Path, report: dict[str, Any], when: datetime) -> str:
    """Append one round report to the day's JSON Lines file; return its path."""
    directory = str(root / REPORTS_DIR)
    ensure_dir(fs, directory)
    path = os.path.join(directory, f"{when.date().isoformat()}.jsonl")
    new = not fs.exists(path)
    fs.append(path, orjson.dumps(report, default=str) + b"\n")
    fs.fsync(path)
    if new:
        fs.fsync_dir(directory)
    return path


def status_path(root: Path) -> Path:
    return root.joinpath(*STATUS_PATH)


def write_status(fs: FileSystem, root: Path, snapshot: dict[str, Any]) -> None:
    """Replace the daemon status file atomically."""
    path = status_path(root)
    ensure_dir(fs, str(path.parent))
    write_json_atomic(fs, str(path), orjson.loads(orjson.dumps(snapshot, default=str)))


def read_status(fs: FileSystem, root: Path) -> dict[str, Any] | None:
    """The last status the daemon wrote, or None."""
    value = read_json(fs, str(status_path(root)))
    return value if isinstance(value, dict) else None
