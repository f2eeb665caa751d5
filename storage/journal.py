"""An append-only, fsynced JSON Lines record file with a crc per line.

Each line is one JSON object whose last key is `crc`: the crc32 of the object's
canonical JSON without it (orjson, sorted keys, compact), the same line format
as the notification log (`storage.jsonl_log`) without its `context_id`.
`append` writes one line with one write and one fsync (and fsyncs the
directory when it created the file), so adding a record costs O(1) whatever
the file already holds. `rewrite` replaces the whole file atomically.

Torn last line: `load` keeps every line up to the last one that is complete and
passes its crc, or that is complete and shaped like a record (`{...,"crc":<digits>}`
and a newline: a torn append never leaves one). What follows was never
acknowledged (an append returns only after its fsync) and is cut (or, with
`repair=False`, only ignored). Any other invalid line is damage to an
acknowledged record: `load` raises `CorruptStateError` naming the file and
the byte offset, and nothing is cut.

Synchronous, blocking; callers serialize access and run it on a worker thread.
"""

from __future__ import annotations

import os
import zlib
from typing import Any

import orjson

from companion_memory.core.errors import InvalidInputError, StateError
from companion_memory.storage.atomic import CorruptStateError, write_atomic
from companion_memory.storage.fs import FileSystem

CRC_MARK = b',"crc":'


def encode_crc_line(obj: dict[str, Any]) -> bytes:
    """`obj` as one JSON line (with its newline), its crc32 added as the last key `crc`;
    the line format of the journal and of the notification log."""
    body = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    return body[:-1] + CRC_MARK + str(zlib.crc32(body)).encode() + b"}\n"


def decode_crc_line(raw: bytes) -> dict[str, Any] | None:
    """The object of one such line (without its newline), its `crc` key kept, or None
    when the line is not whole or its crc does not match."""
    idx = raw.rfind(CRC_MARK)
    if idx <= 0 or not raw.endswith(b"}"):
        return None
    digits = raw[idx + len(CRC_MARK) : -1]
    if not digits.isdigit() or len(digits) > 10:
        return None
    crc = int(digits)
    if zlib.crc32(raw[:idx] + b"}") != crc:
        return None
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or obj.get("crc") != crc:
        return None
    return obj


def encode_record(obj: dict[str, Any]) -> bytes:
    """One journal line (with its newline) for `obj`; `crc` is added as the last key."""
    if "crc" in obj:
        raise InvalidInputError("a journal record must not carry its own 'crc' key")
    if not obj:
        raise InvalidInputError("a journal record needs at least one key")
    return encode_crc_line(obj)


def decode_record(raw: bytes) -> dict[str, Any] | None:
    """The object of one line (without its newline, `crc` removed), or None if it is
    not valid."""
    obj = decode_crc_line(raw)
    if obj is not None:
        del obj["crc"]
    return obj


def looks_complete(raw: bytes) -> bool:
    """A whole line shaped like a record: `{...,"crc":<digits>}`.

    A torn append leaves a prefix of its lines (maybe followed by garbage), never
    such a line that fails its crc; a bit flipped in a stored record leaves one.
    """
    if not raw.startswith(b'{"') or not raw.endswith(b"}"):
        return False
    idx = raw.rfind(CRC_MARK)
    digits = raw[idx + len(CRC_MARK) : -1] if idx > 0 else b""
    return digits.isdigit() and len(digits) <= 10


class Journal:
    """The append-only record file at `path`."""

    def __init__(self, fs: FileSystem, path: str) -> None:
        self._fs = fs
        self.path = path
        self._size: int | None = None
        """Bytes of valid records on disk (None until `load`)."""
        self.torn_bytes = 0
        """Bytes the last `load` found after the last record (cut unless read-only)."""

    def load(self, *, repair: bool = True) -> list[dict[str, Any]]:
        """Every record, oldest first; cuts a torn last line (see the module doc)."""
        if not self._fs.exists(self.path):
            self._size = 0
            self.torn_bytes = 0
            return []
        data = self._fs.read_bytes(self.path)
        lines: list[tuple[int, int, dict[str, Any] | None]] = []
        pos = 0
        while pos < len(data):
            nl = data.find(b"\n", pos)
            if nl < 0:
                lines.append((pos, len(data), None))
                break
            raw = data[pos:nl]
            obj = decode_record(raw)
            if obj is None and looks_complete(raw):
                lines.append((pos, nl + 1, {}))  # damaged, complete: never a torn append
            else:
                lines.append((pos, nl + 1, obj))
            pos = nl + 1
        keep = max((i for i, ln in enumerate(lines) if ln[2] is not None), default=-1)
        records: list[dict[str, Any]] = []
        for offset, _end, obj in lines[: keep + 1]:
            if not obj:
                raise CorruptStateError(
                    f"{self.path} at byte {offset}: a record fails its crc; records are "
                    "never dropped silently: restore the file or move it aside to start over"
                )
            records.append(obj)
        end = lines[keep][1] if keep >= 0 else 0
        self.torn_bytes = len(data) - end
        if self.torn_bytes and repair:
            if end == 0:
                self._fs.unlink(self.path)
                self._fs.fsync_dir(os.path.dirname(self.path) or ".")
            else:
                self._fs.truncate(self.path, end)
                self._fs.fsync(self.path)
        self._size = end
        return records

    def append(self, obj: dict[str, Any]) -> None:
        """Append one record durably (one write, one fsync; a directory fsync when new)."""
        if self._size is None:
            raise StateError("load() the journal before appending to it")
        line = encode_record(obj)
        new = self._size == 0 and not self._fs.exists(self.path)
        try:
            self._fs.append(self.path, line)
            self._fs.fsync(self.path)
            if new:
                self._fs.fsync_dir(os.path.dirname(self.path) or ".")
        except BaseException:
            self._size = None  # unknown now: the next load cuts what did not land whole
            raise
        self._size += len(line)

    def rewrite(self, objs: list[dict[str, Any]]) -> None:
        """Replace the file atomically with `objs` (a crash leaves the old or the new)."""
        data = b"".join(encode_record(obj) for obj in objs)
        try:
            write_atomic(self._fs, self.path, data)
        except BaseException:
            self._size = None
            raise
        self._size = len(data)

    @property
    def loaded(self) -> bool:
        return self._size is not None
