"""The daemon's status file, `<root>/daemon/status.json`: written by the daemon at
start, after every round and at exit, and by a one-shot command that changed the
root with no daemon running, so `status` always shows fresh figures."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime

from companion_memory.core.errors import CompanionMemoryError
from companion_memory.device.logs import fields, get_logger
from companion_memory.device.output import warn
from companion_memory.device.reports import StatusFileError, read_status, write_status
from companion_memory.device.runtime import Runtime


def log_status_failure(exc: Exception) -> None:
    """The status file or a round report could not be written: log the code, keep running."""
    code = exc.code if isinstance(exc, CompanionMemoryError) else type(exc).__name__
    get_logger("daemon").error("status or report not written; the daemon keeps running",
                               extra=fields(code=code))


async def publish_status(runtime: Runtime, state: str, started_at: str,
                          stopped_at: str | None = None) -> None:
    snapshot = (await runtime.status()).to_dict()
    gaps = await runtime.gaps()
    snapshot["gaps"]["all"] = [g.to_dict() for g in gaps[-200:]]
    snapshot.update({
        "state": state,
        "pid": os.getpid(),
        "started_at": started_at,
        "updated_at": datetime.now(UTC).isoformat(),
    })
    if stopped_at is not None:
        snapshot["stopped_at"] = stopped_at
    await asyncio.to_thread(write_status, runtime.fs, runtime.root, snapshot)


async def publish_idle_status(runtime: Runtime, command: str) -> None:
    """Rewrite the status file after a one-shot command (`feed`, `once`, ...) changed
    the root with no daemon running, so `status` shows fresh pending, cursors and gaps.

    The last round and the daemon's start time survive from the previous file when
    the command ran no round. Cancellation leaves the previous file in place.

    The command's work is committed before this runs, so a failure here (a corrupt
    or unwritable status file, a full disk) never fails the command: it is logged by
    code and told on stderr in one line, and a corrupt file is replaced."""
    try:
        await _publish_idle_status(runtime, command)
    except Exception as exc:
        log_status_failure(exc)
        code = exc.code if isinstance(exc, CompanionMemoryError) else type(exc).__name__
        warn(f"companion-memory: {command}: the work is committed, but the status file was "
             f"not updated ({code}); `status` shows older figures until the next command")


async def _publish_idle_status(runtime: Runtime, command: str) -> None:
    try:
        previous = await asyncio.to_thread(read_status, runtime.fs, runtime.root) or {}
    except StatusFileError:  # unreadable: the fresh snapshot below replaces it
        previous = {}
    if not runtime.storage_checked:  # no round ran: read the real level now
        await runtime.check_storage()
    snapshot = (await runtime.status()).to_dict()
    gaps = await runtime.gaps()
    snapshot["gaps"]["all"] = [g.to_dict() for g in gaps[-200:]]
    if snapshot.get("last_round") is None:
        snapshot["last_round"] = previous.get("last_round")
    snapshot.update({
        "state": "stopped",
        "pid": None,
        "started_at": previous.get("started_at"),
        "updated_at": datetime.now(UTC).isoformat(),
        "updated_by": command,
    })
    await asyncio.to_thread(write_status, runtime.fs, runtime.root, snapshot)
