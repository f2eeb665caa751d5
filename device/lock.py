"""The root lock: one writer process per root (the daemon, or a `feed`/`once`).

`RootLock` holds `fcntl.flock(LOCK_EX | LOCK_NB)` on `<root>/daemon.lock` for as
long as the process keeps it; the kernel drops it when the process dies, so a
SIGKILLed daemon never leaves a stale lock. The holder writes its pid, command and
start time into the file so `stop` and `status` can name it. Blocking calls:
use them off the event loop (or before it starts).
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from device.errors import RootBusyError

LOCK_NAME = "daemon.lock"


@dataclass(frozen=True, slots=True)
class LockHolder:
    pid: int | None
    command: str | None
    started_at: str | None


def read_holder(root: Path) -> LockHolder | None:
    """Who holds the lock right now, or None when nobody does (checked with flock)."""
    path = root / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            info = _parse(os.pread(fd, 4096, 0))
            return LockHolder(info.get("pid"), info.get("command"), info.get("started_at"))
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _parse(raw: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


class RootLock:
    """An exclusive, process-lifetime lock on a root."""

    def __init__(self, root: Path, command: str) -> None:
        self.root = root
        self.command = command
        self._fd: int | None = None

    def acquire(self) -> RootLock:
        path = self.root / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            info = _parse(os.pread(fd, 4096, 0))
            os.close(fd)
            pid, command = info.get("pid"), info.get("command")
            what = "the daemon" if command == "run" else f"`companion-memory {command}`"
            raise RootBusyError(
                f"root {self.root} is in use by {what} (pid {pid}); "
                + ("stop it with `companion-memory stop` first" if command == "run"
                   else "wait for it to finish"),
                pid=pid if isinstance(pid, int) else None,
                command=command if isinstance(command, str) else None,
            ) from None
        except BaseException:
            os.close(fd)
            raise
        payload = orjson.dumps({
            "pid": os.getpid(),
            "command": self.command,
            "started_at": datetime.now(UTC).isoformat(),
        })
        os.ftruncate(fd, 0)
        os.pwrite(fd, payload, 0)
        self._fd = fd
        return self

    def release(self) -> None:
        """Drop the lock (idempotent). The file stays; its content is stale but harmless."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> RootLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
