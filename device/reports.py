"""Files an operator inspects: round reports as JSON Lines and the root's status.

- `<root>/reports/YYYY-MM-DD.jsonl`: one round report per line (UTC date of the
  round), appended and fsynced; counts and codes only. The `Runtime` that owns the
  root appends every round worth keeping (`worth_keeping`) and every round run with
  `run_once`, embedded in a host or in the daemon alike.
- `<root>/daemon/status.json`: the owner's snapshot, replaced atomically
  after every round, so `companion-memory status` never sees half a file.

Blocking functions: call them with `asyncio.to_thread`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from companion_memory.agent.report import RoundReport
from companion_memory.core.clock import Clock
from companion_memory.core.errors import CompanionMemoryError, InvalidInputError
from companion_memory.storage.atomic import ensure_dir, read_json, write_json_atomic
from companion_memory.storage.fs import FileSystem
from companion_memory.storage.monitor import CleanResult, StorageLevel

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


def worth_keeping(report: RoundReport) -> bool:
    """A round that did something, failed, was cut short or changed the storage level
    (an idle round that found nothing is not written)."""
    if report.cancelled or report.model_calls or report.errors:
        return True
    for p in report.reports:
        if p.consumed or p.analyzed or p.applied or p.gaps or p.filtered or p.proposals:
            return True
        if p.extra.get("level_changed"):
            return True
    return False


class ReportsCleaner:
    """The storage-level cleaner of the round reports (owned by the device layer).

    Report files older than the level's retention (the same days as processed
    notification shards) are removed; at EMERGENCY every file but today's goes.
    Reports are derived data (counts and codes), so nothing unprocessed is lost.
    """

    name = "round_reports"

    def __init__(self, fs: FileSystem, root: Path, clock: Clock,
                 retention_days: Mapping[StorageLevel, int]) -> None:
        self._fs = fs
        self._dir = str(root / REPORTS_DIR)
        self._clock = clock
        self._days = dict(retention_days)

    async def clean(self, level: StorageLevel) -> CleanResult:
        today = self._clock.now().date()
        keep_from = today if level is StorageLevel.EMERGENCY else (
            today - timedelta(days=self._days[level]))
        return await asyncio.to_thread(self._clean, keep_from)

    def _clean(self, keep_from: date) -> CleanResult:
        removed = freed = 0
        for name in self._fs.listdir(self._dir):
            stem, dot, ext = name.partition(".")
            try:
                day = date.fromisoformat(stem)
            except ValueError:
                continue
            if ext != "jsonl" or not dot or day >= keep_from:
                continue
            path = os.path.join(self._dir, name)
            size = self._fs.size(path)
            self._fs.unlink(path)
            removed, freed = removed + 1, freed + size
        if removed:
            self._fs.fsync_dir(self._dir)
        return CleanResult(removed=removed, freed_bytes=freed)


def status_path(root: Path) -> Path:
    return root.joinpath(*STATUS_PATH)


def write_status(fs: FileSystem, root: Path, snapshot: dict[str, Any]) -> None:
    """Replace the daemon status file atomically."""
    path = status_path(root)
    ensure_dir(fs, str(path.parent))
    write_json_atomic(fs, str(path), orjson.loads(orjson.dumps(snapshot, default=str)))


class StatusFileError(InvalidInputError):
    """`daemon/status.json` cannot be read: not JSON, not an object, or not a regular
    file. It is derived data (rewritten after every round and one-shot command)."""

    code = "bad_status_file"


def read_status(fs: FileSystem, root: Path) -> dict[str, Any] | None:
    """The last status the daemon wrote, or None; `StatusFileError` when it is damaged."""
    path = status_path(root)
    try:
        value = read_json(fs, str(path))
    except CompanionMemoryError as err:
        raise StatusFileError(
            f"the status file {path} cannot be read ({err.code}); it is rewritten after the "
            "next round or writing command, or remove it"
        ) from None
    return value if isinstance(value, dict) else None
