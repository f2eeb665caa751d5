"""The data root: where it is, whether it is ours, whether we may write to it.

Resolution: `--root`, else `$COMPANION_MEMORY_ROOT`,
else `/userdata/agent/memory` where that directory exists (the device), else the
XDG data home (`$XDG_DATA_HOME/companion-memory`, `~/.local/share/companion-memory`).

A root is ours when it is empty, missing, or holds our marker file
`companion-memory.root` (a regular file, written on first use). A non-empty
directory without the marker is refused, even one holding only names we use,
so a mistyped `--root /home/me` never gets our files and a planted `config.toml`
is never loaded.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path

import orjson

from companion_memory.device.errors import RootError

DEVICE_ROOT = Path("/userdata/agent/memory")
MARKER = "companion-memory.root"
ROOT_FORMAT = 1
# Names a root of ours holds. They only shape the refusal message: a directory
# holding nothing but these names is still refused without the marker, since any
# program (or person) can create a `config.toml` or a `notifications/` folder.
_OUR_ENTRIES = frozenset(
    {MARKER, "notifications", "episodes", "memory.sqlite3", "memory.sqlite3-wal",
     "memory.sqlite3-shm", "reports", "daemon", "daemon.lock", "config.toml", "models"}
)


def resolve_root(cli_root: str | None, env: Mapping[str, str],
                 device_root: Path = DEVICE_ROOT) -> Path:
    """The root directory to use (not created, not checked).

    An empty `--root` is refused rather than read as "not given": a script whose
    variable came out empty must not write into the default root."""
    if cli_root is not None:
        if not cli_root.strip():
            raise RootError("--root is empty; pass a directory (or leave --root out to use "
                            "$COMPANION_MEMORY_ROOT or the default root)")
        return Path(cli_root).expanduser().absolute()
    if env.get("COMPANION_MEMORY_ROOT"):
        return Path(env["COMPANION_MEMORY_ROOT"]).expanduser().absolute()
    if device_root.is_dir():
        return device_root
    xdg = env.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path(env.get("HOME") or Path.home()) / ".local" / "share"
    return (base / "companion-memory").absolute()


def check_root(root: Path) -> bool:
    """Refuse a root that is not ours; return True when it already exists as ours."""
    if root.exists() and not root.is_dir():
        raise RootError(f"root {root} is not a directory; pass --root DIR with a directory")
    if not root.exists():
        return False
    try:
        entries = set(os.listdir(root))
    except PermissionError as err:
        raise RootError(f"root {root} is not readable (permission denied)") from err
    if not entries:
        return False
    if MARKER in entries and _is_marker_file(root / MARKER):
        return True
    strangers = sorted(entries - _OUR_ENTRIES)
    if strangers:
        shown = ", ".join(strangers[:3]) + (", ..." if len(strangers) > 3 else "")
        raise RootError(
            f"root {root} is not a companion-memory root (it holds {shown}); "
            "pass an empty or new directory with --root"
        )
    raise RootError(
        f"root {root} is not a companion-memory root (it has no {MARKER} marker file); "
        "pass an empty or new directory with --root, or, if it really is a root of ours "
        f"whose marker was lost, create the marker: touch {root / MARKER}"
    )


def _is_marker_file(path: Path) -> bool:
    """The marker counts only as a regular file (never a link, a folder or a device)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def require_existing_root(root: Path) -> Path:
    """For commands that only read: refuse a root that is missing, empty or not ours,
    instead of creating one and answering "nothing" for a mistyped `--root`."""
    if not check_root(root):
        raise RootError(
            f"root {root} holds no companion-memory data (it does not exist or is empty); "
            "check --root or $COMPANION_MEMORY_ROOT (feed, once, episode or run create it)"
        )
    return root


def _create_fresh(path: Path, data: bytes) -> None:
    """Write `data` to a new file at `path`; whatever was at that name (a stale file,
    or a link planted there) is removed first, never written through."""
    if os.path.lexists(path):
        path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def prepare_root(root: Path) -> Path:
    """Check the root, create it and its marker if needed, and prove it is writable.

    Raises `RootError` for a root that is not ours or that is read-only. Blocking:
    call it off the event loop.
    """
    check_root(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
        marker = root / MARKER
        if not os.path.lexists(marker):
            # scratch names per process: commands started together on one new root
            # must not remove each other's files
            tmp = root / f"{MARKER}.{os.getpid()}.tmp"
            _create_fresh(tmp, orjson.dumps({"format": ROOT_FORMAT,
                                             "product": "companion-memory"}))
            os.replace(tmp, marker)
        probe = root / f".write-probe.{os.getpid()}"
        _create_fresh(probe, b"")
        probe.unlink()
    except OSError as err:
        if err.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            what = "on a read-only file system" if err.errno == errno.EROFS else "not writable"
            raise RootError(
                f"root {root} is {what} ({os.strerror(err.errno)}); "
                "pass a writable directory with --root"
            ) from err
        raise RootError(f"root {root} cannot be used: {os.strerror(err.errno or 0)}") from err
    return root
