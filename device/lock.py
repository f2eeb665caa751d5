"""The root lock: one owner per root (a host's `Runtime`, the daemon, or a `feed`/`once`).

Every `Runtime` takes it when it opens (the command line's writers open one), so two
owners never write one root at once, in one process or in two: a second `Runtime`,
daemon or writing command is refused with `RootBusyError` naming the holder.

`RootLock` holds two `fcntl.flock(LOCK_EX | LOCK_NB)` locks for as long as the
process keeps it, and the kernel drops both when the process dies, so a SIGKILLed
daemon never leaves a stale lock:

- on the root directory itself, which cannot be deleted while it holds our files,
  so a second writer is refused even when someone removes `daemon.lock`;
- on `<root>/daemon.lock`, a regular file holding the holder's pid, command and
  start time, so `stop` and `status` can name it (and so that a build that locks
  only this file is kept out too).

The holder's file may still be deleted or replaced under it; `verify()` (the
daemon calls it periodically) notices that the name no longer leads to the open
file and recreates it, or reports the lock lost when another process holds the
file now. A lock file that is a directory, a link or a device is refused with a
clear error instead of being opened. Blocking calls: use them off the event loop
(or before it starts).
"""

from __future__ import annotations

import enum
import errno
import fcntl
import os
import stat
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from companion_memory.device.errors import RootBusyError, RootError

LOCK_NAME = "daemon.lock"
EMBEDDED = "runtime"
"""The holder name a host's own `Runtime` writes into the lock file."""
# A holder writes its details just after it takes the lock, and `status` takes a
# shared lock for a moment to test it: a contender that meets either window retries
# for this long before it reports the lock busy with whatever it could learn.
BUSY_RETRY_S = 0.5
_BUSY_POLL_S = 0.02
_INFO_MAX_BYTES = 4096


@dataclass(frozen=True, slots=True)
class LockHolder:
    pid: int | None
    command: str | None
    started_at: str | None

    @property
    def known(self) -> bool:
        """True when the holder's pid and command were read (a live holder's file)."""
        return self.pid is not None and self.command is not None


class LockCheck(enum.Enum):
    """What `RootLock.verify()` found."""

    HELD = "held"
    """`daemon.lock` is still the file this process holds."""
    RECREATED = "recreated"
    """The file was gone or replaced; a new one now holds this process's details."""
    UNREPAIRABLE = "unrepairable"
    """The name now holds something that is not a regular file; the root stays locked
    through its directory, but `status` and `stop` cannot name the holder."""
    LOST = "lost"
    """Another process holds the file at that name now: this one must stop writing."""


_UNKNOWN = LockHolder(None, None, None)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device or special file"


def _not_a_lock_file(path: Path, kind: str) -> RootError:
    return RootError(
        f"{path} is {kind}, not the root's lock file; remove it so that companion-memory "
        "can create its lock file there"
    )


def _open_lock_file(path: Path, *, create: bool) -> int | None:
    """Open the lock file as a regular file, never through a link (None when absent
    and not `create`). Raises `RootError` for anything else at that name."""
    flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    flags |= os.O_RDWR | os.O_CREAT if create else os.O_RDONLY
    try:
        fd = os.open(path, flags, 0o644)
    except FileNotFoundError:
        if create:
            raise
        return None
    except IsADirectoryError as err:
        raise _not_a_lock_file(path, "a directory") from err
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise _not_a_lock_file(path, "a symbolic link") from err
        if err.errno in (errno.ENXIO, errno.EACCES, errno.EPERM, errno.EROFS):
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                mode = 0
            if mode and not stat.S_ISREG(mode):
                raise _not_a_lock_file(path, _kind(mode)) from err
            if err.errno == errno.EROFS:
                raise RootError(f"{path} is on a read-only file system; companion-memory "
                                "needs to write its lock file there") from err
            raise RootError(f"{path} cannot be opened ({os.strerror(err.errno)}); check its "
                            "owner and permissions") from err
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _not_a_lock_file(path, _kind(mode))
    return fd


def _create_lock_file(path: Path) -> int:
    fd = _open_lock_file(path, create=True)
    if fd is None:  # O_CREAT never answers "absent"; kept for the type checker
        raise RootError(f"{path} could not be created")
    return fd


def _open_dir(root: Path) -> int | None:
    try:
        return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except NotADirectoryError as err:
        raise RootError(f"root {root} is not a directory; pass --root DIR with a "
                        "directory") from err


def _try_lock(fd: int, mode: int) -> bool:
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _parse(raw: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _holder_from(raw: bytes) -> LockHolder:
    info = _parse(raw)
    pid, command, started = info.get("pid"), info.get("command"), info.get("started_at")
    return LockHolder(
        pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 else None,
        command if isinstance(command, str) else None,
        started if isinstance(started, str) else None,
    )


def _read_file_holder(path: Path) -> LockHolder:
    """The details in the lock file, whoever wrote them (unknown when absent or unreadable)."""
    try:
        fd = _open_lock_file(path, create=False)
    except (RootError, OSError):
        return _UNKNOWN
    if fd is None:
        return _UNKNOWN
    try:
        return _holder_from(os.pread(fd, _INFO_MAX_BYTES, 0))
    finally:
        os.close(fd)


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _probe(root: Path) -> LockHolder | None:
    """One look: who holds the lock (details possibly unknown), or None when free."""
    dir_fd = _open_dir(root)
    if dir_fd is None:
        return None
    try:
        if not _try_lock(dir_fd, fcntl.LOCK_SH):
            return _read_file_holder(root / LOCK_NAME)
        fcntl.flock(dir_fd, fcntl.LOCK_UN)
    finally:
        os.close(dir_fd)
    # The directory is free; a process that locks only the file may still hold it.
    fd = _open_lock_file(root / LOCK_NAME, create=False)
    if fd is None:
        return None
    try:
        if _try_lock(fd, fcntl.LOCK_SH):
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        return _holder_from(os.pread(fd, _INFO_MAX_BYTES, 0))
    finally:
        os.close(fd)


def read_holder(root: Path) -> LockHolder | None:
    """Who holds the lock right now, or None when nobody does (checked with flock).

    A holder that has not written its details yet is waited for briefly; one whose
    details cannot be learnt comes back with `known` False, never as "nobody".
    Raises `RootError` when `daemon.lock` is not a regular file."""
    deadline = time.monotonic() + BUSY_RETRY_S
    while True:
        holder = _probe(root)
        if holder is None or (holder.known and _alive(holder.pid)):
            return holder
        if time.monotonic() >= deadline:
            return _UNKNOWN
        time.sleep(_BUSY_POLL_S)


def describe_holder(root: Path, holder: LockHolder) -> str:
    """`root R is in use by ...; what to do`, right whether or not the details are known."""
    if not holder.known:
        return (f"root {root} is in use by another companion-memory process (its pid is not "
                "recorded yet, or its lock file was removed); wait for it to finish, or see "
                "`companion-memory status`")
    if holder.command == "run":
        return (f"root {root} is in use by the daemon (pid {holder.pid}); stop it with "
                "`companion-memory stop` first")
    if holder.command == EMBEDDED:
        where = "this process" if holder.pid == os.getpid() else f"pid {holder.pid}"
        return (f"root {root} is in use by a companion-memory Runtime ({where}); one Runtime "
                "owns a root at a time: close that Runtime first, or use another root")
    return (f"root {root} is in use by `companion-memory {holder.command}` (pid {holder.pid}); "
            "wait for it to finish")


class _Busy(Exception):
    def __init__(self, holder: LockHolder) -> None:
        super().__init__("busy")
        self.holder = holder


class RootLock:
    """An exclusive, process-lifetime lock on a root."""

    def __init__(self, root: Path, command: str) -> None:
        self.root = root
        self.command = command
        self._dir_fd: int | None = None
        self._fd: int | None = None
        self._started_at = ""

    @property
    def path(self) -> Path:
        return self.root / LOCK_NAME

    def acquire(self) -> RootLock:
        """Take the lock or raise `RootBusyError` naming the holder (`RootError` when
        the lock file is not a regular file)."""
        if self._fd is not None:
            return self
        deadline = time.monotonic() + BUSY_RETRY_S
        while True:
            try:
                self._try_acquire()
                return self
            except _Busy as busy:
                holder = busy.holder
                if (holder.known and _alive(holder.pid)) or time.monotonic() >= deadline:
                    if not _alive(holder.pid):
                        holder = _UNKNOWN  # details left by an earlier holder: not this one
                    raise RootBusyError(describe_holder(self.root, holder), pid=holder.pid,
                                        command=holder.command) from None
            time.sleep(_BUSY_POLL_S)

    def _try_acquire(self) -> None:
        dir_fd = _open_dir(self.root)
        if dir_fd is None:
            raise RootError(f"root {self.root} does not exist; it is created before locking")
        fd: int | None = None
        try:
            if not _try_lock(dir_fd, fcntl.LOCK_EX):
                raise _Busy(_read_file_holder(self.path))
            while True:
                fd = _create_lock_file(self.path)
                if not _try_lock(fd, fcntl.LOCK_EX):
                    raise _Busy(_holder_from(os.pread(fd, _INFO_MAX_BYTES, 0)))
                if self._names(fd):
                    break
                os.close(fd)  # replaced between open and lock: lock the file that is there
                fd = None
            self._started_at = datetime.now(UTC).isoformat()
            self._write_info(fd)
        except BaseException:
            if fd is not None:
                os.close(fd)
            os.close(dir_fd)
            raise
        self._dir_fd, self._fd = dir_fd, fd

    def _names(self, fd: int) -> bool:
        """True when `daemon.lock` is the open file `fd` (same inode on the same device)."""
        try:
            there = os.lstat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (there.st_ino, there.st_dev) == (mine.st_ino, mine.st_dev)

    def _write_info(self, fd: int) -> None:
        payload = orjson.dumps({
            "pid": os.getpid(),
            "command": self.command,
            "started_at": self._started_at,
        })
        os.ftruncate(fd, 0)
        os.pwrite(fd, payload, 0)

    def verify(self) -> LockCheck:
        """Check that `daemon.lock` still names the file this process holds; recreate it
        when it was removed or replaced by a file nobody holds."""
        if self._fd is None:
            raise RootError("the root lock is not held")
        if self._names(self._fd):
            return LockCheck.HELD
        try:
            fd = _create_lock_file(self.path)
        except (RootError, OSError):
            return LockCheck.UNREPAIRABLE
        if not _try_lock(fd, fcntl.LOCK_EX):
            os.close(fd)
            return LockCheck.LOST
        if not self._names(fd):  # replaced again meanwhile: look next time
            os.close(fd)
            return LockCheck.UNREPAIRABLE
        self._write_info(fd)
        old, self._fd = self._fd, fd
        os.close(old)
        return LockCheck.RECREATED

    def release(self) -> None:
        """Drop the lock (idempotent). The file stays; its content is stale but harmless."""
        fd, self._fd = self._fd, None
        dir_fd, self._dir_fd = self._dir_fd, None
        try:
            if fd is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                finally:
                    os.close(fd)
        finally:
            if dir_fd is not None:
                try:
                    fcntl.flock(dir_fd, fcntl.LOCK_UN)
                finally:
                    os.close(dir_fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> RootLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
