"""Atomically replaced small state files (write tmp, fsync, rename, fsync dir)."""

from __future__ import annotations

import os
from typing import Any

import orjson

from companion_memory.core.errors import InvalidInputError
from companion_memory.storage.fs import FileSystem


class CorruptStateError(InvalidInputError):
    """A state file exists but does not hold the JSON object we wrote."""

    code = "corrupt_state"


def ensure_dir(fs: FileSystem, path: str) -> None:
    """Create `path` if needed and make each new directory entry durable."""
    created = fs.makedirs(path)
    for directory in created:
        fs.fsync_dir(os.path.dirname(directory))


def write_atomic(fs: FileSystem, path: str, data: bytes) -> None:
    """Replace `path` with `data` so that a crash leaves the old or the new file whole."""
    directory = os.path.dirname(path) or "."
    tmp = path + ".tmp"
    if fs.entry_kind(tmp) not in (None, "file"):
        # The scratch name is ours; a link or special file there is removed (the link
        # itself, never its target) rather than written through.
        fs.unlink(tmp)
    fs.write_file(tmp, data)
    fs.fsync(tmp)
    fs.replace(tmp, path)
    fs.fsync_dir(directory)


def write_json_atomic(fs: FileSystem, path: str, obj: Any) -> None:
    write_atomic(fs, path, orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))


def read_json(fs: FileSystem, path: str) -> Any | None:
    """The JSON object at `path`, or None when the file does not exist.

    A link or special file at `path` raises `NotRegularFileError` (never followed)."""
    if not fs.exists(path):
        return None
    raw = fs.read_bytes(path)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise CorruptStateError(
            f"state file {path} is not valid JSON; move it aside to start over"
        ) from None
    if not isinstance(value, dict):
        raise CorruptStateError(f"state file {path} does not hold a JSON object")
    return value
