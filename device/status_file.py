"""The root's status file, `<root>/daemon/status.json`, as every owner writes it.

Whoever owns the root (a host's `Runtime`, the daemon, a one-shot command: each opens
a `Runtime`) writes it at open, after every round, every `storage.check_interval_s`
while open, and at close, so `companion-memory status` shows fresh figures whichever
process holds the root. This module builds the snapshot from a status dictionary and
writes it; the `Runtime` decides when. A failure to write it never fails the owner:
it is logged by code (intake must not stop because its status could not be shown).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion_memory.core.errors import CompanionMemoryError
from companion_memory.device.logs import fields, get_logger
from companion_memory.device.reports import StatusFileError, read_status
from companion_memory.storage.fs import FileSystem

GAPS_KEPT = 200
"""How many of the latest gaps the file lists in full (`gaps` reads them from here while
the root is owned)."""


def failure_code(exc: BaseException) -> str:
    return exc.code if isinstance(exc, CompanionMemoryError) else type(exc).__name__


def log_status_failure(exc: BaseException) -> None:
    """The status file or a round report could not be written: log the code, keep running."""
    get_logger("daemon").error("status or report not written; the owner keeps running",
                               extra=fields(code=failure_code(exc)))


def read_previous(fs: FileSystem, root: Path) -> dict[str, Any]:
    """The file as it is (empty when absent or unreadable: the new snapshot replaces it).
    Blocking."""
    try:
        return read_status(fs, root) or {}
    except StatusFileError:
        return {}


def build_snapshot(status: Mapping[str, Any], gaps: Sequence[Mapping[str, Any]], *,
                   state: str, owner: str, pid: int, started_at: str,
                   previous: Mapping[str, Any], stopped_at: str | None = None) -> dict[str, Any]:
    """The file's content: the runtime's status, the latest gaps in full, and who wrote it.

    `state` is `running` while the owner is open and `stopped` once it closed; `owner` is
    the name in the root's lock (`run` for the daemon, `runtime` for a host, the
    command's name otherwise). The last round survives from `previous` when this owner
    ran none."""
    snapshot = dict(status)
    snapshot["gaps"] = {**dict(snapshot.get("gaps") or {}),
                        "all": [dict(g) for g in gaps[-GAPS_KEPT:]]}
    if snapshot.get("last_round") is None:
        snapshot["last_round"] = previous.get("last_round")
    snapshot.update({
        "state": state,
        "owner": owner,
        "updated_by": owner,
        "pid": pid,
        "started_at": started_at,
        "updated_at": datetime.now(UTC).isoformat(),
    })
    if stopped_at is not None:
        snapshot["stopped_at"] = stopped_at
    return snapshot
